/**
 * Reading NRA files as other programs and editors write them (docs/formats.md § What is tolerated),
 * on the fixtures of scripts/format_fixtures_reading.ts. Each test failed on the code before the
 * fix.
 */
import assert from "node:assert/strict";
import {
  decodeNraBytes,
  detectFileKind,
  type FileWarning,
  parseD1,
  parseD6,
  parseNraFile,
  parsePokupki,
  parseVatFolderFiles,
  parseVies,
  requireWindows1251,
} from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import { fixtureBytes, throwsApp } from "./_helpers.ts";
import { nth } from "../_helpers/nth.ts";

/** The fixtures used here, read once (throwsApp takes a synchronous call). */
const F = Object.fromEntries(
  await Promise.all(
    [
      "d1/EMPL2021_UTF8.TXT",
      "d1/EMPL2021_BAD_MIXED.TXT",
      "d1/EMPL2021_BAD_JOINED.TXT",
      "d1/EMPL2021_BLANK_LINE.TXT",
      "d6/NRA62007_UTF16.TXT",
      "d6/NRA62007_BAD_17FIELDS.TXT",
      "pokupki/POKUPKI_BOM.TXT",
      "pokupki/POKUPKI_BAD_301.TXT",
      "pokupki/POKUPKI_BAD_CUT.TXT",
      "prodagbi/PRODAGBI_UTF8_BOM.TXT",
    ].map(async (rel) => [rel, await fixtureBytes(rel)] as const),
  ),
);

Deno.test("detectFileKind() takes a VIES.TXT padded to 373 for VIES, not a purchase ledger", async () => {
  const padded = await fixtureBytes("vies/VIES_PADDED_373.TXT");
  assert.equal(detectFileKind(padded), "vies");
  assert.equal(detectFileKind(padded, "VIES.TXT"), "vies");
  const parsed = parseNraFile(padded, "VIES.TXT");
  assert.equal(parsed.kind, "vies");
  assert.deepStrictEqual(parsed.records, parseVies(await fixtureBytes("vies/VIES.TXT")));
  // The VAT folder reader too: VIES.TXT is ok, with no "looks like a purchase ledger" error.
  const r = parseVatFolderFiles({ vies: padded });
  assert.equal(r.vies.status, "ok", r.vies.error?.message);
});

Deno.test("detectFileKind() lets the name outweigh width heuristics, not an exact fit", async () => {
  // 301 wide: fits a DEKLAR line only by a heuristic (a 590 record trimmed); the name wins.
  const wide = await fixtureBytes("pokupki/POKUPKI_BAD_301.TXT");
  assert.equal(detectFileKind(wide, "POKUPKI.TXT"), "pokupki");
  // A VHR record padded to exactly 274 is VIES by its marker, and POKUPKI only by its width.
  const vhr = encodeCp1251("VHR08/2026    1".padEnd(274) + "\r\n");
  assert.equal(detectFileKind(vhr), "vies");
  assert.equal(detectFileKind(vhr, "VIES.TXT"), "vies");
  // An exact fit wins over the name: a purchase ledger saved as DEKLAR.TXT is a ledger.
  assert.equal(detectFileKind(await fixtureBytes("pokupki/POKUPKI.TXT"), "DEKLAR.TXT"), "pokupki");
});

Deno.test("parseD1() reads a UTF-8 EMPL2021.TXT with its surnames, not РР’РђРќРћР’, and warns", async () => {
  const warnings: FileWarning[] = [];
  const records = parseD1(await fixtureBytes("d1/EMPL2021_UTF8.TXT"), "EMPL2021.TXT", { warnings });
  assert.deepStrictEqual(records.map((r) => r.surname), ["ПЕТРОВ", "ИВАНОВА", "ДИМИТРОВ-ЧЕРНЕВ"]);
  assert.deepStrictEqual(warnings.map((w) => w.code), ["ENCODING_UTF8"]);
  assert.match(nth(warnings).message, /^"EMPL2021\.TXT" is saved as UTF-8, not Windows-1251/);
  assert.match(nth(warnings).messageBg, /EMPL2021\.TXT.*UTF-8/);
});

Deno.test("parseVatFolderFiles() reads UTF-8 and UTF-16 files and carries the encoding warnings", async () => {
  const r = parseVatFolderFiles({
    deklar: await fixtureBytes("deklar/DEKLAR.TXT"),
    pokupki: await fixtureBytes("pokupki/POKUPKI_UTF8.TXT"),
    prodagbi: await fixtureBytes("prodagbi/PRODAGBI_UTF8_BOM.TXT"),
  });
  assert.deepStrictEqual([r.pokupki.status, r.prodagbi.status], ["ok", "ok"]);
  assert.deepStrictEqual(r.readWarnings.map((w) => [w.code, w.file]), [
    ["ENCODING_UTF8", "POKUPKI.TXT"],
    ["ENCODING_UTF8", "PRODAGBI.TXT"],
  ]);
  assert.match(nth(r.readWarnings, 1).message, /UTF-8 with a byte-order mark/);
  const d6: FileWarning[] = [];
  parseD6(await fixtureBytes("d6/NRA62007_UTF16.TXT"), "NRA62007.TXT", { warnings: d6 });
  assert.deepStrictEqual(d6.map((w) => w.code), ["ENCODING_UTF16"]);
});

Deno.test("parsePokupki() reports an error behind a byte-order mark at the same line and position", async () => {
  const withBom = await fixtureBytes("pokupki/POKUPKI_BAD_BOM_DATE.TXT");
  const a = throwsApp(() => parsePokupki(withBom), "FILE_PARSE_ERROR");
  const b = throwsApp(() => parsePokupki(withBom.subarray(3)), "FILE_PARSE_ERROR");
  assert.deepStrictEqual(a.details, b.details);
  assert.deepStrictEqual(a.details, {
    file: "POKUPKI.TXT",
    line: 1,
    field: "03-07",
    position: 63,
  });
});

