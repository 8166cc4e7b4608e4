/**
 * PKCS#11 v2.40 constants the agent uses (OASIS PKCS #11 Base Specification v2.40, pkcs11t.h).
 * @module
 */

/** Return values (CK_RV) by name. */
export const CKR = {
  OK: 0x0,
  CANCEL: 0x1,
  HOST_MEMORY: 0x2,
  SLOT_ID_INVALID: 0x3,
  GENERAL_ERROR: 0x5,
  FUNCTION_FAILED: 0x6,
  ARGUMENTS_BAD: 0x7,
  ATTRIBUTE_SENSITIVE: 0x11,
  ATTRIBUTE_TYPE_INVALID: 0x12,
  DATA_LEN_RANGE: 0x21,
  DEVICE_ERROR: 0x30,
  DEVICE_MEMORY: 0x31,
  DEVICE_REMOVED: 0x32,
  FUNCTION_CANCELED: 0x50,
  FUNCTION_NOT_SUPPORTED: 0x54,
  KEY_HANDLE_INVALID: 0x60,
  KEY_TYPE_INCONSISTENT: 0x63,
  KEY_FUNCTION_NOT_PERMITTED: 0x68,
  MECHANISM_INVALID: 0x70,
  MECHANISM_PARAM_INVALID: 0x71,
  OBJECT_HANDLE_INVALID: 0x82,
  OPERATION_ACTIVE: 0x90,
  OPERATION_NOT_INITIALIZED: 0x91,
  PIN_INCORRECT: 0xa0,
  PIN_INVALID: 0xa1,
  PIN_LEN_RANGE: 0xa2,
  PIN_EXPIRED: 0xa3,
  PIN_LOCKED: 0xa4,
  SESSION_CLOSED: 0xb0,
  SESSION_COUNT: 0xb1,
  SESSION_HANDLE_INVALID: 0xb3,
  TOKEN_NOT_PRESENT: 0xe0,
  TOKEN_NOT_RECOGNIZED: 0xe1,
  USER_ALREADY_LOGGED_IN: 0x100,
  USER_NOT_LOGGED_IN: 0x101,
  USER_PIN_NOT_INITIALIZED: 0x102,
  USER_TYPE_INVALID: 0x103,
  BUFFER_TOO_SMALL: 0x150,
  CRYPTOKI_NOT_INITIALIZED: 0x190,
  CRYPTOKI_ALREADY_INITIALIZED: 0x191,
} as const;

const CKR_NAMES = new Map<number, string>(Object.entries(CKR).map(([k, v]) => [v, `CKR_${k}`]));

/**
 * Symbolic name of a return value.
 *
 * @param rv CK_RV
 * @returns e.g. `CKR_PIN_INCORRECT`, or `CKR_0x…` for unknown values
 * @throws never
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(ckrName(0xa0), "CKR_PIN_INCORRECT");
 * ```
 */
export function ckrName(rv: number): string {
  return CKR_NAMES.get(rv) ?? `CKR_0x${rv.toString(16).padStart(8, "0")}`;
}

/** Attribute types (CK_ATTRIBUTE_TYPE). */
export const CKA = {
  CLASS: 0x0,
  TOKEN: 0x1,
  PRIVATE: 0x2,
  LABEL: 0x3,
  VALUE: 0x11,
  CERTIFICATE_TYPE: 0x80,
  KEY_TYPE: 0x100,
  ID: 0x102,
  SIGN: 0x108,
  ALWAYS_AUTHENTICATE: 0x202,
} as const;

/** Object classes. */
export const CKO = { CERTIFICATE: 1, PUBLIC_KEY: 2, PRIVATE_KEY: 3 } as const;
/** Certificate types. */
export const CKC_X_509 = 0;
/** Key types. */
export const CKK = { RSA: 0, EC: 3 } as const;
/** Mechanisms. */
export const CKM = { RSA_PKCS: 0x1, SHA256_RSA_PKCS: 0x40, ECDSA: 0x1041 } as const;
/** User types for C_Login. */
export const CKU = { SO: 0, USER: 1, CONTEXT_SPECIFIC: 2 } as const;

/** Flags (session, token, init args). */
export const CKF = {
  RW_SESSION: 0x2,
  SERIAL_SESSION: 0x4,
  OS_LOCKING_OK: 0x2,
  LOGIN_REQUIRED: 0x4,
  USER_PIN_INITIALIZED: 0x8,
  PROTECTED_AUTHENTICATION_PATH: 0x100,
  TOKEN_INITIALIZED: 0x400,
  USER_PIN_COUNT_LOW: 0x10000,
  USER_PIN_FINAL_TRY: 0x20000,
  USER_PIN_LOCKED: 0x40000,
  USER_PIN_TO_BE_CHANGED: 0x80000,
} as const;

/** Indexes of the functions in CK_FUNCTION_LIST (v2.x order, after the CK_VERSION field). */
export const FN_INDEX = {
  C_Initialize: 0,
  C_Finalize: 1,
  C_GetSlotList: 4,
  C_GetTokenInfo: 6,
  C_OpenSession: 12,
  C_CloseSession: 13,
  C_Login: 18,
  C_Logout: 19,
  C_GetAttributeValue: 24,
  C_FindObjectsInit: 26,
  C_FindObjects: 27,
  C_FindObjectsFinal: 28,
  C_SignInit: 42,
  C_Sign: 43,
} as const;

/** DER prefix of DigestInfo for SHA-256 (RFC 8017 §9.2 note 1), for CKM_RSA_PKCS fallback. */
export const SHA256_DIGEST_INFO_PREFIX = new Uint8Array([
  0x30,
  0x31,
  0x30,
  0x0d,
  0x06,
  0x09,
  0x60,
  0x86,
  0x48,
  0x01,
  0x65,
  0x03,
  0x04,
  0x02,
  0x01,
  0x05,
  0x00,
  0x04,
  0x20,
]);
