import assert from "node:assert/strict";
import fc from "fast-check";
import {
  Dec16PortalFilesResult,
  VatMonthlyFilesResult,
  VatPortalFilesResult,
} from "../../src/contract/reports.ts";
import {
  checkVatSet,
  decodeCp1251,
  parseD1,
  parseD6,
  parseDeklar,
  parsePokupki,
  parseProdagbi,
  parseVies,
} from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import {
  companyProfile,
  debtPayments,
  dec16PortalFiles,
  periodFilings,
  vatMonthlyFiles,
  vatPortalFiles,
  verifyDocumentId,
} from "../../src/mock/mod.ts";
import { NRA_FILE_KIT } from "../../src/portal/test/nra_files.ts";
import { c, eikArb, FC_PARAMS, NOW } from "./_support.ts";
import { nth } from "../_helpers/nth.ts";

const periodArb = fc.record({
  eik: eikArb,
  year: fc.integer({ min: 2020, max: 2025 }),
  month: fc.integer({ min: 1, max: 12 }),
});
const KIT = NRA_FILE_KIT;

function fileOf(r: { files: readonly { name: string; content: string }[] }, name: string) {
  return r.files.find((f) => f.name === name)?.content;
}

Deno.test("vatPortalFiles() returns valid NRA files that the format module reads back", () => {
  fc.assert(
    fc.property(periodArb, (req) => {
      const r = vatPortalFiles(req, NOW, KIT);
      VatPortalFilesResult.parse(r);
      if (!companyProfile(req.eik).vatRegistered) {
        assert.equal(r.status, "error");
        return;
      }
      assert.equal(r.status, "ok");
      const deklar = parseDeklar(fileOf(r, "DEKLAR.TXT")!);
      const pokupki = parsePokupki(fileOf(r, "POKUPKI.TXT")!);
      const prodagbi = parseProdagbi(fileOf(r, "PRODAGBI.TXT")!);
      const viesText = fileOf(r, "VIES.TXT");
      const vies = viesText === undefined ? null : parseVies(viesText);
      assert.deepEqual(checkVatSet({ deklar, pokupki, prodagbi, vies }), []);
      assert.equal(deklar.vatNumber, `BG${req.eik}`);
      assert.equal(deklar.period, `${req.year}${String(req.month).padStart(2, "0")}`);
      assert.equal(r.period, deklar.period);
      assert.equal(vies !== null, companyProfile(req.eik).euTrader);
      assert.deepEqual(r.files.map((f) => f.type), [
        "declaration",
        "purchases",
        "sales",
        ...(vies ? ["vies"] : []),
      ]);
      for (const f of r.files) {
        assert.equal(decodeCp1251(encodeCp1251(f.content)), f.content);
        assert.equal(f.docId, r.docId);
      }
      assert.ok(verifyDocumentId("vat", req.eik, r.docId!), "docId is accepted by vat_result");
      assert.match(r.incomeNumber!, /^22E[0-9]{9}$/);
      assert.ok(r.submittedAt! > `${req.year}-${String(req.month).padStart(2, "0")}-28`);
      assert.ok(new Date(r.submittedAt!) <= NOW);
    }),
    { ...FC_PARAMS, numRuns: 100 },
  );
});

Deno.test("dec16PortalFiles() returns D1 and D6 files that the format module reads back", () => {
  fc.assert(
    fc.property(periodArb, (req) => {
      const r = dec16PortalFiles(req, NOW, KIT);
      Dec16PortalFilesResult.parse(r);
      const staff = companyProfile(req.eik).employees;
      if (staff === 0) {
        assert.equal(r.status, "error");
        return;
      }
      assert.equal(r.status, "ok");
      assert.deepEqual(r.files.map((f) => [f.name, f.type]), [["EMPL2021.TXT", "dec1"], [
        "NRA62007.TXT",
        "dec6",
      ]]);
      const d1 = parseD1(nth(r.files).content);
      const d6 = nth(parseD6(nth(r.files, 1).content));
      assert.equal(d1.length, staff);
      assert.ok(
        d1.every((l) => l.employerEik === req.eik && l.month === req.month && l.year === req.year),
      );
      assert.deepEqual([d6.eik, d6.block1Month, d6.block1Year], [req.eik, req.month, req.year]);
      assert.equal(c(d6.block1IncomeTax1!), d1.reduce((s, l) => s + c(l.monthlyTax), 0));
      for (const l of d1) assert.equal(c(l.netSalary), c(l.taxableIncome) - c(l.monthlyTax));
      assert.ok(verifyDocumentId("dec1_6", req.eik, r.submissionId!));
      assert.notEqual(nth(r.files).docFileId, nth(r.files, 1).docFileId);
      assert.ok(nth(r.files, 1).content.endsWith("\x1a"));
    }),
    { ...FC_PARAMS, numRuns: 100 },
  );
});

