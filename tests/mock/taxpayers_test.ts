import assert from "node:assert/strict";
import fc from "fast-check";
import { TaxpayersResult } from "../../src/contract/reports.ts";
import { DEFAULT_TEST_SENDER, isValidEgn, isValidEik, taxpayers } from "../../src/mock/mod.ts";
import { FC_PARAMS } from "./_support.ts";
import { nth } from "../_helpers/nth.ts";

Deno.test("taxpayers() satisfies the TaxpayersResult schema with valid identifiers", () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1, maxLength: 40 }), (sender) => {
      const r = taxpayers(sender);
      TaxpayersResult.parse(r);
      assert.equal(r.count, r.items.length);
      assert.ok(r.items.length >= 4);
      assert.ok(r.items.some((t) => t.pinType === "IND_EGN"));
      assert.ok(r.items.some((t) => t.pinType === "BUS_BULSTAT"));
      for (const t of r.items) {
        if (t.pinType === "BUS_BULSTAT") assert.ok(isValidEik(t.pin) && t.pin.length === 9, t.pin);
        else assert.ok(isValidEgn(t.pin), t.pin);
        assert.ok(Number.isSafeInteger(t.tin) && t.tin > 0);
        assert.ok(t.active === "yes" || t.active === "no");
        assert.ok(t.authorization?.startsWith("Пълномощно №"));
        assert.ok(
          t.email === null || /^[a-z0-9.-]+@[a-z0-9.-]+\.[a-z]+$/.test(t.email),
          `${t.email}`,
        );
      }
      assert.equal(nth(r.items).active, "yes");
    }),
    FC_PARAMS,
  );
});

Deno.test("taxpayers() uses realistic legal forms for companies", () => {
  const names = Array.from({ length: 30 }, (_, i) => taxpayers(`s${i}`).items)
    .flat().filter((t) => t.pinType === "BUS_BULSTAT").map((t) => t.name);
  for (const form of ["ООД", "ЕООД", "АД", "ЕТ"]) {
    assert.ok(names.some((n) => n.split(/[\s"]/).includes(form)), form);
  }
});

Deno.test("taxpayers() is the same for a sender and differs between senders", () => {
  assert.deepEqual(taxpayers("sender-1"), taxpayers("sender-1"));
  assert.notDeepEqual(taxpayers("sender-1").items, taxpayers("sender-2").items);
  assert.deepEqual(taxpayers(null), taxpayers(DEFAULT_TEST_SENDER));
});
