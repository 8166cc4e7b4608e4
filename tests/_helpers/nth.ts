/**
 * Element `i` of a list a test expects to hold it (default: the first), or the test fails with
 * a message naming the index and the list's length: for reading the records, warnings or
 * certificates a test has just made, where an index past the end is the test's failure.
 * @module
 */
import assert from "node:assert/strict";

/**
 * Element `i` of `xs`.
 * @param xs the list (an array or any array-like)
 * @param i 0-based index (default 0)
 * @returns the element
 * @throws AssertionError when `xs` has no element `i`
 * @example
 * ```ts
 * import { nth } from "./nth.ts";
 * nth(["a", "b"], 1); // "b"
 * ```
 */
export function nth<T>(xs: ArrayLike<T>, i = 0): T {
  const x = xs[i];
  if (x === undefined) assert.fail(`expected an element at index ${i}; the list has ${xs.length}`);
  return x;
}
