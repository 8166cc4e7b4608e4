import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import {
  detectFileKind,
  type FileWarning,
  type NraFileKind,
  parseD1,
  parseD6,
  parseDeklar,
  parseNraFile,
  parsePokupki,
  parseProdagbi,
  parseVies,
  writeD1,
  writeD6,
  writeDeklar,
  writePokupki,
  writeProdagbi,
  writeVies,
} from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import type { ErrorCode } from "../../src/contract/errors.ts";
import { FIXTURES, throwsApp } from "./_helpers.ts";

/** A fixture's `<file>.expected.json` (scripts/gen_format_fixtures.ts). */
interface Expected {
  kind: NraFileKind;
  file: string;
  /** null: no fixture holds what the records write back to. */
  canonicalFile: string | null;
  writeOptions?: { lineWidth?: number };
  /** Absent when the file is refused (`error`). */
  records?: unknown[];
  /** The reading warnings (code and line), when any. */
  warnings?: Array<{ code: string; line?: number }>;
  /** The error the file is refused with. */
  error?: { code: ErrorCode; message: string; details: Record<string, unknown> };
}

// deno-lint-ignore no-explicit-any
type Any = any;
type Reader = (b: Uint8Array, name: string, o: { warnings: FileWarning[] }) => unknown[];
const READERS: Record<NraFileKind, Reader> = {
  deklar: (b, n, o) => [parseDeklar(b, n, o)],
  pokupki: parsePokupki,
  prodagbi: parseProdagbi,
  vies: parseVies,
  d1: parseD1,
  d6: parseD6,
};
const WRITERS: Record<NraFileKind, (r: Any[], o: Any) => string> = {
  deklar: (r, o) => writeDeklar(r[0], o),
  pokupki: writePokupki,
  prodagbi: writeProdagbi,
  vies: writeVies,
  d1: writeD1,
  d6: writeD6,
};

const cases: Array<{ dir: string; expected: Expected }> = [];
for (const entry of await readdir(FIXTURES, { withFileTypes: true })) {
  if (!entry.isDirectory()) continue; // e.g. .gitattributes
  const dir = entry.name;
  for (const name of await readdir(FIXTURES + dir)) {
    if (!name.endsWith(".expected.json")) continue;
    cases.push({ dir, expected: JSON.parse(await readFile(FIXTURES + dir + "/" + name, "utf8")) });
  }
}

Deno.test("fixtures/formats holds a fixture for every kind, incl. 272/422 and LF variants", () => {
  const files = cases.map((c) => c.expected.file).sort();
  for (
    const f of [
      "DEKLAR.TXT",
      "EMPL2021.TXT",
      "EMPL2021_LF.TXT",
      "NRA62007.TXT",
      "POKUPKI.TXT",
      "POKUPKI_272.TXT",
      "POKUPKI_LF.TXT",
      "PRODAGBI.TXT",
      "PRODAGBI_422.TXT",
      "VIES.TXT",
    ]
  ) assert.ok(files.includes(f), `missing fixture ${f}`);
});

for (const { dir, expected } of cases) {
  const path = `${FIXTURES}${dir}/${expected.file}`;
  const { error, canonicalFile, records } = expected;
  if (error !== undefined) {
    Deno.test(`parse ${dir}/${expected.file} refuses it with ${error.code}, naming line and field`, async () => {
      const bytes = new Uint8Array(await readFile(path));
      const e = throwsApp(
        () => READERS[expected.kind](bytes, expected.file, { warnings: [] }),
        error.code,
      );
      assert.equal(e.message, error.message);
      assert.deepStrictEqual(e.details, error.details);
      // parseNraFile() shows the same error: by content, or by the name when content fails.
      const any = throwsApp(() => parseNraFile(bytes, expected.file), error.code);
      assert.equal(any.message, error.message);
    });
    continue;
  }
  Deno.test(`parse ${dir}/${expected.file} equals its expected JSON, with its warnings`, async () => {
    const bytes = new Uint8Array(await readFile(path));
    const warnings: FileWarning[] = [];
    assert.deepStrictEqual(READERS[expected.kind](bytes, expected.file, { warnings }), records);
    assert.deepStrictEqual(
      warnings.map((w) => w.line === undefined ? { code: w.code } : { code: w.code, line: w.line }),
      expected.warnings ?? [],
    );
    for (const w of warnings) assert.ok(w.message.includes(expected.file) && w.messageBg.length);
    const parsed = parseNraFile(bytes, expected.file);
    assert.deepStrictEqual(parsed.records, records);
    assert.deepStrictEqual(parsed.warnings, warnings);
  });

  if (canonicalFile !== null) {
    Deno.test(`write(expected) of ${dir}/${expected.file} is byte-identical to ${canonicalFile}`, async () => {
      const canonical = new Uint8Array(await readFile(`${FIXTURES}${dir}/${canonicalFile}`));
      const text = WRITERS[expected.kind](records!, expected.writeOptions ?? {});
      assert.deepStrictEqual(encodeCp1251(text, canonicalFile), canonical);
    });
  }

  Deno.test(`detectFileKind() recognises ${dir}/${expected.file} by content as ${expected.kind}`, async () => {
    const bytes = new Uint8Array(await readFile(path));
    if (bytes.length > 0) assert.equal(detectFileKind(bytes), expected.kind);
    assert.equal(detectFileKind(bytes, expected.file), expected.kind);
    assert.equal(parseNraFile(bytes, expected.file).kind, expected.kind);
  });
}
