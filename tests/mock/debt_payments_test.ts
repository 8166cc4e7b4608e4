import assert from "node:assert/strict";
import fc from "fast-check";
import { DebtPaymentsResult } from "../../src/contract/reports.ts";
import {
  DEBT_TYPES,
  debtPayments,
  INTEREST_BP_PER_YEAR,
  yearObligations,
} from "../../src/mock/mod.ts";
import { c, eikArb, FC_PARAMS, hasTwoDecimals, NOW } from "./_support.ts";
import { nth } from "../_helpers/nth.ts";

const EIK = "121212121";

Deno.test("debtPayments() satisfies the DebtPaymentsResult schema for many EIKs", () => {
  fc.assert(
    fc.property(eikArb, fc.integer({ min: 2020, max: 2026 }), (eik, year) => {
      const r = debtPayments({ eik, year }, NOW);
      DebtPaymentsResult.parse(r);
      assert.equal(r.status, "ok");
      assert.equal(r.rowCount, r.items.length);
      assert.equal(r.year, year);
      assert.equal(r.type, "0");
    }),
    FC_PARAMS,
  );
});

Deno.test("debtPayments() keeps outstandingAmount = dueAmount − paidAmount", () => {
  fc.assert(
    fc.property(eikArb, fc.integer({ min: 2020, max: 2026 }), (eik, year) => {
      for (const i of debtPayments({ eik, year }, NOW).items) {
        for (const a of [i.dueAmount, i.paidAmount, i.paidAllAmount, i.outstandingAmount]) {
          assert.ok(hasTwoDecimals(a) && a >= 0, `${a}`);
        }
        assert.equal(c(i.outstandingAmount), c(i.dueAmount) - c(i.paidAmount));
        assert.ok(c(i.paidAmount) <= c(i.dueAmount));
        assert.ok(hasTwoDecimals(i.outstandingInterest) && i.outstandingInterest >= 0);
      }
    }),
    FC_PARAMS,
  );
});

Deno.test("debtPayments() sets paidAllAmount to the total paid for the debt type", () => {
  fc.assert(
    fc.property(eikArb, (eik) => {
      const items = debtPayments({ eik, year: 2025 }, NOW).items;
      const byType = new Map<string, number>();
      for (const i of items) {
        byType.set(i.debtTypeName, (byType.get(i.debtTypeName) ?? 0) + c(i.paidAmount));
      }
      for (const i of items) assert.equal(c(i.paidAllAmount), byType.get(i.debtTypeName));
    }),
    FC_PARAMS,
  );
});

Deno.test("debtPayments() charges interest only on overdue outstanding amounts", () => {
  fc.assert(
    fc.property(eikArb, fc.integer({ min: 2021, max: 2026 }), (eik, year) => {
      const cutoff = year < 2026 ? `${year}-12-31` : "2026-03-15";
      for (const i of debtPayments({ eik, year }, NOW).items) {
        const overdue = i.outstandingAmount > 0 && i.dueDate! < cutoff;
        if (!overdue) assert.equal(i.outstandingInterest, 0);
        else {
          const days = (Date.parse(cutoff) - Date.parse(i.dueDate!)) / 86_400_000;
          const expected = Math.round(
            (c(i.outstandingAmount) * INTEREST_BP_PER_YEAR * days) / 3_650_000,
          );
          assert.equal(c(i.outstandingInterest), expected);
        }
      }
    }),
    FC_PARAMS,
  );
});

Deno.test("debtPayments() keeps every date within the asked year and payments after the document", () => {
  fc.assert(
    fc.property(eikArb, fc.integer({ min: 2020, max: 2026 }), (eik, year) => {
      for (const i of debtPayments({ eik, year }, NOW).items) {
        for (const d of [i.documentDate, i.dueDate, i.datePayment]) {
          if (d !== null) assert.ok(d.startsWith(`${year}-`), `${d} not in ${year}`);
        }
        assert.ok(i.documentDate! <= i.dueDate!);
        if (i.datePayment !== null) {
          assert.ok(i.datePayment >= i.documentDate!);
          assert.ok(i.datePayment <= "2026-03-15");
          assert.ok(i.paymentTypeName !== "" && i.paidAmount > 0);
        } else {
          assert.equal(i.paymentTypeName, "");
          assert.equal(i.paidAmount, 0);
        }
      }
    }),
    FC_PARAMS,
  );
});

