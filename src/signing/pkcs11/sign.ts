/**
 * Signing on a PKCS#11 token (keystore.ts): one C_Login attempt (never retried) whose session
 * stays logged in for the store's next signatures until it is closed — one PIN entry and one
 * login for a whole folder-wide filing (docs/signing.md § PKCS#11) —, the private key with the
 * certificate's CKA_ID, and CKM_SHA256_RSA_PKCS (falling back to CKM_RSA_PKCS + DigestInfo on
 * cards without it) or CKM_ECDSA over a SHA-256 digest computed here, returning DER
 * ECDSA-Sig-Value.
 * @module
 */
import { AppError } from "../../contract/mod.ts";
import { digest } from "../bytes.ts";
import { ecdsaRawToDer } from "../ecdsa_signature.ts";
import { type TokenInfo, ulongFromBytes } from "./abi.ts";
import { CKA, CKF, CKK, CKM, CKO, CKR, CKU, SHA256_DIGEST_INFO_PREFIX } from "./constants.ts";
import { rvError } from "./errors.ts";
import type { Pkcs11Api } from "./ffi.ts";
import { check, findObjects, presentTokens, type SlotToken, ul } from "./tokens.ts";

/** A certificate id of this key store: `pkcs11:serial=<token serial>;id=<CKA_ID hex>[;label=…]`. */
const ID_RE = /^pkcs11:serial=([^;]*);id=([0-9a-f]*)(?:;label=(.*))?$/;

/** What signing needs of the open store. */
export interface SigningTokens {
  readonly api: Pkcs11Api;
  /** Only the token with this label, when given. */
  readonly tokenLabel?: string | undefined;
  /** Logged-in sessions by token serial (see {@link loggedIn}). */
  readonly kept: Map<string, bigint>;
}

/**
 * Sign data with the private key of a certificate of this store.
 * @param t the store's module, token filter and kept sessions
 * @param certId the certificate's id (as listed)
 * @param data the data (hashed here for ECDSA and the RSA fallback)
 * @param pin the token's PIN (absent on a PIN pad)
 * @returns the signature (PKCS#1 v1.5, or DER ECDSA-Sig-Value)
 * @throws AppError CERTIFICATE_INVALID, KEYSTORE_UNAVAILABLE, PIN_INCORRECT, PIN_LOCKED,
 *   SIGNING_FAILED
 */
export async function signOnToken(
  t: SigningTokens,
  certId: string,
  data: Uint8Array,
  pin?: string,
): Promise<Uint8Array> {
  const m = ID_RE.exec(certId);
  if (!m) throw new AppError("CERTIFICATE_INVALID", `Not a PKCS#11 certificate id: ${certId}`);
  const [, tokenSerial, idHex, label] = m;
  const tok = presentTokens(t.api, t.tokenLabel).find((x) => x.info.serialNumber === tokenSerial);
  if (!tok) {
    throw new AppError(
      "KEYSTORE_UNAVAILABLE",
      `The token with serial ${tokenSerial} is not connected`,
    );
  }
  const s = await loggedIn(t, tok, pin);
  try {
    const key = privateKeyOf(t.api, s, idHex ?? "", label);
    return await signWithKey(t.api, s, key, data, pin);
  } catch (e) {
    // A session that failed (card pulled, session closed) is not kept: the next signature
    // opens and logs in again.
    dropSession(t, tok.info.serialNumber);
    throw e;
  }
}

/** The private key of a certificate: by its CKA_ID, or by its label when it has no id. */
function privateKeyOf(
  api: Pkcs11Api,
  s: bigint,
  idHex: string,
  label: string | undefined,
): bigint {
  const keys = findObjects(api, s, [
    { type: CKA.CLASS, value: ul(CKO.PRIVATE_KEY) },
    idHex
      ? { type: CKA.ID, value: Uint8Array.fromHex(idHex) }
      : { type: CKA.LABEL, value: new TextEncoder().encode(label ?? "") },
  ]);
  const key = keys[0];
  if (key === undefined) {
    throw new AppError(
      "CERTIFICATE_INVALID",
      "The token holds no private key for this certificate",
    );
  }
  return key;
}

