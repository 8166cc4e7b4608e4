import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Rng, rngFor, seedFromKey } from "../../src/mock/rng.ts";

Deno.test("seedFromKey() takes the first 32 bits of SHA-256(key)", () => {
  const key = "121212121|debt_payments|2025";
  const digest = createHash("sha256").update(key).digest();
  assert.equal(seedFromKey(key), digest.readInt32BE(0));
  assert.equal(seedFromKey(key) >>> 0, parseInt(digest.subarray(0, 4).toString("hex"), 16));
});

Deno.test("rngFor() joins key parts with | and replays the same stream", () => {
  const a = rngFor("121212121", "vat", 2025, 3);
  const b = new Rng("121212121|vat|2025|3");
  const draws = (r: Rng) => Array.from({ length: 50 }, () => r.int(0, 1_000_000));
  assert.deepEqual(draws(a), draws(b));
  assert.notDeepEqual(
    draws(rngFor("121212121", "vat", 2025, 4)),
    draws(rngFor("121212121", "vat", 2025, 3)),
  );
});

Deno.test("Rng.int() stays within [min, max] and reaches both ends", () => {
  const r = rngFor("bounds");
  const seen = new Set<number>();
  for (let i = 0; i < 2000; i++) {
    const v = r.int(-3, 3);
    assert.ok(v >= -3 && v <= 3 && Number.isInteger(v));
    seen.add(v);
  }
  assert.equal(seen.size, 7);
  assert.equal(r.int(5, 5), 5);
});

Deno.test("Rng.int() rejects an empty or non-integer range", () => {
  const r = rngFor("bad");
  assert.throws(() => r.int(2, 1), RangeError);
  assert.throws(() => r.int(0.5, 2), RangeError);
});

Deno.test("Rng.pick() returns an element and refuses an empty list", () => {
  const r = rngFor("pick");
  const items = ["a", "b", "c"] as const;
  for (let i = 0; i < 100; i++) assert.ok(items.includes(r.pick(items)));
  assert.throws(() => r.pick([]), RangeError);
});

Deno.test("Rng.chance() honours 0 and 1 and is near p in between", () => {
  const r = rngFor("chance");
  for (let i = 0; i < 100; i++) {
    assert.equal(r.chance(0), false);
    assert.equal(r.chance(1), true);
  }
  let hits = 0;
  for (let i = 0; i < 10_000; i++) if (r.chance(0.3)) hits++;
  assert.ok(hits > 2_800 && hits < 3_200, `hits ${hits}`);
  assert.throws(() => r.chance(1.5), RangeError);
});

Deno.test("Rng.amount() draws whole cents within [min, max]", () => {
  const r = rngFor("amount");
  for (let i = 0; i < 1000; i++) {
    const v = r.amount(10.05, 20.1);
    assert.ok(v >= 10.05 && v <= 20.1);
    assert.equal(Math.round(v * 100) / 100, v);
  }
});

Deno.test("Rng.sample() takes distinct elements and Rng.digits() only digits", () => {
  const r = rngFor("sample");
  const s = r.sample([1, 2, 3, 4, 5, 6], 4);
  assert.equal(s.length, 4);
  assert.equal(new Set(s).size, 4);
  assert.equal(r.sample([1, 2], 5).length, 2);
  assert.match(r.digits(12), /^[0-9]{12}$/);
});
