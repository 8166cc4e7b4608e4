import assert from "node:assert/strict";
import { currencyOf, inCurrency, sumCents, toAmount, toCents } from "../../src/mock/mod.ts";
import { formatCents, formatCentsBg, shareCents } from "../../src/mock/money.ts";

Deno.test("currencyOf() is BGN up to 2025 and EUR from 2026", () => {
  assert.equal(currencyOf(1999), "BGN");
  assert.equal(currencyOf(2025), "BGN");
  assert.equal(currencyOf(2026), "EUR");
  assert.equal(currencyOf(2040), "EUR");
});

Deno.test("inCurrency() converts BGN cents at 1.95583", () => {
  assert.equal(inCurrency(195583, "EUR"), 100000);
  assert.equal(inCurrency(100, "EUR"), 51);
  assert.equal(inCurrency(12345, "BGN"), 12345);
});

Deno.test("toAmount() and toCents() round-trip and sums stay exact", () => {
  assert.equal(toAmount(123456), 1234.56);
  assert.equal(toCents(0.1 + 0.2), 30);
  assert.throws(() => toAmount(1.5), RangeError);
  const parts = [10, 20, 30, 99999];
  assert.equal(sumCents(parts), 100059);
  assert.equal(toAmount(sumCents(parts)), 1000.59);
});

Deno.test("shareCents() and formatCents() use cents arithmetic", () => {
  assert.equal(shareCents(10000, 2000), 2000);
  assert.equal(shareCents(12345, 838), 1035);
  assert.equal(formatCents(-2000), "-20.00");
  assert.equal(formatCents(5), "0.05");
  assert.equal(formatCentsBg(1234567), "12 345,67");
});
