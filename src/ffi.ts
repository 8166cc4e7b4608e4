/**
 * Foreign function declarations for `Deno.dlopen` in one line each: {@link fn} builds the
 * `{ parameters, result }` object a symbol table holds, keeping the literal types so the
 * library's `symbols` stay typed. Used by the agent's peer lookup (libc on Linux; iphlpapi,
 * kernel32 and advapi32 on Windows) and its Windows process check (kernel32); the notation is the
 * one of Deno's FFI types (`"i32"`, `"usize"`, `"pointer"`, `"buffer"`, …).
 *
 * @example A symbol table
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * import { fn } from "./ffi.ts";
 * const LIBC = { close: fn(["i32"], "i32"), getpid: fn([], "i32") };
 * deepStrictEqual(LIBC.close, { parameters: ["i32"], result: "i32" });
 * deepStrictEqual(LIBC.getpid, { parameters: [], result: "i32" });
 * ```
 * @module
 */

/**
 * One foreign function's declaration.
 * @param parameters the C parameters' types, in order
 * @param result the C result's type
 * @returns `{ parameters, result }` for a `Deno.dlopen` symbol table
 */
export const fn = <
  const P extends readonly Deno.NativeType[],
  const R extends Deno.NativeResultType,
>(parameters: P, result: R): { readonly parameters: P; readonly result: R } => ({
  parameters,
  result,
});
