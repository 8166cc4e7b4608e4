import assert from "node:assert/strict";
import {
  checkVatSet,
  parseDeklar,
  parsePokupki,
  parseProdagbi,
  parseVatFolderFiles,
  parseVies,
  VAT_WARNING_CODES,
  type VatWarning,
  type VatWarningCode,
  type ViesRecord,
  writePokupki,
} from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import { fixtureBytes } from "./_helpers.ts";
import { nth } from "../_helpers/nth.ts";

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
  nth(s.pokupki, 2).vatNumber = "BG175074752";
  const ws = checkVatSet(s);
  assert.deepStrictEqual(codes(ws), ["VAT_NUMBER_MISMATCH"]);
  assert.equal(nth(ws).file, "POKUPKI.TXT");
  assert.equal(nth(ws).line, 3);
  assert.match(nth(ws).message, /DEKLAR.TXT/);
});

Deno.test("checkVatSet() folds a rule broken on many lines into one warning", () => {
  const s = set();
  for (const r of s.prodagbi) r.period = "202607";
  const ws = checkVatSet(s);
  assert.deepStrictEqual(codes(ws), ["PERIOD_MISMATCH"]);
  assert.match(nth(ws).message, /\(and 5 more lines\)$/);
});

Deno.test("checkVatSet() warns on DEKLAR 00-05/00-06 vs ledger line counts", () => {
  const s = set();
  s.deklar.purchaseDocumentCount = 4;
  const ws = checkVatSet(s);
  assert.deepStrictEqual(codes(ws), ["DOCUMENT_COUNT_MISMATCH"]);
  assert.match(nth(ws).message, /00-06 declares 4 documents but POKUPKI.TXT has 5 lines/);
});

Deno.test("checkVatSet() warns on running numbers that do not run from 1 without gaps", () => {
  const s = set();
  nth(s.pokupki, 3).runningNumber = 7;
  assert.deepStrictEqual(codes(checkVatSet(s)), ["RUNNING_NUMBER_GAP"]);
});

Deno.test("checkVatSet() warns when DEKLAR totals differ from the ledger sums", () => {
  const s = set();
  s.deklar.totalTaxableBase = 1210;
  s.deklar.vatFullCredit = 0;
  const ws = checkVatSet(s);
  assert.deepStrictEqual(codes(ws), ["TOTAL_MISMATCH", "TOTAL_MISMATCH"]);
  assert.match(nth(ws).message, /DEKLAR 01-01 is 1210.00 but the sum of PRODAGBI 02-10 is 6635.11/);
  assert.match(nth(ws, 1).message, /01-41/);
});

Deno.test("checkVatSet() warns when a PRODAGBI line total is not the sum of its parts", () => {
  const s = set();
  nth(s.prodagbi).vat20 = 401;
  const ws = checkVatSet(s);
  assert.ok(codes(ws).includes("LINE_TOTAL_MISMATCH"));
  assert.ok(codes(ws).includes("TOTAL_MISMATCH")); // 01-21 vs Σ 02-21 too
});

