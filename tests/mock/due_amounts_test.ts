import assert from "node:assert/strict";
import fc from "fast-check";
import { DueAmountsResult } from "../../src/contract/reports.ts";
import { ALL_YEARS_SPAN, debtPayments, dueAmounts, inCurrency } from "../../src/mock/mod.ts";
import { c, eikArb, FC_PARAMS, NOW } from "./_support.ts";

Deno.test("dueAmounts() satisfies the DueAmountsResult schema for many EIKs", () => {
  fc.assert(
    fc.property(
      eikArb,
      fc.option(fc.integer({ min: 2018, max: 2027 }), { nil: undefined }),
      (eik, year) => {
        const r = dueAmounts({ eik, year }, NOW);
        DueAmountsResult.parse(r);
        assert.equal(r.rowCount, r.items.length);
        assert.equal(r.year, year ?? NOW.getUTCFullYear());
      },
    ),
    { ...FC_PARAMS, numRuns: 100 },
  );
});

Deno.test("dueAmounts() totals equal the sums of the items in cents", () => {
  fc.assert(
    fc.property(eikArb, (eik) => {
      const r = dueAmounts({ eik }, NOW);
      assert.equal(c(r.totalOutstanding), r.items.reduce((s, i) => s + c(i.outstandingAmount), 0));
      assert.equal(c(r.totalInterest), r.items.reduce((s, i) => s + c(i.outstandingInterest), 0));
      for (const i of r.items) {
        assert.ok(i.outstandingAmount > 0 && c(i.outstandingAmount) <= c(i.dueAmount));
        assert.ok(i.outstandingInterest >= 0);
      }
    }),
    { ...FC_PARAMS, numRuns: 100 },
  );
});

Deno.test("dueAmounts() lists exactly the unpaid rows of debtPayments() in the same currency", () => {
  fc.assert(
    fc.property(eikArb, (eik) => {
      const due = dueAmounts({ eik, year: 2026 }, NOW);
      const unpaid = debtPayments({ eik, year: 2026 }, NOW).items.filter((i) =>
        i.outstandingAmount > 0
      );
      assert.deepEqual(
        due.items.map((
          i,
        ) => [i.documentNumber, i.dueAmount, i.outstandingAmount, i.outstandingInterest]),
        unpaid.map((
          i,
        ) => [i.documentNumber, i.dueAmount, i.outstandingAmount, i.outstandingInterest]),
      );
    }),
    { ...FC_PARAMS, numRuns: 100 },
  );
});

Deno.test("dueAmounts() converts BGN balances of 2025 to EUR once now is in 2026", () => {
  const eik = "123456786";
  const bgn = debtPayments({ eik, year: 2025 }, NOW).items.filter((i) => i.outstandingAmount > 0);
  const eur = dueAmounts({ eik, year: 2025 }, NOW).items;
  assert.ok(bgn.length > 0);
  assert.deepEqual(
    eur.map((i) => c(i.outstandingAmount)),
    bgn.map((i) => inCurrency(c(i.outstandingAmount), "EUR")),
  );
  const in2025 = dueAmounts({ eik, year: 2025 }, new Date("2025-12-31T23:00:00Z")).items;
  assert.deepEqual(in2025.map((i) => i.outstandingAmount), bgn.map((i) => i.outstandingAmount));
});

Deno.test("dueAmounts() without a year covers the last five years and reports the year the balances are for", () => {
  const eik = "123456786";
  const all = dueAmounts({ eik }, NOW);
  assert.equal(all.year, 2026, "the last year covered (now's), never 0");
  assert.equal(dueAmounts({ eik }, new Date("2061-05-01T00:00:00Z")).year, 2049);
  let count = 0;
  for (let y = 2026 - ALL_YEARS_SPAN + 1; y <= 2026; y++) {
    count += dueAmounts({ eik, year: y }, NOW).rowCount;
  }
  assert.equal(all.rowCount, count);
  assert.ok(all.items.every((i) => i.dueDate! >= "2022-01-01"));
});

Deno.test("dueAmounts() is deterministic", () => {
  assert.deepEqual(dueAmounts({ eik: "123456786" }, NOW), dueAmounts({ eik: "123456786" }, NOW));
});