Deno.test("portal files agree with the debts report (VAT payable, D6 amounts)", () => {
  for (const eik of ["246824682", "100000001", "123456786"]) {
    const debts = debtPayments({ eik, year: 2025 }, NOW).items;
    const vat = vatPortalFiles({ eik, year: 2025, month: 5 }, NOW, KIT);
    const deklar = parseDeklar(fileOf(vat, "DEKLAR.TXT")!);
    const vatDebt = debts.find((i) =>
      i.debtPeriod === "05.2025" && i.documentType?.includes("ЗДДС")
    );
    if (deklar.vatPayable! > 0) {
      assert.equal(vatDebt?.dueAmount, deklar.vatPayable);
      assert.equal(vatDebt?.documentNumber, vat.incomeNumber);
      assert.equal(vatDebt?.documentDate, vat.submittedAt!.slice(0, 10));
    } else assert.equal(vatDebt, undefined);
    const d16 = dec16PortalFiles({ eik, year: 2025, month: 5 }, NOW, KIT);
    const d6 = nth(parseD6(nth(d16.files, 1).content));
    const zo = debts.find((i) => i.debtPeriod === "05.2025" && i.debtTypeName.includes("(ЗО)"));
    assert.equal(zo?.dueAmount, d6.block1HealthInsurance);
    assert.equal(zo?.documentNumber, d16.incomeNumber);
  }
});

Deno.test("portal files answer status error for a period not yet filed or a future period", () => {
  const eik = "246824682";
  for (const [year, month] of [[2026, 3], [2026, 9], [2031, 1], [2019, 12]] as const) {
    for (
      const r of [
        vatPortalFiles({ eik, year, month }, NOW, KIT),
        dec16PortalFiles({ eik, year, month }, NOW, KIT),
      ]
    ) {
      assert.equal(r.status, "error");
      assert.deepEqual(r.files, []);
      assert.match(r.error!, /Declaration not found/);
    }
  }
  const filedOn = nth(periodFilings(eik, "vat", 2026, 2)).submittedAt;
  const before = new Date(filedOn.getTime() - 1000);
  assert.equal(vatPortalFiles({ eik, year: 2026, month: 2 }, before, KIT).status, "error");
  assert.equal(vatPortalFiles({ eik, year: 2026, month: 2 }, filedOn, KIT).status, "ok");
});

Deno.test("vatMonthlyFiles() lists the period's submissions with parsed files as JSON strings", () => {
  fc.assert(
    fc.property(periodArb, (req) => {
      const r = vatMonthlyFiles(req, NOW, KIT);
      VatMonthlyFilesResult.parse(r);
      assert.equal(r.status, "ok");
      const filings = periodFilings(req.eik, "vat", req.year, req.month);
      assert.deepEqual(r.items.map((i) => i.docId), filings.map((f) => f.documentId));
      if (r.items.length === 0) return;
      const files = vatPortalFiles(req, NOW, KIT);
      const item = r.items.at(-1)!;
      assert.deepEqual(JSON.parse(item.declaration!), parseDeklar(fileOf(files, "DEKLAR.TXT")!));
      assert.deepEqual(JSON.parse(item.sales!), parseProdagbi(fileOf(files, "PRODAGBI.TXT")!));
      assert.deepEqual(JSON.parse(item.purchases!), parsePokupki(fileOf(files, "POKUPKI.TXT")!));
      assert.equal("vies" in item, fileOf(files, "VIES.TXT") !== undefined);
      assert.equal(item.docId, files.docId);
      assert.ok(item.user!.split(" ").length === 3);
    }),
    { ...FC_PARAMS, numRuns: 60 },
  );
  const future = vatMonthlyFiles({ eik: "246824682", year: 2026, month: 3 }, NOW, KIT);
  assert.equal(future.status, "error");
});

Deno.test("payroll files use the period's currency and minimum wage", () => {
  const avg: number[] = [];
  for (const [year, minWage] of [[2025, 107700], [2026, 62020]] as const) {
    const r = dec16PortalFiles({ eik: "246824682", year, month: 1 }, NOW, KIT);
    assert.equal(r.status, "ok");
    const d1 = parseD1(nth(r.files).content);
    for (const l of d1.filter((l) => l.daysSickness === 0)) {
      assert.ok(c(l.grossSalary) >= minWage, `${year}: ${l.grossSalary}`);
    }
    avg.push(d1.reduce((s, l) => s + c(l.grossSalary), 0) / d1.length);
  }
  const ratio = nth(avg) / nth(avg, 1);
  assert.ok(ratio > 1.6 && ratio < 2.2, `BGN/EUR salary ratio ${ratio}`);
});

Deno.test("vatPortalFiles() writes BG + EGN for a 10-digit EIK and BG + 9 digits for a branch", () => {
  let egnSeen = false;
  for (let i = 0; i < 40 && !egnSeen; i++) {
    const eik = `75010200${String(i).padStart(2, "0")}`;
    const r = vatPortalFiles({ eik, year: 2025, month: 6 }, NOW, KIT);
    if (r.status !== "ok") continue;
    assert.equal(parseDeklar(fileOf(r, "DEKLAR.TXT")!).vatNumber, `BG${eik}`);
    egnSeen = true;
  }
  assert.ok(egnSeen);
  const branch = vatPortalFiles({ eik: "1212121210007", year: 2025, month: 6 }, NOW, KIT);
  assert.equal(parseDeklar(fileOf(branch, "DEKLAR.TXT")!).vatNumber, "BG121212121");
});
