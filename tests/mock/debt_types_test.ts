import assert from "node:assert/strict";
import { DebtPaymentsTypesResult } from "../../src/contract/reports.ts";
import { DEBT_TYPES, debtPayments, debtPaymentsTypes } from "../../src/mock/mod.ts";
import { NOW } from "./_support.ts";

Deno.test("debtPaymentsTypes() is one global table of about 20 NRA debt types", () => {
  const r = debtPaymentsTypes();
  DebtPaymentsTypesResult.parse(r);
  assert.equal(r.rowCount, r.items.length);
  assert.ok(r.items.length >= 18 && r.items.length <= 25);
  assert.deepEqual(r, debtPaymentsTypes());
  assert.equal(new Set(r.items.map((t) => t.id)).size, r.items.length);
  for (const t of r.items) {
    assert.match(t.id, /^[1-9][0-9]*$/);
    assert.match(t.name, /[А-Яа-я]/);
    assert.ok(t.code === null || /^[0-9]{6}$/.test(t.code), `${t.code}`);
    assert.ok(!/местн/i.test(t.name), "local taxes are not NRA revenue");
  }
  assert.ok(r.items.some((t) => t.code === null));
});

Deno.test("debtPaymentsTypes() names every debt type that debtPayments() uses", () => {
  const names = new Set(DEBT_TYPES.map((t) => t.name));
  for (const eik of ["121212121", "246824682", "100000001", "123456786"]) {
    for (const i of debtPayments({ eik, year: 2025 }, NOW).items) {
      assert.ok(names.has(i.debtTypeName));
    }
  }
});
