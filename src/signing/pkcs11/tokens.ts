/**
 * What the PKCS#11 key store does with a token's slot (keystore.ts): the initialised tokens
 * present, a session around a piece of work, the objects matching a template, a return value
 * turned into an AppError. Shared by listing certificates and signing (sign.ts).
 * @module
 */
import { type AttributeSlot, type TokenInfo, ulongBytes } from "./abi.ts";
import { CKF, CKR } from "./constants.ts";
import { rvError } from "./errors.ts";
import type { Pkcs11Api } from "./ffi.ts";

/** Byte layout of the ABI for CK_ULONG attribute values (host ABI). */
const HOST_ABI = { ulongSize: Deno.build.os === "windows" ? 4 : 8, packed: false } as const;

/**
 * A CK_ULONG attribute value in the host's layout.
 * @param v the value
 * @returns its bytes
 */
export const ul = (v: number): Uint8Array => ulongBytes(HOST_ABI, v);

/** A token present in a slot. */
export interface SlotToken {
  readonly slot: bigint;
  readonly info: TokenInfo;
}

/**
 * Throw when a PKCS#11 call did not return CKR_OK.
 * @param fn the function's name (for the message)
 * @param r its return value
 * @param code the code of the error
 * @throws AppError `code` naming the function and the CKR_ constant
 */
export function check(
  fn: string,
  r: number,
  code: "KEYSTORE_UNAVAILABLE" | "SIGNING_FAILED",
): void {
  if (r !== CKR.OK) throw rvError(fn, r, code);
}

/**
 * The initialised tokens present now, in slot order.
 * @param api the module's API
 * @param tokenLabel only the token with this label, when given
 * @returns the tokens
 * @throws AppError KEYSTORE_UNAVAILABLE when C_GetSlotList fails
 */
export function presentTokens(api: Pkcs11Api, tokenLabel?: string): SlotToken[] {
  const { rv, slots } = api.C_GetSlotList(true);
  check("C_GetSlotList", rv, "KEYSTORE_UNAVAILABLE");
  const out: SlotToken[] = [];
  for (const slot of slots) {
    const t = api.C_GetTokenInfo(slot);
    if (t.rv !== CKR.OK || !t.info || !(t.info.flags & CKF.TOKEN_INITIALIZED)) continue;
    if (tokenLabel !== undefined && t.info.label !== tokenLabel) continue;
    out.push({ slot, info: t.info });
  }
  return out;
}

/**
 * Every object of a session matching a template (C_FindObjects in pages of 32).
 * @param api the module's API
 * @param session the session
 * @param template the attributes to match
 * @returns the object handles
 * @throws AppError KEYSTORE_UNAVAILABLE when the search fails
 */
export function findObjects(
  api: Pkcs11Api,
  session: bigint,
  template: AttributeSlot[],
): bigint[] {
  check("C_FindObjectsInit", api.C_FindObjectsInit(session, template), "KEYSTORE_UNAVAILABLE");
  const all: bigint[] = [];
  try {
    for (;;) {
      const { rv, objects } = api.C_FindObjects(session, 32);
      check("C_FindObjects", rv, "KEYSTORE_UNAVAILABLE");
      all.push(...objects);
      if (objects.length < 32) return all;
    }
  } finally {
    api.C_FindObjectsFinal(session);
  }
}

/**
 * Run work in a new (not logged-in) session of a slot, closed afterwards.
 * @param api the module's API
 * @param slot the slot
 * @param fn the work
 * @returns what it returned
 * @throws AppError KEYSTORE_UNAVAILABLE when no session opens; what `fn` throws
 */
export function withSession<T>(
  api: Pkcs11Api,
  slot: bigint,
  fn: (s: bigint) => Promise<T>,
): Promise<T> {
  const o = api.C_OpenSession(slot, CKF.SERIAL_SESSION);
  check("C_OpenSession", o.rv, "KEYSTORE_UNAVAILABLE");
  return fn(o.session).finally(() => api.C_CloseSession(o.session));
}
