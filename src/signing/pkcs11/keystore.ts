/**
 * {@link KeyStore} over a PKCS#11 module (QES smart card or token middleware, SoftHSM2 in
 * tests): the module loaded once per process and initialised, one call at a time, X.509
 * certificate objects listed without logging in (here), and signing (sign.ts: one C_Login
 * attempt whose session stays logged in until `close()`) over the tokens' slots (tokens.ts).
 * @module
 */

import { AppError, isAppError } from "../../contract/mod.ts";
import { toCertificateInfo } from "../cert_info.ts";
import type { CertificateInfo, KeyStore } from "../keystore.ts";
import type { TokenInfo } from "./abi.ts";
import { CKA, CKC_X_509, CKF, CKO, CKR } from "./constants.ts";
import { rvError } from "./errors.ts";
import { loadPkcs11Module, type Pkcs11Api } from "./ffi.ts";
import { dropSession, type SigningTokens, signOnToken } from "./sign.ts";
import { findObjects, presentTokens, type SlotToken, ul, withSession } from "./tokens.ts";

/** Options of {@link openPkcs11KeyStore}. */
export interface Pkcs11Options {
  /** Path of the PKCS#11 module. */
  readonly modulePath: string;
  /** Only use the token with this label (default: every token present). */
  readonly tokenLabel?: string | undefined;
  /** An already loaded API (tests wrap the real one to count calls, or fake it). */
  readonly api?: Pkcs11Api;
}

/** A token present in one of a PKCS#11 module's slots (public facts only). */
export interface Pkcs11Token {
  /** CK_TOKEN_INFO label, blank-trimmed. */
  readonly label: string;
  /** CK_TOKEN_INFO serial number (the `serial=` of the certificate ids). */
  readonly serialNumber: string;
  readonly manufacturerId: string;
  readonly model: string;
  /** CKF_LOGIN_REQUIRED: some operations need a login. Most QES tokens still list their
   * certificates without one; a token that shows none until logged in has this flag. */
  readonly loginRequired: boolean;
  /** CKF_USER_PIN_LOCKED. */
  readonly pinLocked: boolean;
  /** CKF_PROTECTED_AUTHENTICATION_PATH: the PIN is typed on the reader's own keypad. */
  readonly pinPad: boolean;
}

/** The PKCS#11 {@link KeyStore}, which can also name the tokens it sees. */
export interface Pkcs11KeyStore extends KeyStore {
  /**
   * The initialised tokens present now (only the one labelled `tokenLabel` when given), without
   * logging in.
   *
   * @returns the tokens, in slot order
   * @throws AppError KEYSTORE_UNAVAILABLE (C_GetSlotList failed, store closed)
   */
  listTokens(): Promise<Pkcs11Token[]>;
}

/** Modules loaded by this process, shared between stores (Cryptoki is per-process state). */
const LOADED = new Map<string, { api: Pkcs11Api; refs: number }>();

async function acquire(path: string): Promise<Pkcs11Api> {
  const hit = LOADED.get(path);
  if (hit) {
    hit.refs++;
    return hit.api;
  }
  const api = await loadPkcs11Module(path);
  const rv = api.C_Initialize();
  if (rv !== CKR.OK && rv !== CKR.CRYPTOKI_ALREADY_INITIALIZED) {
    api.unload();
    throw rvError("C_Initialize", rv, "KEYSTORE_UNAVAILABLE", { modulePath: path });
  }
  LOADED.set(path, { api, refs: 1 });
  return api;
}

function release(path: string): void {
  const hit = LOADED.get(path);
  if (!hit || --hit.refs > 0) return;
  LOADED.delete(path);
  hit.api.C_Finalize();
  hit.api.unload();
}

/**
 * Opens a PKCS#11 key store: loads the module (shared with other open stores on the same path)
 * and calls C_Initialize. The store is a {@link KeyStore} that can also list the tokens it sees
 * ({@link Pkcs11KeyStore.listTokens}); certificate discovery uses that.
 *
 * @param options module path, optional token label, optional injected API
 * @returns the key store (call `close()` to C_Finalize and unload)
 * @throws AppError PKCS11_MODULE_MISSING, PKCS11_MODULE_WRONG_ARCH, KEYSTORE_UNAVAILABLE
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * const store = await openPkcs11KeyStore({ modulePath: "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so" });
 * const certs = await store.listCertificates();
 * ok(Array.isArray(certs)); // one entry per certificate on the tokens the module sees
 * ```
 */
