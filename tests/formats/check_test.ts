import assert from "node:assert/strict";
import {
  checkVatSet,
  parseDeklar,
  parsePokupki,
  parseProdagbi,
  parseVatFolderFiles,
  parseVies,
  VAT_WARNING_CODES,
  type VatWarningCode,
  writePokupki,
} from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import { fixtureBytes } from "./_helpers.ts";

const files = {
  deklar: await fixtureBytes("deklar/DEKLAR.TXT"),
  pokupki: await fixtureBytes("pokupki/POKUPKI.TXT"),
  prodagbi: await fixtureBytes("prodagbi/PRODAGBI.TXT"),
  vies: await fixtureBytes("vies/VIES.TXT"),
};
const set = () => ({
  deklar: parseDeklar(files.deklar),
  pokupki: parsePokupki(files.pokupki),
  prodagbi: parseProdagbi(files.prodagbi),
  vies: parseVies(files.vies),
});
const codes = (ws: { code: VatWarningCode }[]) => ws.map((w) => w.code);

Deno.test("checkVatSet() finds nothing wrong in the consistent fixture set", () => {
  assert.deepStrictEqual(checkVatSet(set()), []);
});

Deno.test("checkVatSet() warns when a ledger line has another filer VAT number", () => {
  const s = set();
  s.pokupki[2].vatNumber = "BG175074752";
  const ws = checkVatSet(s);
  assert.deepStrictEqual(codes(ws), ["VAT_NUMBER_MISMATCH"]);
  assert.equal(ws[0].file, "POKUPKI.TXT");
  assert.equal(ws[0].line, 3);
  assert.match(ws[0].message, /DEKLAR.TXT/);
});

Deno.test("checkVatSet() folds a rule broken on many lines into one warning", () => {
  const s = set();
  for (const r of s.prodagbi) r.period = "202607";
  const ws = checkVatSet(s);
  assert.deepStrictEqual(codes(ws), ["PERIOD_MISMATCH"]);
  assert.match(ws[0].message, /\(and 5 more lines\)$/);
});

Deno.test("checkVatSet() warns on DEKLAR 00-05/00-06 vs ledger line counts", () => {
  const s = set();
  s.deklar.purchaseDocumentCount = 4;
  const ws = checkVatSet(s);
  assert.deepStrictEqual(codes(ws), ["DOCUMENT_COUNT_MISMATCH"]);
  assert.match(ws[0].message, /00-06 declares 4 documents but POKUPKI.TXT has 5 lines/);
});

Deno.test("checkVatSet() warns on running numbers that do not run from 1 without gaps", () => {
  const s = set();
  s.pokupki[3].runningNumber = 7;
  assert.deepStrictEqual(codes(checkVatSet(s)), ["RUNNING_NUMBER_GAP"]);
});

Deno.test("checkVatSet() warns when DEKLAR totals differ from the ledger sums", () => {
  const s = set();
  s.deklar.totalTaxableBase = 1210;
  s.deklar.vatFullCredit = 0;
  const ws = checkVatSet(s);
  assert.deepStrictEqual(codes(ws), ["TOTAL_MISMATCH", "TOTAL_MISMATCH"]);
  assert.match(ws[0].message, /DEKLAR 01-01 is 1210.00 but the sum of PRODAGBI 02-10 is 6635.11/);
  assert.match(ws[1].message, /01-41/);
});

Deno.test("checkVatSet() warns when a PRODAGBI line total is not the sum of its parts", () => {
  const s = set();
  s.prodagbi[0].vat20 = 401;
  const ws = checkVatSet(s);
  assert.ok(codes(ws).includes("LINE_TOTAL_MISMATCH"));
  assert.ok(codes(ws).includes("TOTAL_MISMATCH")); // 01-21 vs Σ 02-21 too
});

Deno.test("checkVatSet() checks the VIES counts, totals, filer and period", () => {
  const s = set();
  const [vhr, , vtr, ttr] = s.vies;
  if (vhr.recordType !== "VHR" || vtr.recordType !== "VTR" || ttr.recordType !== "TTR") {
    throw new Error("fixture order changed");
  }
  vhr.lineCount = 5;
  vhr.period = "202607";
  vtr.vatNumber = "BG175074752";
  ttr.goodsBase = 1;
  assert.deepStrictEqual(codes(checkVatSet(s)).sort(), [
    "PERIOD_MISMATCH",
    "VAT_NUMBER_MISMATCH",
    "VIES_LINE_COUNT_MISMATCH",
    "VIES_TOTAL_MISMATCH",
  ]);
  assert.deepStrictEqual(codes(checkVatSet({ vies: set().vies.slice(2) })), [
    "VIES_STRUCTURE",
    "VIES_STRUCTURE",
  ]);
});

Deno.test("VAT_WARNING_CODES lists every code the checks emit", () => {
  assert.equal(new Set(VAT_WARNING_CODES).size, VAT_WARNING_CODES.length);
  assert.equal(VAT_WARNING_CODES.length, 9);
});

Deno.test("parseVatFolderFiles() parses a complete set with ok statuses and counts", () => {
  const r = parseVatFolderFiles(files);
  assert.deepStrictEqual(
    [r.deklar, r.pokupki, r.prodagbi, r.vies].map((o) => [o.file, o.status, o.count]),
    [["DEKLAR.TXT", "ok", 1], ["POKUPKI.TXT", "ok", 5], ["PRODAGBI.TXT", "ok", 6], [
      "VIES.TXT",
      "ok",
      9,
    ]],
  );
  assert.equal(r.errorMessage, null);
  assert.deepStrictEqual(r.warnings, []);
});

Deno.test("parseVatFolderFiles() reports one bad and one missing file without throwing", () => {
  const text = new TextDecoder("windows-1251").decode(files.pokupki);
  const broken = encodeCp1251(text.replace("03/08/2026", "33/08/2026"));
  const r = parseVatFolderFiles({ deklar: files.deklar, pokupki: broken, prodagbi: null });
  assert.equal(r.deklar.status, "ok");
  assert.equal(r.pokupki.status, "error");
  assert.equal(r.pokupki.error?.code, "FILE_PARSE_ERROR");
  assert.equal(r.prodagbi.status, "missing");
  assert.equal(r.prodagbi.count, null);
  assert.equal(r.vies.status, "missing");
  assert.equal(r.errors.length, 1);
  assert.match(
    r.errorMessage!,
    /^Cannot parse "POKUPKI.TXT" line 1: field 03-07 \(document date\)/,
  );
});

Deno.test("parseVatFolderFiles() joins several errors with ' ; ' and names swapped files", () => {
  const r = parseVatFolderFiles({ deklar: encodeCp1251("garbage\r\n"), pokupki: files.prodagbi });
  assert.equal(r.errors.length, 2);
  assert.match(r.errorMessage!, / ; /);
  assert.match(
    r.pokupki.error!.message,
    /looks like a sales ledger \(PRODAGBI\), not a purchase ledger/,
  );
});

Deno.test("parseVatFolderFiles() still cross-checks the files that parsed", () => {
  const pok = parsePokupki(files.pokupki).slice(0, 4);
  const r = parseVatFolderFiles({ deklar: files.deklar, pokupki: encodeCp1251(writePokupki(pok)) });
  assert.ok(codes(r.warnings).includes("DOCUMENT_COUNT_MISMATCH"));
});
