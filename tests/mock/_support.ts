/**
 * Shared fixtures of the test-portal tests: the pinned clock, the pinned EIKs, a fast-check
 * arbitrary of valid 9-digit EIKs and fixed fast-check parameters (deterministic runs).
 * @module
 */
import fc from "fast-check";
import { completeEik, specialBehaviour } from "../../src/mock/mod.ts";

/** The clock of the golden files and most tests: 2026-03-15 10:00 UTC. */
export const NOW = new Date("2026-03-15T10:00:00Z");

/** The pinned EIKs of the golden files (docs/test-portal.md § Pinned EIKs). */
export const PINNED_EIKS = ["121212121", "246824682", "100000001"] as const;

/** Valid 9-digit EIKs (8 random digits plus the check digit), without the special EIKs. */
export const eikArb: fc.Arbitrary<string> = fc
  .integer({ min: 0, max: 99_999_999 })
  .map((n) => completeEik(String(n).padStart(8, "0")))
  .filter((eik) => specialBehaviour(eik) === null);

/** fast-check parameters: a fixed seed so that every run checks the same cases. */
export const FC_PARAMS = { numRuns: 200, seed: 20260315 } as const;

/** Integer cents of a wire amount (exact for amounts with at most 2 decimals). */
export const c = (amount: number): number => Math.round(amount * 100);

/**
 * Assert that a wire amount has at most 2 decimals.
 * @param amount the number
 * @returns true when amount × 100 is (within float noise) an integer
 */
export function hasTwoDecimals(amount: number): boolean {
  return Math.abs(amount * 100 - Math.round(amount * 100)) < 1e-6;
}
