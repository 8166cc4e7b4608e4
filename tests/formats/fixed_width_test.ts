import assert from "node:assert/strict";
import {
  defineLayout,
  type FileWarning,
  formatFixedLine,
  parseFixedLines,
  parsePokupki,
  type PokupkiRecord,
  writePokupki,
} from "../../src/formats/mod.ts";
import { throwsApp } from "./_helpers.ts";
import { nth } from "../_helpers/nth.ts";

const LAYOUT = defineLayout(
  [
    { code: "T-1", name: "name", label: "name", start: 1, length: 10, type: "text", align: "L" },
    {
      code: "T-2",
      name: "amount",
      label: "amount",
      start: 11,
      length: 15,
      type: "amount",
      align: "R",
    },
    { code: "T-3", name: "count", label: "count", start: 26, length: 4, type: "int", align: "R" },
    { code: "T-4", name: "kind", label: "kind", start: 30, length: 2, type: "code", align: "L" },
  ] as const,
);

function purchase(n: number, over: Partial<PokupkiRecord> = {}): PokupkiRecord {
  return {
    vatNumber: "BG123456786",
    period: "202608",
    branch: null,
    runningNumber: n,
    documentType: "01",
    documentNumber: String(n),
    documentDate: "2026-08-12",
    counterpartyId: "BG175074752",
    counterpartyName: "ЕКО ТРЕЙД ООД",
    goodsDescription: "Стоки",
    baseAndVatNoCredit: null,
    baseFullCredit: 100,
    vatFullCredit: 20,
    basePartialCredit: null,
    vatPartialCredit: null,
    annualAdjustment: null,
    baseTriangular: null,
    specialCode: "",
    ...over,
  };
}

Deno.test("defineLayout() computes the width and refuses gaps in a field table", () => {
  assert.equal(LAYOUT.width, 31);
  assert.throws(() =>
    defineLayout(
      [
        { code: "X", name: "a", label: "a", start: 1, length: 2, type: "text", align: "L" },
        { code: "Y", name: "b", label: "b", start: 4, length: 2, type: "text", align: "L" },
      ] as const,
    )
  );
});

Deno.test("defineLayout() refuses a property name that is not a plain identifier", () => {
  for (const name of ["a-b", "x}; globalThis.y = 1; ({", "__proto__"]) {
    assert.throws(() =>
      defineLayout([{ code: "X", name, label: "x", start: 1, length: 2, type: "text", align: "L" }])
    );
  }
});

Deno.test("formatFixedLine() right-aligns amounts in 15 chars with a leading minus", () => {
  const line = formatFixedLine(
    LAYOUT,
    { name: "АБВ", amount: -20, count: 3, kind: "01" },
    "T.TXT",
    1,
  );
  assert.equal(line, "АБВ       " + "         -20.00" + "   3" + "01");
});

Deno.test("formatFixedLine() writes null numbers as blanks and parse reads them back as null", () => {
  const line = formatFixedLine(
    LAYOUT,
    { name: "", amount: null, count: null, kind: "" },
    "T.TXT",
    1,
  );
  assert.equal(line, " ".repeat(31));
  assert.deepStrictEqual(parseFixedLines(LAYOUT, line + "\r\n", "T.TXT"), [
    { name: "", amount: null, count: null, kind: "" },
  ]);
});

Deno.test("formatFixedLine() refuses to truncate a too-long text (no silent truncation)", () => {
  const e = throwsApp(
    () =>
      formatFixedLine(
        LAYOUT,
        { name: "ТВЪРДЕ ДЪЛГО ИМЕ", amount: 1, count: 1, kind: "" },
        "T.TXT",
        4,
      ),
    "FILE_PARSE_ERROR",
  );
  assert.equal(
    e.message,
    'Cannot write "T.TXT" line 4: field T-1 (name) at position 1 value "ТВЪРДЕ ДЪЛГО ИМЕ" is 16 characters long; the field holds 10',
  );
  assert.deepStrictEqual(e.details, { file: "T.TXT", line: 4, field: "T-1", position: 1 });
});

Deno.test("formatFixedLine() refuses an overflowing number and a third decimal", () => {
  throwsApp(
    () => formatFixedLine(LAYOUT, { name: "", amount: 1, count: 12345, kind: "" }, "T", 1),
    "FILE_PARSE_ERROR",
  );
  throwsApp(
    () => formatFixedLine(LAYOUT, { name: "", amount: 1e12, count: 1, kind: "" }, "T", 1),
    "FILE_PARSE_ERROR",
  );
  throwsApp(
    () => formatFixedLine(LAYOUT, { name: "", amount: 1.005, count: 1, kind: "" }, "T", 1),
    "FILE_PARSE_ERROR",
  );
  throwsApp(
    () => formatFixedLine(LAYOUT, { name: "a\r\nb", amount: 1, count: 1, kind: "" }, "T", 1),
    "FILE_PARSE_ERROR",
  );
  throwsApp(
    () => formatFixedLine(LAYOUT, { name: "", amount: 1, count: 1, kind: "0 1" }, "T", 1),
    "FILE_PARSE_ERROR",
  );
});