/** Sign with a private key: its mechanism, the PIN again for an always-authenticate key. */
async function signWithKey(
  api: Pkcs11Api,
  s: bigint,
  key: bigint,
  data: Uint8Array,
  pin: string | undefined,
): Promise<Uint8Array> {
  const attrs = api.C_GetAttributeValue(s, key, [CKA.KEY_TYPE, CKA.ALWAYS_AUTHENTICATE]);
  const keyType = attrs.values[0] ? ulongFromBytes(attrs.values[0]) : CKK.RSA;
  const alwaysAuth = attrs.values[1]?.[0] === 1;
  let mech: number = keyType === CKK.EC ? CKM.ECDSA : CKM.SHA256_RSA_PKCS;
  let input = keyType === CKK.EC ? await digest(data) : data;
  let rv = api.C_SignInit(s, mech, key);
  if (rv === CKR.MECHANISM_INVALID && keyType === CKK.RSA) {
    mech = CKM.RSA_PKCS;
    input = new Uint8Array([...SHA256_DIGEST_INFO_PREFIX, ...await digest(data)]);
    rv = api.C_SignInit(s, mech, key);
  }
  check("C_SignInit", rv, "SIGNING_FAILED");
  if (alwaysAuth) {
    const pinBytes = pin === undefined ? null : new TextEncoder().encode(pin);
    const r = await api.C_Login(s, CKU.CONTEXT_SPECIFIC, pinBytes).finally(() => pinBytes?.fill(0));
    if (r !== CKR.OK) throw rvError("C_Login", r, "SIGNING_FAILED");
  }
  const res = await api.C_Sign(s, input, 1024);
  check("C_Sign", res.rv, "SIGNING_FAILED");
  const sig = res.signature.slice();
  return keyType === CKK.EC ? ecdsaRawToDer(sig) : sig;
}

/**
 * The token's logged-in session: opened and logged in (one C_Login attempt) by the first
 * signature, kept for the next ones until the store is closed — one PIN entry and one login
 * for a whole folder-wide filing (docs/signing.md § PKCS#11).
 */
async function loggedIn(
  t: SigningTokens,
  tok: SlotToken,
  pin: string | undefined,
): Promise<bigint> {
  const held = t.kept.get(tok.info.serialNumber);
  if (held !== undefined) return held;
  const o = t.api.C_OpenSession(tok.slot, CKF.SERIAL_SESSION);
  check("C_OpenSession", o.rv, "KEYSTORE_UNAVAILABLE");
  try {
    await login(t.api, o.session, tok.slot, tok.info, pin);
  } catch (e) {
    t.api.C_CloseSession(o.session);
    throw e;
  }
  t.kept.set(tok.info.serialNumber, o.session);
  return o.session;
}

/** One C_Login attempt as the user (never retried: a wrong PIN must not lock the token). */
async function login(
  api: Pkcs11Api,
  s: bigint,
  slot: bigint,
  info: TokenInfo,
  pin: string | undefined,
): Promise<void> {
  if (info.flags & CKF.USER_PIN_LOCKED) {
    throw new AppError("PIN_LOCKED", `The PIN of token "${info.label}" is locked`);
  }
  const pinPad = (info.flags & CKF.PROTECTED_AUTHENTICATION_PATH) !== 0;
  if (pin === undefined && !pinPad) {
    throw new AppError("PIN_INCORRECT", `Token "${info.label}" needs a PIN`, {
      pinRequired: true,
    });
  }
  const pinBytes = pin === undefined ? null : new TextEncoder().encode(pin);
  let rv: number;
  try {
    rv = await api.C_Login(s, CKU.USER, pinBytes);
  } finally {
    pinBytes?.fill(0);
  }
  if (rv === CKR.OK || rv === CKR.USER_ALREADY_LOGGED_IN) return;
  const after = api.C_GetTokenInfo(slot).info?.flags ?? 0;
  throw rvError("C_Login", rv, "KEYSTORE_UNAVAILABLE", {
    token: info.label,
    pinFinalTry: (after & CKF.USER_PIN_FINAL_TRY) !== 0,
    pinLocked: (after & CKF.USER_PIN_LOCKED) !== 0,
  });
}

/**
 * Log out of and close a token's kept session, if any.
 * @param t the store's kept sessions and module
 * @param serial the token's serial number
 */
export function dropSession(t: SigningTokens, serial: string): void {
  const s = t.kept.get(serial);
  if (s === undefined) return;
  t.kept.delete(serial);
  t.api.C_Logout(s);
  t.api.C_CloseSession(s);
}
