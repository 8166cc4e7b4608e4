/**
 * Lists the functions of `src/` longer than a limit (lines from the declaration to its closing
 * brace, doc comment excluded), longest first: functions, methods, arrow functions and function
 * expressions, each counted on its own (a function inside another is counted in both). The
 * house's rule: split a function over 80 lines by what it does (docs/architecture.md).
 *
 *   deno run --allow-read --allow-env scripts/long_functions.ts [--max 80] [--check]
 *
 * `--check` exits 1 when one is listed.
 */
import { parseArgs } from "node:util";
import ts from "typescript";

const { values } = parseArgs({
  args: Deno.args,
  options: { max: { type: "string", default: "80" }, check: { type: "boolean" } },
});
const max = Number(values.max);
const root = new URL("../src/", import.meta.url);

/** Every TypeScript file under a folder. */
async function* files(dir: URL): AsyncGenerator<URL> {
  for await (const e of Deno.readDir(dir)) {
    const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory) yield* files(url);
    else if (e.name.endsWith(".ts")) yield url;
  }
}

/** The name a function is known by: its own, its variable's or property's, else "<anonymous>". */
function nameOf(n: ts.Node): string {
  const own = (n as { name?: ts.Node }).name;
  if (own) return own.getText();
  const p = n.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p))) return p.name.getText();
  return "<anonymous>";
}

const long: { lines: number; at: string; name: string }[] = [];
for await (const url of files(root)) {
  const text = await Deno.readTextFile(url);
  const sf = ts.createSourceFile(url.pathname, text, ts.ScriptTarget.Latest, true);
  const visit = (n: ts.Node) => {
    if (
      ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) ||
      ts.isFunctionExpression(n) || ts.isConstructorDeclaration(n)
    ) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
      const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line + 1;
      if (last - first + 1 > max) {
        const at = `src/${url.pathname.slice(root.pathname.length)}:${first}`;
        long.push({ lines: last - first + 1, at, name: nameOf(n) });
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}
long.sort((a, b) => b.lines - a.lines || a.at.localeCompare(b.at));
for (const f of long) console.log(`${String(f.lines).padStart(4)}  ${f.at}  ${f.name}`);
console.log(`${long.length} function(s) over ${max} lines`);
if (values.check && long.length > 0) Deno.exit(1);