Deno.test("parsePokupki() reports a bad date with file, line, field code, label and position", () => {
  const lines = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((n) => purchase(n));
  const text = writePokupki(lines).split("\r\n");
  text[11] = nth(text, 11).slice(0, 62) + "31/02/2026" + nth(text, 11).slice(72);
  const e = throwsApp(() => parsePokupki(text.join("\r\n")), "FILE_PARSE_ERROR");
  assert.equal(
    e.message,
    'Cannot parse "POKUPKI.TXT" line 12: field 03-07 (document date) at position 63 is not a date dd/mm/yyyy (found "31/02/2026")',
  );
  assert.deepStrictEqual(e.details, {
    file: "POKUPKI.TXT",
    line: 12,
    field: "03-07",
    position: 63,
  });
});

Deno.test("parsePokupki() reports a wrong line width as a line-level error", () => {
  const line = writePokupki([purchase(1)]).slice(0, 150);
  const e = throwsApp(() => parsePokupki(line), "FILE_PARSE_ERROR");
  assert.equal(
    e.message,
    'Cannot parse "POKUPKI.TXT" line 1: is 150 characters wide; expected 274 or 272',
  );
  assert.deepStrictEqual(e.details, { file: "POKUPKI.TXT", line: 1, field: null, position: null });
});

Deno.test("parsePokupki() refuses a line cut inside blanks, naming the width and the field", () => {
  // 270 wide and ending in spaces: not an editor's trim (that removes them), but a cut line.
  const line = writePokupki([purchase(1)]).slice(0, 270);
  const e = throwsApp(() => parsePokupki(line), "FILE_PARSE_ERROR");
  assert.equal(
    e.message,
    'Cannot parse "POKUPKI.TXT" line 1: is 270 characters wide; expected 274 or 272. It ends 13 ' +
      "characters into field 03-44 (base as intermediary in a triangular operation) at position " +
      '258 (found "             "): cut off, not trimmed, so the value cannot be known',
  );
  assert.deepStrictEqual(e.details, {
    file: "POKUPKI.TXT",
    line: 1,
    field: "03-44",
    position: 258,
  });
});

Deno.test("parsePokupki() accepts trailing spaces after the record and trims every field", () => {
  const line = writePokupki([purchase(1)]).replace("\r\n", "      \r\n");
  assert.deepStrictEqual(parsePokupki(line), [purchase(1)]);
});

Deno.test("parsePokupki() reads left-aligned running numbers (TEMPO style)", () => {
  const line = writePokupki([purchase(7)]);
  const left = line.slice(0, 25) + "7".padEnd(15) + line.slice(40);
  assert.equal(nth(parsePokupki(left)).runningNumber, 7);
});

Deno.test("parsePokupki() skips a blank line in the middle with a warning, at the end silently", () => {
  const two = writePokupki([purchase(1), purchase(2)]);
  const quiet: FileWarning[] = [];
  assert.equal(parsePokupki(two + "\r\n\r\n\x1a", "POKUPKI.TXT", { warnings: quiet }).length, 2);
  assert.deepStrictEqual(quiet, []);
  const warnings: FileWarning[] = [];
  const gap = two.replace("\r\n", "\r\n\r\n");
  assert.deepStrictEqual(parsePokupki(gap, "POKUPKI.TXT", { warnings }), [
    purchase(1),
    purchase(2),
  ]);
  assert.deepStrictEqual(warnings.map((w) => [w.code, w.line]), [["BLANK_LINES_SKIPPED", 2]]);
  // Line numbers in errors stay those an editor shows: the bad record is on line 3.
  const bad = gap.split("\r\n");
  bad[2] = nth(bad, 2).slice(0, 62) + "31/02/2026" + nth(bad, 2).slice(72);
  assert.equal(
    throwsApp(() => parsePokupki(bad.join("\r\n")), "FILE_PARSE_ERROR").details?.line,
    3,
  );
});

Deno.test("writePokupki() writes 272-wide lines only when 03-45 is empty", () => {
  assert.equal(writePokupki([purchase(1)], { lineWidth: 272 }).length, 274); // 272 + CRLF
  throwsApp(
    () => writePokupki([purchase(1, { specialCode: "07" })], { lineWidth: 272 }),
    "FILE_PARSE_ERROR",
  );
  throwsApp(() => writePokupki([purchase(1)], { lineWidth: 273 }), "FILE_PARSE_ERROR");
});
