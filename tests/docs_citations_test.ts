/**
 * Every citation of a doc section in the comments of src/ and scripts/ — `docs/console.md
 * § Languages`, `architecture.md § Layout`, `nra-formats.md § D1` — names a Markdown file of the
 * repository (docs/*.md or a file at its root) and a heading that file has, so a reader of the
 * repository can follow it (docs/architecture.md § Docs that resolve). Headings are read with a
 * Markdown parser (mdast-util-from-markdown); a citation matches a heading when its text starts
 * with the heading's (`§ Special EIKs.` is `Special EIKs`), when it names the heading's first
 * words up to punctuation (`§ Two steps)` is "Two steps: read and check, then the PIN"), or
 * when it names a numbered heading by its number (`§2.2`). Chained sections (`§ A, § B`) are
 * each checked.
 * @module
 */
import { fromMarkdown } from "mdast-util-from-markdown";
import { deepStrictEqual, ok } from "node:assert/strict";

const ROOT = new URL("..", import.meta.url);

interface MdNode {
  type: string;
  value?: string;
  depth?: number;
  children?: MdNode[];
}

const textOf = (n: MdNode): string => n.value ?? (n.children ?? []).map(textOf).join("");

const HEADINGS = new Map<string, readonly string[] | null>();

/** The headings of a Markdown file (their plain text), or null when there is no such file. */
function headingsOf(file: string): readonly string[] | null {
  if (!HEADINGS.has(file)) HEADINGS.set(file, readHeadings(file));
  return HEADINGS.get(file)!;
}

function readHeadings(file: string): readonly string[] | null {
  let md: string;
  try {
    md = Deno.readTextFileSync(new URL(file, ROOT));
  } catch {
    return null;
  }
  const out: string[] = [];
  const walk = (n: MdNode) => {
    if (n.type === "heading") out.push(textOf(n).trim());
    for (const c of n.children ?? []) walk(c);
  };
  walk(fromMarkdown(md) as MdNode);
  return out;
}

