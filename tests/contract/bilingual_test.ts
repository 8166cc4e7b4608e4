/**
 * One way to write a text in both languages (docs/architecture.md § One of each): `bi(bg, en)`
 * builds a Bilingual and a page's `t(bg, en)` draws one, both Bulgarian first. This reads every
 * call in src/ and fails when a literal argument is in the wrong language for its place (the
 * arguments swapped), and when a helper takes English first again.
 */
import { deepEqual } from "node:assert/strict";
import ts from "typescript";

const CYRILLIC = /[\u0400-\u04FF]/;
const LATIN = /[A-Za-z]/;

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory) yield* sources(p);
    else if (e.name.endsWith(".ts")) yield p;
  }
}

/** The text of a literal argument (the fixed parts of a template), or null for an expression. */
function literalText(n: ts.Expression): string | null {
  if (ts.isStringLiteralLike(n)) return n.text;
  if (ts.isTemplateExpression(n)) {
    return n.head.text + n.templateSpans.map((s) => s.literal.text).join(" ");
  }
  if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const [l, r] = [literalText(n.left), literalText(n.right)];
    return l === null && r === null ? null : `${l ?? ""} ${r ?? ""}`;
  }
  return null;
}

/** What is wrong with the file's bilingual calls and helpers, one line each. */
function problems(path: string, text: string): string[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const where = (n: ts.Node) =>
    `${path}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
  const visit = (n: ts.Node): void => {
    if (
      ts.isCallExpression(n) && ts.isIdentifier(n.expression) &&
      (n.expression.text === "bi" || n.expression.text === "t") && n.arguments.length === 2
    ) {
      const [bg, en] = n.arguments.map(literalText);
      // A name that reads the same in both ("agent.json") is not a swap.
      if (bg != null && bg === en) return;
      if (bg != null && LATIN.test(bg) && !CYRILLIC.test(bg)) out.push(`${where(n)} bg is English`);
      if (en != null && CYRILLIC.test(en) && !LATIN.test(en)) {
        out.push(`${where(n)} en is Bulgarian`);
      }
    }
    if (ts.isFunctionLike(n) && n.parameters.length >= 2) {
      const names = n.parameters.map((p) => p.name.getText(sf));
      if (names.indexOf("en") !== -1 && names.indexOf("en") < names.indexOf("bg")) {
        out.push(`${where(n)} a helper takes (en, bg)`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

Deno.test("bilingual texts: every bi(bg, en) and t(bg, en) in src/ gives Bulgarian first", async () => {
  const found: string[] = [];
  let calls = 0;
  for await (const p of sources("src")) {
    const text = await Deno.readTextFile(p);
    calls += (text.match(/\b(bi|t)\(/g) ?? []).length;
    found.push(...problems(p, text));
  }
  deepEqual(found, []);
  if (calls < 100) throw new Error(`only ${calls} calls found: is the scan reading src/?`);
});

Deno.test("bilingual texts: the check sees a swapped call and an English-first helper", () => {
  deepEqual(problems("x.ts", 'bi("Keys", "Ключове");'), [
    "x.ts:1 bg is English",
    "x.ts:1 en is Bulgarian",
  ]);
  deepEqual(problems("x.ts", "const say = (en: string, bg: string) => bi(bg, en);"), [
    "x.ts:1 a helper takes (en, bg)",
  ]);
  deepEqual(problems("x.ts", 'bi(`ключ ${k}`, "key " + k); t("Ключове", "Keys");'), []);
});