export async function openPkcs11KeyStore(options: Pkcs11Options): Promise<Pkcs11KeyStore> {
  const api = await initialised(options);
  const t: SigningTokens = { api, tokenLabel: options.tokenLabel, kept: new Map() };
  let open = true;
  // One call at a time: Cryptoki sessions are not shared between concurrent calls.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(() => {
      if (!open) throw new AppError("KEYSTORE_UNAVAILABLE", "The PKCS#11 key store is closed");
      return fn();
    });
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    kind: "pkcs11",
    listCertificates: () => serial(() => listCertificates(api, options.tokenLabel)),
    listTokens: () =>
      serial(() => Promise.resolve(presentTokens(api, options.tokenLabel).map(tokenFacts))),
    sign: (certId, data, pin) =>
      serial(async () => {
        try {
          return await signOnToken(t, certId, data, pin);
        } catch (e) {
          if (isAppError(e)) throw e;
          throw new AppError("SIGNING_FAILED", "Signing on the PKCS#11 token failed", {}, e);
        }
      }),
    close: () =>
      serial(() => {
        open = false;
        for (const sn of [...t.kept.keys()]) dropSession(t, sn);
        if (options.api) api.C_Finalize();
        else release(options.modulePath);
        return Promise.resolve();
      }).catch(() => undefined),
  };
}

/** The module's API, initialised: the injected one, or the shared one of its path. */
async function initialised(options: Pkcs11Options): Promise<Pkcs11Api> {
  if (!options.api) return await acquire(options.modulePath);
  const rv = options.api.C_Initialize();
  if (rv !== CKR.OK && rv !== CKR.CRYPTOKI_ALREADY_INITIALIZED) {
    throw rvError("C_Initialize", rv, "KEYSTORE_UNAVAILABLE", { modulePath: options.modulePath });
  }
  return options.api;
}

/** A token's public facts. */
function tokenFacts({ info }: SlotToken): Pkcs11Token {
  return {
    label: info.label,
    serialNumber: info.serialNumber,
    manufacturerId: info.manufacturerId,
    model: info.model,
    loginRequired: (info.flags & CKF.LOGIN_REQUIRED) !== 0,
    pinLocked: (info.flags & CKF.USER_PIN_LOCKED) !== 0,
    pinPad: (info.flags & CKF.PROTECTED_AUTHENTICATION_PATH) !== 0,
  };
}

/** The X.509 certificates of every token present, without logging in. */
async function listCertificates(
  api: Pkcs11Api,
  tokenLabel: string | undefined,
): Promise<CertificateInfo[]> {
  const out: CertificateInfo[] = [];
  for (const { slot, info } of presentTokens(api, tokenLabel)) {
    // A token that cannot be read (removed, unrecognised) must not hide the others.
    await withSession(api, slot, (s) => {
      out.push(...certificatesIn(api, s, info));
      return Promise.resolve();
    }).catch((e) => {
      if (!isAppError(e) || e.code !== "KEYSTORE_UNAVAILABLE") throw e;
    });
  }
  return out;
}

/** The parsable X.509 certificates of one token's session, with their ids. */
function certificatesIn(api: Pkcs11Api, s: bigint, info: TokenInfo): CertificateInfo[] {
  const out: CertificateInfo[] = [];
  const certs = findObjects(api, s, [
    { type: CKA.CLASS, value: ul(CKO.CERTIFICATE) },
    { type: CKA.CERTIFICATE_TYPE, value: ul(CKC_X_509) },
  ]);
  for (const h of certs) {
    const { rv, values } = api.C_GetAttributeValue(s, h, [CKA.VALUE, CKA.ID, CKA.LABEL]);
    if (rv !== CKR.OK || !values[0]) continue;
    const label = values[2] ? new TextDecoder().decode(values[2]) : "";
    const idHex = values[1] ? values[1].toHex() : "";
    const id = `pkcs11:serial=${info.serialNumber};id=${idHex}` + (idHex ? "" : `;label=${label}`);
    try {
      out.push(toCertificateInfo(values[0].slice(), id, label || info.label));
    } catch {
      // not a parsable X.509 certificate: skip it
    }
  }
  return out;
}
