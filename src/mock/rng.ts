/**
 * The seeded pseudo-random generator behind every test-portal answer. A key string such as
 * `${eik}|debt_payments|${year}` is hashed with SHA-256; the first 32 bits seed pure-rand's
 * xoroshiro128+, and helpers draw integers, picks, coin flips and money amounts from it.
 * Implements docs/test-portal.md § Determinism (same EIK, same data; no Math.random, no
 * Date.now).
 * @module
 */
import { createHash } from "node:crypto";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import type { RandomGenerator } from "pure-rand/types/RandomGenerator";

/** One part of a seed key: joined with "|" to form the key string. */
export type KeyPart = string | number;

/**
 * The 32-bit seed of a key: the first four bytes of SHA-256(key) read big-endian, as a signed
 * 32-bit integer (the input pure-rand expects).
 *
 * Implements docs/test-portal.md § Determinism (a PRNG seeded by a hash of the EIK).
 * @param key the key string, e.g. `"121212121|debt_payments|2025"`
 * @returns the seed, an integer in [-2^31, 2^31)
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(seedFromKey("121212121|taxpayers") === seedFromKey("121212121|taxpayers"), true);
 * ```
 */
export function seedFromKey(key: string): number {
  return createHash("sha256").update(key, "utf8").digest().readInt32BE(0);
}

/**
 * A deterministic random stream over pure-rand. Every helper advances the stream, so the order
 * of calls is part of the data: change it and the golden files change.
 *
 * @example
 * ```ts
 * import { deepStrictEqual, ok } from "node:assert/strict";
 * const rng = rngFor("121212121", "taxpayers");
 * const again = rngFor("121212121", "taxpayers");
 * deepStrictEqual(rng.int(1, 6), again.int(1, 6)); // the same value on every run
 * const amount = rng.amount(10, 20);
 * ok(amount >= 10 && amount <= 20 && Math.round(amount * 100) === amount * 100); // 2 decimals
 * ```
 */
export class Rng {
  /** The key the stream was seeded from. */
  readonly key: string;
  readonly #gen: RandomGenerator;

  /**
   * @param key the seed key; see {@link seedFromKey}
   */
  constructor(key: string) {
    this.key = key;
    this.#gen = xoroshiro128plus(seedFromKey(key));
  }

  /**
   * A uniform integer in [min, max], both included.
   * @param min lower bound (safe integer)
   * @param max upper bound (safe integer, ≥ min)
   * @returns the integer
   * @throws RangeError when a bound is not a safe integer or min > max
   */
  int(min: number, max: number): number {
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min > max) {
      throw new RangeError(`Cannot draw an integer from [${min}, ${max}]`);
    }
    return uniformInt(this.#gen, min, max);
  }

  /**
   * One element of a non-empty array, uniformly.
   * @param items the candidates
   * @returns one of them
   * @throws RangeError when the array is empty
   */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("Cannot pick from an empty list");
    return items[this.int(0, items.length - 1)]!; // non-null: 0 ≤ index < items.length
  }

  /**
   * True with probability p (resolution 1e-6).
   * @param p probability in [0, 1]
   * @returns the outcome
   * @throws RangeError when p is outside [0, 1]
   */
  chance(p: number): boolean {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`Probability ${p} is outside [0, 1]`);
    return this.int(0, 999_999) < Math.round(p * 1_000_000);
  }

  /**
   * A whole number of cents in [minCents, maxCents].
   * @param minCents lower bound in cents
   * @param maxCents upper bound in cents
   * @returns integer cents
   * @throws RangeError as {@link Rng.int}
   */
  cents(minCents: number, maxCents: number): number {
    return this.int(minCents, maxCents);
  }

  /**
   * A money amount in [min, max] with at most 2 decimals, drawn as integer cents and divided
   * by 100 once, so it carries no accumulated float error.
   * @param min lower bound (currency units)
   * @param max upper bound (currency units)
   * @returns the amount, e.g. 1234.56
   * @throws RangeError when min > max after rounding to cents
   */
  amount(min: number, max: number): number {
    return this.cents(Math.round(min * 100), Math.round(max * 100)) / 100;
  }

  /**
   * Up to n distinct elements of an array, in a random order (partial Fisher–Yates).
   * @param items the candidates
   * @param n how many to take (capped at items.length)
   * @returns a new array
   * @throws RangeError when n is negative
   */
  sample<T>(items: readonly T[], n: number): T[] {
    if (n < 0) throw new RangeError(`Cannot sample ${n} items`);
    const copy = items.slice();
    const take = Math.min(n, copy.length);
    for (let i = 0; i < take; i++) {
      const j = this.int(i, copy.length - 1);
      [copy[i], copy[j]] = [copy[j]!, copy[i]!]; // non-null: i ≤ j < copy.length
    }
    return copy.slice(0, take);
  }

  /**
   * A string of random decimal digits.
   * @param length number of digits
   * @returns the digits, leading zeros allowed
   * @throws RangeError when length is negative
   */
  digits(length: number): string {
    if (length < 0) throw new RangeError(`Cannot draw ${length} digits`);
    let s = "";
    for (let i = 0; i < length; i++) s += String(this.int(0, 9));
    return s;
  }
}

/**
 * A stream seeded from key parts joined with "|", e.g. `rngFor(eik, "vat", 2025, 3)` seeds
 * from `"<eik>|vat|2025|3"`.
 *
 * Implements docs/test-portal.md § Determinism (seed = hash of EIK, typeId and period).
 * @param parts the key parts
 * @returns a fresh {@link Rng}
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(
 *   rngFor("121212121", "debt_payments", 2025).int(0, 9),
 *   rngFor("121212121", "debt_payments", 2025).int(0, 9),
 * );
 * ```
 */
export function rngFor(...parts: KeyPart[]): Rng {
  return new Rng(parts.join("|"));
}
