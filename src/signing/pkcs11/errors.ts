/**
 * Maps PKCS#11 failures to the product's error codes: loader messages (`dlopen`, `dyld`,
 * `LoadLibrary`) and CK_RV return values. Messages name the module or function, never a PIN.
 * @module
 */

import { AppError, type ErrorCode } from "../../contract/mod.ts";
import { CKR, ckrName } from "./constants.ts";

/** Loader message patterns, most specific first. */
const LOADER_PATTERNS: readonly [RegExp, ErrorCode, string][] = [
  [
    /wrong ELF class|ELFCLASS(32|64)|mach-o,? but wrong architecture|incompatible architecture|not a valid Win32 application|os error 193|machine type/i,
    "PKCS11_MODULE_WRONG_ARCH",
    "is built for another CPU architecture",
  ],
  [
    /undefined symbol|could not obtain symbol|symbol not found|procedure could not be found|os error 127/i,
    "KEYSTORE_UNAVAILABLE",
    "is not a PKCS#11 module (no C_GetFunctionList)",
  ],
  [
    /invalid ELF header|not a mach-o file|file too short|unknown file type|slice is not valid mach-o/i,
    "KEYSTORE_UNAVAILABLE",
    "is not a shared library",
  ],
  [
    /No such file or directory|image not found|no such file|specified module could not be found|os error 126|Library not loaded|cannot open shared object/i,
    "PKCS11_MODULE_MISSING",
    "or a library it needs is not installed",
  ],
];

/**
 * Classifies a loader error message (Linux glibc, macOS dyld, Windows LoadLibrary texts).
 *
 * @param modulePath the module path (named in the message)
 * @param message the loader's error message
 * @param cause the original error, kept as `cause`
 * @returns an AppError with PKCS11_MODULE_WRONG_ARCH, PKCS11_MODULE_MISSING or KEYSTORE_UNAVAILABLE
 * @throws never
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(classifyLoaderError("/x.so", "x.so: wrong ELF class: ELFCLASS32").code, "PKCS11_MODULE_WRONG_ARCH");
 * ```
 */
export function classifyLoaderError(
  modulePath: string,
  message: string,
  cause?: unknown,
): AppError {
  for (const [re, code, text] of LOADER_PATTERNS) {
    if (re.test(message)) {
      return new AppError(code, `PKCS#11 module "${modulePath}" ${text}`, { modulePath }, cause);
    }
  }
  return new AppError(
    "KEYSTORE_UNAVAILABLE",
    `PKCS#11 module "${modulePath}" cannot be loaded`,
    { modulePath },
    cause ?? message,
  );
}

/** Return values that mean "the PIN was not accepted". */
const PIN_WRONG = new Set<number>([CKR.PIN_INCORRECT, CKR.PIN_INVALID, CKR.PIN_LEN_RANGE]);

/**
 * Maps a failed CK_RV to an AppError.
 *
 * @param fn the C function that failed, e.g. "C_Sign"
 * @param rv its return value (not CKR_OK)
 * @param fallback the code for unmapped values (KEYSTORE_UNAVAILABLE while opening, SIGNING_FAILED
 *   while signing)
 * @param details extra client-visible details (never the PIN)
 * @returns the error to throw
 * @throws never
 */
export function rvError(
  fn: string,
  rv: number,
  fallback: ErrorCode,
  details: Record<string, unknown> = {},
): AppError {
  const d = { function: fn, rv: ckrName(rv), ...details };
  if (PIN_WRONG.has(rv)) return new AppError("PIN_INCORRECT", "The token PIN is incorrect", d);
  if (rv === CKR.PIN_LOCKED) return new AppError("PIN_LOCKED", "The token PIN is locked", d);
  if (rv === CKR.PIN_EXPIRED) {
    return new AppError("KEYSTORE_UNAVAILABLE", "The token PIN has expired; change it first", d);
  }
  if (rv === CKR.FUNCTION_CANCELED || rv === CKR.CANCEL) {
    return new AppError("KEYSTORE_UNAVAILABLE", "PIN entry was cancelled on the token", d);
  }
  if (
    rv === CKR.TOKEN_NOT_PRESENT || rv === CKR.DEVICE_REMOVED || rv === CKR.TOKEN_NOT_RECOGNIZED ||
    rv === CKR.SESSION_CLOSED || rv === CKR.DEVICE_ERROR
  ) {
    return new AppError("KEYSTORE_UNAVAILABLE", `The token is not available (${fn})`, d);
  }
  if (rv === CKR.USER_PIN_NOT_INITIALIZED) {
    return new AppError("KEYSTORE_UNAVAILABLE", "The token's user PIN is not initialised", d);
  }
  return new AppError(fallback, `${fn} failed with ${ckrName(rv)}`, d);
}