/** The repository file a citation names: `docs/x.md`, `x.md` (in docs/ or the root). */
function resolveFile(cited: string): string | null {
  const name = cited.replace(/^(\.\.\/)+/, "").replace(/^\.\//, "");
  const candidates = name.includes("/") ? [name] : [`docs/${name}`, name];
  return candidates.find((c) => headingsOf(c) !== null) ?? null;
}

/** The comments of a TypeScript file, each as one line of text (`*` and `//` removed). */
export function commentsOf(source: string): string[] {
  const out: string[] = [];
  const re = /\/\*[\s\S]*?\*\/|(?<![:"'`\w])\/\/[^\n]*/g;
  for (const m of source.matchAll(re)) {
    out.push(
      m[0].replace(/^\/\*+|\*+\/$/g, "").replace(/^\s*(\*|\/\/)/gm, " ").replace(/\s+/g, " "),
    );
  }
  return out;
}

/** One citation: the file as written, the section text that follows `§` (null: the file only). */
export interface Citation {
  readonly file: string;
  readonly section: string | null;
}

/** The citations of one comment: each `file.md` named, with the `§ Section`s after it (up to the
 * next file named; a file named without a section has none). */
export function citationsOf(comment: string): Citation[] {
  const out: Citation[] = [];
  const re = /(?<![\w/.:-])([\w./-]+\.md)\b([\s\S]*?)(?=[\w./-]+\.md\b|$)/g;
  for (const m of comment.matchAll(re)) {
    const file = m[1]!;
    const sections = m[2]!.split("§").slice(1).map((p) => p.trim()).filter((p) => p !== "");
    if (sections.length === 0) out.push({ file, section: null });
    for (const section of sections) out.push({ file, section });
  }
  return out;
}

/** A section's number (`2.2` of `§2.2)` or of the heading `2.2 D6 …`), or null. */
const numberOf = (s: string) => /^(\d+(?:\.\d+)*)(?![\d.]\d)/.exec(s)?.[1] ?? null;

/** Whether a cited section starts with one of the headings (at a word's end), or names a
 * numbered heading by its number (`§2.2` is the heading `2.2 D6, form 6 …`). */
function matches(section: string, headings: readonly string[]): boolean {
  const n = numberOf(section);
  if (n !== null) return headings.some((h) => numberOf(h) === n);
  // A heading's first words, cut at punctuation: `§ Two steps).` for "Two steps: read and …".
  const phrase = section.split(/[).;,:"(]| —| @/)[0]!.trim();
  const opens = (h: string) =>
    phrase.length > 0 && h.startsWith(phrase) &&
    (h.length === phrase.length || !/[\p{L}\p{N}]/u.test(h[phrase.length]!));
  // A heading's title before its colon or parenthesis: `§ Portal files with …` for "Portal
  // files: vat_portal_files, …".
  const titled = (h: string) => {
    const title = h.split(/[:(]| —/)[0]!.trim();
    return title !== h && section.startsWith(title) &&
      !/[\p{L}\p{N}]/u.test(section[title.length] ?? " ");
  };
  return headings.some((h) =>
    opens(h) || titled(h) ||
    section.startsWith(h) &&
      (section.length === h.length || !/[\p{L}\p{N}]/u.test(section[h.length]!))
  );
}

async function* tsFiles(dir: URL): AsyncGenerator<URL> {
  for await (const e of Deno.readDir(dir)) {
    const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory) yield* tsFiles(url);
    else if (e.name.endsWith(".ts")) yield url;
  }
}

Deno.test("citationsOf() reads a section, chained sections, and stops at the next file", () => {
  deepStrictEqual(citationsOf("layouts (docs/nra-formats.md) end with 0x1A, §2.1"), [
    { file: "docs/nra-formats.md", section: "2.1" },
  ]);
  deepStrictEqual(citationsOf("see CHANGELOG.md; https://x.org/a/README.md"), [
    { file: "CHANGELOG.md", section: null },
  ]);
  deepStrictEqual(citationsOf(" Implements docs/test-portal.md § Special EIKs. Then"), [
    { file: "docs/test-portal.md", section: "Special EIKs. Then" },
  ]);
  deepStrictEqual(
    citationsOf("(docs/console.md § Languages, § Pages; README.md § Development)"),
    [
      { file: "docs/console.md", section: "Languages," },
      { file: "docs/console.md", section: "Pages;" },
      { file: "README.md", section: "Development)" },
    ],
  );
  ok(matches("Special EIKs. Then", ["Special EIKs"]));
  ok(!matches("Special EIKsX", ["Special EIKs"]));
  ok(matches("2.2). */", ["2. Payroll", "2.2 D6, form 6"]));
  ok(matches("9, as", ["9. What the API covers"]));
  ok(!matches("2.3", ["2.2 D6, form 6"]));
  ok(matches("Two steps). Inline", ["Two steps: read and check, then the PIN"]));
  ok(!matches("Two step). Inline", ["Two steps: read and check, then the PIN"]));
  ok(matches("Portal files with the layouts", ["Portal files: vat_portal_files, …"]));
});

Deno.test("every § citation in the comments of src/ and scripts/ names a heading of a doc of the repository", async () => {
  const broken: string[] = [];
  let count = 0;
  for (const dir of ["src/", "scripts/"]) {
    for await (const url of tsFiles(new URL(dir, ROOT))) {
      const rel = url.pathname.slice(ROOT.pathname.length);
      const source = await Deno.readTextFile(url);
      for (const comment of commentsOf(source)) {
        for (const { file, section } of citationsOf(comment)) {
          count++;
          const resolved = resolveFile(file);
          const headings = resolved === null ? null : headingsOf(resolved);
          if (headings === null) broken.push(`${rel}: ${file} is not a file of the repository`);
          else if (section !== null && !matches(section, headings)) {
            broken.push(`${rel}: ${file} has no heading "${section.slice(0, 50)}"`);
          }
        }
      }
    }
  }
  ok(count > 100, `only ${count} citations found: the reader is broken`);
  ok(broken.length === 0, `${broken.length} citations do not resolve:\n${broken.join("\n")}`);
});
