/**
 * Lists the non-null assertions (`x!`) of `src/` that do not say why they hold. The house's rule
 * (docs/architecture.md § Layers, "Type checking"): a `!` carries a `// non-null: <why>` comment
 * on its line or on the line just above it (a comment that goes on over several lines ends
 * there), else it is replaced by a check or a narrowing. The TypeScript parser finds them, so
 * `!==`, `!x` and a `!` inside a string are not counted.
 *
 *   deno run --allow-read --allow-env scripts/non_null.ts [--all] [--check]
 *
 * `--all` lists every assertion, with or without its comment; `--check` exits 1 when one without
 * is listed.
 */
import { parseArgs } from "node:util";
import ts from "typescript";

/** One non-null assertion: where (`src/…:line`), whether it says why, and its line's text. */
export interface NonNullAssertion {
  at: string;
  explained: boolean;
  line: string;
}

/** Whether a line's comment starts with `non-null:` (`// non-null: …` or `/* non-null: … *\/`). */
const EXPLAINED = /\/[/*]\s*non-null:/;

/**
 * The non-null assertions of one TypeScript source, in order of appearance. A line's own comment
 * or the comment lines just above it (up to the previous line of code) explain it.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { nonNullAssertions } from "./non_null.ts";
 * const found = nonNullAssertions("x.ts", [
 *   "const a = xs[0]!; // non-null: xs is never empty (built above)",
 *   "if (a !== b && !c) f(m.get(k)!);",
 * ].join("\n"));
 * deepEqual(found.map((f) => [f.at, f.explained]), [["x.ts:1", true], ["x.ts:2", false]]);
 * ```
 */
export function nonNullAssertions(name: string, text: string): NonNullAssertion[] {
  const sf = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const lines = text.split("\n");
  const found: NonNullAssertion[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isNonNullExpression(n)) {
      const line = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      found.push({
        at: `${name}:${line + 1}`,
        explained: explainedAt(lines, line),
        line: (lines[line] ?? "").trim(),
      });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

/** Whether line `i` (0-based) or the comment lines just above it carry `non-null:`. */
function explainedAt(lines: readonly string[], i: number): boolean {
  if (EXPLAINED.test(lines[i] ?? "")) return true;
  for (let j = i - 1; j >= 0; j--) {
    const above = (lines[j] ?? "").trim();
    if (!/^(\/\/|\/\*|\*)/.test(above)) return false;
    if (EXPLAINED.test(above)) return true;
  }
  return false;
}

/** Every TypeScript file under a folder. */
async function* files(dir: URL): AsyncGenerator<URL> {
  for await (const e of Deno.readDir(dir)) {
    const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory) yield* files(url);
    else if (e.name.endsWith(".ts")) yield url;
  }
}

/** The non-null assertions of every file under `src/`, sorted by place. */
export async function srcNonNullAssertions(): Promise<NonNullAssertion[]> {
  const root = new URL("../src/", import.meta.url);
  const all: NonNullAssertion[] = [];
  for await (const url of files(root)) {
    const rel = `src/${url.pathname.slice(root.pathname.length)}`;
    all.push(...nonNullAssertions(rel, await Deno.readTextFile(url)));
  }
  return all.sort((a, b) => a.at.localeCompare(b.at, "en", { numeric: true }));
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { all: { type: "boolean" }, check: { type: "boolean" } },
  });
  const all = await srcNonNullAssertions();
  const listed = values.all ? all : all.filter((f) => !f.explained);
  for (const f of listed) console.log(`${f.explained ? "ok " : "   "} ${f.at}  ${f.line}`);
  const bare = all.filter((f) => !f.explained).length;
  console.log(`${all.length} non-null assertions in src/, ${bare} without a "non-null:" comment`);
  if (values.check && bare > 0) Deno.exit(1);
}
