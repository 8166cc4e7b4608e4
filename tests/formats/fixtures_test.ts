import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import {
  detectFileKind,
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
import { FIXTURES } from "./_helpers.ts";

interface Expected {
  kind: NraFileKind;
  file: string;
  canonicalFile: string;
  writeOptions?: { lineWidth?: number };
  records: unknown[];
}

// deno-lint-ignore no-explicit-any
type Any = any;
const READERS: Record<NraFileKind, (b: Uint8Array, name: string) => unknown[]> = {
  deklar: (b, n) => [parseDeklar(b, n)],
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
  Deno.test(`parse ${dir}/${expected.file} equals its expected JSON`, async () => {
    const bytes = new Uint8Array(await readFile(path));
    const records = READERS[expected.kind](bytes, expected.file);
    assert.deepStrictEqual(records, expected.records);
  });

  Deno.test(`write(expected) of ${dir}/${expected.file} is byte-identical to ${expected.canonicalFile}`, async () => {
    const canonical = new Uint8Array(await readFile(`${FIXTURES}${dir}/${expected.canonicalFile}`));
    const text = WRITERS[expected.kind](expected.records, expected.writeOptions ?? {});
    assert.deepStrictEqual(encodeCp1251(text, expected.canonicalFile), canonical);
  });

  Deno.test(`detectFileKind() recognises ${dir}/${expected.file} by content as ${expected.kind}`, async () => {
    const bytes = new Uint8Array(await readFile(path));
    if (bytes.length > 0) assert.equal(detectFileKind(bytes), expected.kind);
    assert.equal(detectFileKind(bytes, expected.file), expected.kind);
    assert.equal(parseNraFile(bytes, expected.file).kind, expected.kind);
  });
}