Deno.test("checkVatSet() checks the VIES counts, totals, filer and period", () => {
  const s = set();
  const [vhr, , vtr, ttr] = s.vies;
  if (vhr?.recordType !== "VHR" || vtr?.recordType !== "VTR" || ttr?.recordType !== "TTR") {
    throw new Error("fixture order changed");
  }
  vhr.lineCount = 5;
  vhr.period = "202607";
  vtr.vatNumber = "BG175074752";
  ttr.goodsBase = 1;
  // With VHR in 202607, the VIR line for 202607 (a correction) counts as the period's own, so
  // DEKLAR and PRODAGBI no longer match VIES either.
  assert.deepStrictEqual(codes(checkVatSet(s)).sort(), [
    "PERIOD_MISMATCH",
    "VAT_NUMBER_MISMATCH",
    "VIES_DEKLAR_MISMATCH",
    "VIES_LEDGER_MISMATCH",
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
  assert.equal(VAT_WARNING_CODES.length, 12);
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

// --- docs/formats.md § VAT cross-checks: DEKLAR ↔ VIES (and PRODAGBI ↔ VIES) ----------------

const viesNoVir = await fixtureBytes("vies/VIES_NO_VIR.TXT");

Deno.test("checkVatSet() warns when DEKLAR declares intra-EU supplies and VIES has no VIR line (VIES_NO_VIR.TXT)", () => {
  // What a small VAT tool writes: DEKLAR 01-15 = 3100.55 and 01-17 = 750.00, VIES with a zero
  // TTR and no VIR line. Its own counts and totals agree, so it used to pass silently.
  const ws = checkVatSet({ ...set(), vies: parseVies(viesNoVir, "VIES.TXT") });
  assert.deepStrictEqual(codes(ws), [
    "VIES_DEKLAR_MISMATCH",
    "VIES_DEKLAR_MISMATCH",
    "VIES_LEDGER_MISMATCH",
  ]);
  assert.equal(
    nth(ws).message,
    "DEKLAR 01-15 (intra-EU supplies of goods) is 3100.55 but VIES.TXT has no VIR line for the period",
  );
  assert.equal(
    nth(ws).messageBg,
    "DEKLAR 01-15 (ВОД на стоки) е 3100.55, а VIES.TXT няма нито един ред VIR за периода",
  );
  assert.match(nth(ws, 1).message, /^DEKLAR 01-17 \(services under art\. 21\(2\)\) is 750\.00 but/);
  assert.equal(nth(ws, 2).file, "PRODAGBI.TXT");
  assert.equal(nth(ws, 2).line, 4);
  assert.equal(
    nth(ws, 2).message,
    "PRODAGBI line 4: intra-EU supplies to DE811907980 (goods 3100.55, triangular 0.00, " +
      "services 0.00) have no VIR line in VIES.TXT (and 1 more line)",
  );
  assert.match(nth(ws, 2).messageBg, /^PRODAGBI ред 4: .* \(и още 1 ред\)$/);
});

Deno.test("parseVatFolderFiles() warns VIES_MISSING when DEKLAR has intra-EU supplies and there is no VIES.TXT", () => {
  const r = parseVatFolderFiles({
    deklar: files.deklar,
    pokupki: files.pokupki,
    prodagbi: files.prodagbi,
  });
  assert.deepStrictEqual(codes(r.warnings), ["VIES_MISSING"]);
  assert.equal(nth(r.warnings).file, "DEKLAR.TXT");
  assert.match(nth(r.warnings).message, /01-15 goods 3100\.55, 01-17 services 750\.00/);
  assert.match(nth(r.warnings).message, /VIES\.TXT is missing or could not be parsed/);
  // Without DEKLAR, the sales ledger's intra-EU supplies tell the same.
  const ws = checkVatSet({ prodagbi: parseProdagbi(files.prodagbi), vies: null });
  assert.deepStrictEqual(codes(ws), ["VIES_MISSING"]);
  assert.equal(nth(ws).line, 4);
  // A set with neither: no VIES is needed.
  const d = parseDeklar(files.deklar);
  assert.deepStrictEqual(
    checkVatSet({
      deklar: { ...d, baseZeroIntraEuSupplies: null, baseServicesArt21: 0 },
      vies: null,
    }),
    [],
  );
});

Deno.test("checkVatSet() compares each customer's VIR line with its PRODAGBI supplies (goods, triangular, services)", () => {
  const s = set();
  const vir = s.vies.find((r) => r.recordType === "VIR" && r.counterpartyVat === "DE811907980");
  if (vir?.recordType !== "VIR") throw new Error("fixture changed");
  vir.goodsBase = 3000;
  nth(s.prodagbi, 4).baseTriangular = 50; // AT customer: triangular in the ledger, none in VIES
  const ttr = s.vies.find((r) => r.recordType === "TTR");
  if (ttr?.recordType !== "TTR") throw new Error("fixture changed");
  ttr.goodsBase = 3000;
  ttr.totalBase = 3000 + 750 - 120.4;
  const ws = checkVatSet(s);
  assert.deepStrictEqual(codes(ws), ["VIES_DEKLAR_MISMATCH", "VIES_LEDGER_MISMATCH"]);
  assert.match(
    nth(ws).message,
    /01-15 .* is 3100\.55 but the goods bases of the 2 VIR lines of the period in VIES\.TXT add up to 3000\.00$/,
  );
  assert.equal(nth(ws, 1).line, 5);
  assert.match(
    nth(ws, 1).message,
    /^VIES line 5: the VIR line for DE811907980 declares goods 3000\.00, triangular 0\.00, services 0\.00 but PRODAGBI\.TXT has goods 3100\.55, .* \(and 1 more line\)$/,
  );
});

Deno.test("checkVatSet() names a VIR line for a customer without intra-EU supplies in PRODAGBI", () => {
  const s = set();
  const vies = [...s.vies];
  const at = vies.findIndex((r) => r.recordType === "VIR" && r.lineNumber === 2);
  vies[at] = { ...vies[at], counterpartyVat: "IT00743110157" } as typeof vies[number];
  const ws = checkVatSet({ ...s, vies });
  assert.deepStrictEqual(codes(ws), ["VIES_LEDGER_MISMATCH", "VIES_LEDGER_MISMATCH"]);
  assert.match(nth(ws).message, /^PRODAGBI line 5: intra-EU supplies to ATU12345675 /);
  assert.match(
    nth(ws, 1).message,
    /^VIES line 6: the VIR line for IT00743110157 .* has no intra-EU supply/,
  );
});

Deno.test("checkVatSet() writes every warning code in Bulgarian too", () => {
  const ws: VatWarning[] = [];
  const run = (mutate: (s: ReturnType<typeof set>) => void, vies?: ViesRecord[] | null) => {
    const s = set();
    mutate(s);
    ws.push(...checkVatSet(vies === undefined ? s : { ...s, vies }));
  };
  run((s) => (nth(s.pokupki, 2).vatNumber = "BG175074752"));
  run((s) => s.prodagbi.forEach((r) => (r.period = "202607")));
  run((s) => (s.deklar.purchaseDocumentCount = 4));
  run((s) => (nth(s.pokupki, 3).runningNumber = 7));
  run((s) => (nth(s.prodagbi).vat20 = 401));
  run(() => {}, set().vies.slice(2));
  run((s) => {
    for (const r of s.vies) {
      if (r.recordType === "VHR") r.lineCount = 5;
      if (r.recordType === "TTR") r.goodsBase = 1;
    }
  });
  run(() => {}, parseVies(viesNoVir));
  run(() => {}, null);
  assert.deepStrictEqual([...new Set(codes(ws))].sort(), [...VAT_WARNING_CODES].sort());
  for (const w of ws) {
    assert.match(w.messageBg, /[А-Яа-я]{3}/, `${w.code}: ${w.messageBg}`);
    assert.notEqual(w.messageBg, w.message);
  }
});