Deno.test("requireWindows1251() refuses UTF-8, UTF-16 and byte-order marks, naming file and encoding", async () => {
  const cases: Array<[string, string]> = [
    ["d1/EMPL2021_UTF8.TXT", "UTF-8"],
    ["prodagbi/PRODAGBI_UTF8_BOM.TXT", "UTF-8 with a byte-order mark"],
    ["d6/NRA62007_UTF16.TXT", "UTF-16LE with a byte-order mark"],
    ["pokupki/POKUPKI_BOM.TXT", "Windows-1251 behind a UTF-8 byte-order mark"],
  ];
  for (const [rel, encoding] of cases) {
    const e = throwsApp(
      () => requireWindows1251(F[rel]!, `C:\\VAT\\${rel}`),
      "FILE_ENCODING_UNSUPPORTED",
    );
    assert.deepStrictEqual(e.details, { file: `C:\\VAT\\${rel}`, encoding });
    assert.ok(e.message.includes(`"C:\\VAT\\${rel}"`) && e.message.includes(encoding), e.message);
    assert.ok(e.message.includes("Windows-1251") && e.message.includes("ANSI"), e.message);
  }
  requireWindows1251(await fixtureBytes("d1/EMPL2021.TXT"), "EMPL2021.TXT"); // Windows-1251
  requireWindows1251(new TextEncoder().encode("VHR08/2026    0\r\n"), "VIES.TXT"); // ASCII
});

Deno.test("decodeNraBytes() refuses a file mixing UTF-8 and Windows-1251 instead of garbling names", () => {
  const e = throwsApp(
    () => decodeNraBytes(F["d1/EMPL2021_BAD_MIXED.TXT"]!, "EMPL2021.TXT"),
    "FILE_ENCODING_UNSUPPORTED",
  );
  assert.deepStrictEqual(e.details, { file: "EMPL2021.TXT", line: 1, encoding: "mixed" });
});

Deno.test("parseNraFile() shows the error of the reader the name points to when content fits nothing", () => {
  const seventeen = F["d6/NRA62007_BAD_17FIELDS.TXT"]!;
  const wide = throwsApp(
    () => parseNraFile(F["pokupki/POKUPKI_BAD_301.TXT"]!, "POKUPKI.TXT"),
    "FILE_PARSE_ERROR",
  );
  assert.equal(
    wide.message,
    'Cannot parse "POKUPKI.TXT" line 1: is 301 characters wide; expected 274 or 272',
  );
  const d6 = throwsApp(() => parseNraFile(seventeen, "NRA62007_203456783.TXT"), "FILE_PARSE_ERROR");
  assert.equal(
    d6.message,
    'Cannot parse "NRA62007_203456783.TXT" line 1: has 17 fields; expected 59',
  );
  // Without a name that says a format, it stays FILE_KIND_UNKNOWN.
  throwsApp(() => parseNraFile(seventeen, "notes.txt"), "FILE_KIND_UNKNOWN");
});

Deno.test("parsePokupki() pads lines an editor trimmed to 261 and says so; refuses a cut line", async () => {
  const warnings: FileWarning[] = [];
  const records = parsePokupki(await fixtureBytes("pokupki/POKUPKI_TRIMMED_261.TXT"), "P.TXT", {
    warnings,
  });
  assert.equal(records.length, 5);
  assert.deepStrictEqual(records.map((r) => r.baseTriangular), [0, 0, 0, 0, 0]);
  assert.equal(
    nth(warnings).message,
    '"P.TXT" line 1 is 261 characters wide (and 4 more short lines); expected 274: read as if ' +
      "the trailing spaces had been trimmed (padded to 274). Save the file from its program " +
      "again before filing",
  );
  const cut = throwsApp(
    () => parsePokupki(F["pokupki/POKUPKI_BAD_CUT.TXT"]!, "P.TXT"),
    "FILE_PARSE_ERROR",
  );
  assert.deepStrictEqual(cut.details, { file: "P.TXT", line: 2, field: "03-41", position: 198 });
});

Deno.test("parseD1() names a Ctrl-Z left in the middle by copy /b, and skips blank lines with a warning", () => {
  const blankBytes = F["d1/EMPL2021_BLANK_LINE.TXT"]!;
  const e = throwsApp(
    () => parseD1(F["d1/EMPL2021_BAD_JOINED.TXT"]!, "EMPL2021.TXT"),
    "FILE_PARSE_ERROR",
  );
  assert.match(e.message, /^Cannot parse "EMPL2021\.TXT" line 2: character 0x1A \(Ctrl-Z/);
  assert.match(e.message, /copy \/b/);
  const warnings: FileWarning[] = [];
  const records = parseD1(blankBytes, "EMPL2021.TXT", { warnings });
  assert.equal(records.length, 3);
  assert.deepStrictEqual(warnings.map((w) => [w.code, w.line]), [["BLANK_LINES_SKIPPED", 2]]);
  // A field error shows an invisible byte instead of hiding it.
  const hidden = throwsApp(
    () => parseD1(new TextDecoder("windows-1251").decode(blankBytes).replace(/^8,/, "8\x01,")),
    "FILE_PARSE_ERROR",
  );
  assert.match(
    hidden.message,
    /field 1 \(month\) at position 1 is not a whole number \(found "8⟨U\+0001⟩"\)/,
  );
});
