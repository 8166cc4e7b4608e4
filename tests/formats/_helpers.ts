/**
 * Test helpers for tests/formats: assert that a call throws an AppError with a given code, and
 * read fixture files.
 * @module
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { type AppError, type ErrorCode, isAppError } from "../../src/contract/errors.ts";

/** Root of the format fixtures. */
export const FIXTURES = new URL("../../fixtures/formats/", import.meta.url).pathname;

/**
 * Run `fn` and return the AppError it throws; fail when it returns or throws something else.
 * @param fn the call
 * @param codes accepted error codes
 * @returns the error
 */
export function throwsApp(fn: () => unknown, ...codes: ErrorCode[]): AppError {
  try {
    fn();
  } catch (e) {
    if (!isAppError(e)) throw new assert.AssertionError({ message: `expected AppError, got ${e}` });
    assert.ok(codes.includes(e.code), `expected ${codes.join("|")}, got ${e.code}: ${e.message}`);
    return e;
  }
  assert.fail(`expected an AppError ${codes.join("|")}, but nothing was thrown`);
}

/**
 * Read a fixture file's bytes.
 * @param rel path under fixtures/formats/
 * @returns a plain Uint8Array
 */
export async function fixtureBytes(rel: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(FIXTURES + rel));
}