Deno.test("debtPayments() with type keeps only that debt type; an unknown type gives []", () => {
  const all = debtPayments({ eik: EIK, year: 2025 }, NOW);
  assert.ok(all.items.length > 0);
  let covered = 0;
  for (const t of DEBT_TYPES) {
    const only = debtPayments({ eik: EIK, year: 2025, type: t.id }, NOW);
    assert.equal(only.type, t.id);
    assert.ok(only.items.every((i) => i.debtTypeName === t.name));
    assert.deepEqual(only.items, all.items.filter((i) => i.debtTypeName === t.name));
    covered += only.items.length;
  }
  assert.equal(covered, all.items.length);
  const unknown = debtPayments({ eik: EIK, year: 2025, type: "999" }, NOW);
  assert.deepEqual(unknown.items, []);
  assert.equal(unknown.rowCount, 0);
  assert.equal(unknown.type, "999");
});

Deno.test("debtPayments() is the same for the same EIK and differs between EIKs", () => {
  assert.deepEqual(
    debtPayments({ eik: EIK, year: 2025 }, NOW),
    debtPayments({ eik: EIK, year: 2025 }, NOW),
  );
  fc.assert(
    fc.property(eikArb, eikArb, (a, b) => {
      fc.pre(a !== b);
      const ra = debtPayments({ eik: a, year: 2024 }, NOW);
      const rb = debtPayments({ eik: b, year: 2024 }, NOW);
      fc.pre(ra.items.length + rb.items.length > 0);
      assert.notDeepEqual(ra.items, rb.items);
    }),
    { ...FC_PARAMS, numRuns: 50 },
  );
});

Deno.test("debtPayments() leaves about 10 % of (EIK, year) pairs without debts", () => {
  let empty = 0;
  const n = 400;
  for (let i = 0; i < n; i++) {
    const eik = nth(fc.sample(eikArb, { numRuns: 1, seed: i }));
    if (debtPayments({ eik, year: 2024 }, NOW).items.length === 0) empty++;
  }
  assert.ok(empty >= n * 0.05 && empty <= n * 0.16, `${empty} of ${n} empty`);
});

Deno.test("debtPayments() answers [] before 2020 and for a year not begun", () => {
  assert.deepEqual(debtPayments({ eik: EIK, year: 2019 }, NOW).items, []);
  assert.deepEqual(debtPayments({ eik: "123456786", year: 2027 }, NOW).items, []);
});

Deno.test("debtPayments() only reveals rows as time passes, never changes them", () => {
  const eik = "123456786";
  const early = yearObligations(eik, 2025, new Date("2025-06-30T12:00:00Z"));
  const late = yearObligations(eik, 2025, new Date("2026-01-10T12:00:00Z"));
  assert.ok(early.length > 0 && early.length < late.length);
  const key = (o: { documentNumber: string; typeId: string }) => `${o.typeId}|${o.documentNumber}`;
  const lateKeys = new Map(late.map((o) => [key(o), o]));
  for (const o of early) {
    const l = lateKeys.get(key(o));
    assert.ok(l, key(o));
    assert.equal(l.dueCents, o.dueCents);
    assert.ok((l.payment?.cents ?? 0) >= (o.payment?.cents ?? 0));
  }
});

Deno.test("debtPayments() reports 2026 in EUR magnitudes and 2025 in BGN", () => {
  const eik = "123456786";
  const sum = (year: number) =>
    debtPayments({ eik, year }, new Date("2027-02-01T00:00:00Z")).items
      .filter((i) => i.debtPeriod?.match(/^0[1-9]\./))
      .reduce((s, i) => s + c(i.dueAmount), 0);
  const ratio = sum(2025) / sum(2026);
  assert.ok(ratio > 1.5 && ratio < 2.6, `BGN/EUR ratio ${ratio}`);
});
