/**
 * {@link KeyStore} over a PKCS#11 module (QES smart card or token middleware, SoftHSM2 in
 * tests). Lists X.509 certificate objects without logging in; signs with one C_Login attempt
 * (never retried) whose session stays logged in for the store's next signatures until `close()`
 * (one login per folder-wide filing), the private key with the certificate's CKA_ID, and CKM_SHA256_RSA_PKCS
 * (falling back to CKM_RSA_PKCS + DigestInfo on cards without it) or CKM_ECDSA over a SHA-256
 * digest computed here, returning DER ECDSA-Sig-Value.
 * @module
 */

import { AppError, isAppError } from "../../contract/mod.ts";
import { digest } from "../bytes.ts";
import { toCertificateInfo } from "../cert_info.ts";
import { ecdsaRawToDer } from "../ecdsa_signature.ts";
import type { CertificateInfo, KeyStore } from "../keystore.ts";
import { type AttributeSlot, type TokenInfo, ulongBytes, ulongFromBytes } from "./abi.ts";
import {
  CKA,
  CKC_X_509,
  CKF,
  CKK,
  CKM,
  CKO,
  CKR,
  CKU,
  SHA256_DIGEST_INFO_PREFIX,
} from "./constants.ts";
import { rvError } from "./errors.ts";
import { loadPkcs11Module, type Pkcs11Api } from "./ffi.ts";

/** Options of {@link openPkcs11KeyStore}. */
export interface Pkcs11Options {
  /** Path of the PKCS#11 module. */
  readonly modulePath: string;
  /** Only use the token with this label (default: every token present). */
  readonly tokenLabel?: string;
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

/** Byte layout of the ABI for CK_ULONG attribute values (host ABI). */
const HOST_ABI = { ulongSize: Deno.build.os === "windows" ? 4 : 8, packed: false } as const;
const ul = (v: number) => ulongBytes(HOST_ABI, v);

const ID_RE = /^pkcs11:serial=([^;]*);id=([0-9a-f]*)(?:;label=(.*))?$/;

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
 * const store = await openPkcs11KeyStore({ modulePath: "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so" });
 * const certs = await store.listCertificates();
 * ```
 */
export async function openPkcs11KeyStore(options: Pkcs11Options): Promise<Pkcs11KeyStore> {
  let api: Pkcs11Api;
  if (options.api) {
    api = options.api;
    const rv = api.C_Initialize();
    if (rv !== CKR.OK && rv !== CKR.CRYPTOKI_ALREADY_INITIALIZED) {
      throw rvError("C_Initialize", rv, "KEYSTORE_UNAVAILABLE", { modulePath: options.modulePath });
    }
  } else api = await acquire(options.modulePath);
  let open = true;
  /** Logged-in sessions by token serial (see loggedIn). */
  const kept = new Map<string, bigint>();
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(() => {
      if (!open) throw new AppError("KEYSTORE_UNAVAILABLE", "The PKCS#11 key store is closed");
      return fn();
    });
    queue = next.catch(() => undefined);
    return next;
  };
  const check = (fn: string, r: number, code: "KEYSTORE_UNAVAILABLE" | "SIGNING_FAILED") => {
    if (r !== CKR.OK) throw rvError(fn, r, code);
  };

  function tokens(): { slot: bigint; info: TokenInfo }[] {
    const { rv, slots } = api.C_GetSlotList(true);
    check("C_GetSlotList", rv, "KEYSTORE_UNAVAILABLE");
    const out: { slot: bigint; info: TokenInfo }[] = [];
    for (const slot of slots) {
      const t = api.C_GetTokenInfo(slot);
      if (t.rv !== CKR.OK || !t.info || !(t.info.flags & CKF.TOKEN_INITIALIZED)) continue;
      if (options.tokenLabel !== undefined && t.info.label !== options.tokenLabel) continue;
      out.push({ slot, info: t.info });
    }
    return out;
  }

  function find(session: bigint, template: AttributeSlot[]): bigint[] {
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

  function withSession<T>(slot: bigint, fn: (s: bigint) => Promise<T>): Promise<T> {
    const o = api.C_OpenSession(slot, CKF.SERIAL_SESSION);
    check("C_OpenSession", o.rv, "KEYSTORE_UNAVAILABLE");
    return fn(o.session).finally(() => api.C_CloseSession(o.session));
  }

  async function list(): Promise<CertificateInfo[]> {
    const out: CertificateInfo[] = [];
    for (const { slot, info } of tokens()) {
      // A token that cannot be read (removed, unrecognised) must not hide the others.
      await withSession(slot, (s) => {
        const certs = find(s, [
          { type: CKA.CLASS, value: ul(CKO.CERTIFICATE) },
          { type: CKA.CERTIFICATE_TYPE, value: ul(CKC_X_509) },
        ]);
        for (const h of certs) {
          const { rv, values } = api.C_GetAttributeValue(s, h, [CKA.VALUE, CKA.ID, CKA.LABEL]);
          if (rv !== CKR.OK || !values[0]) continue;
          const label = values[2] ? new TextDecoder().decode(values[2]) : "";
          const idHex = values[1] ? values[1].toHex() : "";
          const id = `pkcs11:serial=${info.serialNumber};id=${idHex}` +
            (idHex ? "" : `;label=${label}`);
          try {
            out.push(toCertificateInfo(values[0].slice(), id, label || info.label));
          } catch {
            // not a parsable X.509 certificate: skip it
          }
        }
        return Promise.resolve();
      }).catch((e) => {
        if (!isAppError(e) || e.code !== "KEYSTORE_UNAVAILABLE") throw e;
      });
    }
    return out;
  }

  async function login(s: bigint, slot: bigint, info: TokenInfo, pin: string | undefined) {
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

  async function signOnToken(certId: string, data: Uint8Array, pin?: string): Promise<Uint8Array> {
    const m = ID_RE.exec(certId);
    if (!m) throw new AppError("CERTIFICATE_INVALID", `Not a PKCS#11 certificate id: ${certId}`);
    const [, tokenSerial, idHex, label] = m;
    const tok = tokens().find((t) => t.info.serialNumber === tokenSerial);
    if (!tok) {
      throw new AppError(
        "KEYSTORE_UNAVAILABLE",
        `The token with serial ${tokenSerial} is not connected`,
      );
    }
    const s = await loggedIn(tok, pin);
    try {
      const keys = find(s, [
        { type: CKA.CLASS, value: ul(CKO.PRIVATE_KEY) },
        idHex
          ? { type: CKA.ID, value: Uint8Array.fromHex(idHex) }
          : { type: CKA.LABEL, value: new TextEncoder().encode(label ?? "") },
      ]);
      const [key] = keys;
      if (key === undefined) {
        throw new AppError(
          "CERTIFICATE_INVALID",
          "The token holds no private key for this certificate",
        );
      }
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
        const r = await api.C_Login(s, CKU.CONTEXT_SPECIFIC, pinBytes).finally(() =>
          pinBytes?.fill(0)
        );
        if (r !== CKR.OK) throw rvError("C_Login", r, "SIGNING_FAILED");
      }
      const res = await api.C_Sign(s, input, 1024);
      check("C_Sign", res.rv, "SIGNING_FAILED");
      const sig = res.signature.slice();
      return keyType === CKK.EC ? ecdsaRawToDer(sig) : sig;
    } catch (e) {
      // A session that failed (card pulled, session closed) is not kept: the next signature
      // opens and logs in again.
      drop(tok.info.serialNumber);
      throw e;
    }
  }

  /**
   * The token's logged-in session: opened and logged in (one C_Login attempt) by the first
   * signature, kept for the next ones until the store is closed — one PIN entry and one login
   * for a whole folder-wide filing (docs/signing.md § PKCS#11).
   */
  async function loggedIn(tok: { slot: bigint; info: TokenInfo }, pin: string | undefined) {
    const held = kept.get(tok.info.serialNumber);
    if (held !== undefined) return held;
    const o = api.C_OpenSession(tok.slot, CKF.SERIAL_SESSION);
    check("C_OpenSession", o.rv, "KEYSTORE_UNAVAILABLE");
    try {
      await login(o.session, tok.slot, tok.info, pin);
    } catch (e) {
      api.C_CloseSession(o.session);
      throw e;
    }
    kept.set(tok.info.serialNumber, o.session);
    return o.session;
  }

  function drop(serial: string): void {
    const s = kept.get(serial);
    if (s === undefined) return;
    kept.delete(serial);
    api.C_Logout(s);
    api.C_CloseSession(s);
  }

  return {
    kind: "pkcs11",
    listCertificates: () => serial(list),
    listTokens: () =>
      serial(() =>
        Promise.resolve(
          tokens().map(({ info }) => ({
            label: info.label,
            serialNumber: info.serialNumber,
            manufacturerId: info.manufacturerId,
            model: info.model,
            loginRequired: (info.flags & CKF.LOGIN_REQUIRED) !== 0,
            pinLocked: (info.flags & CKF.USER_PIN_LOCKED) !== 0,
            pinPad: (info.flags & CKF.PROTECTED_AUTHENTICATION_PATH) !== 0,
          })),
        )
      ),
    sign: (certId, data, pin) =>
      serial(async () => {
        try {
          return await signOnToken(certId, data, pin);
        } catch (e) {
          if (isAppError(e)) throw e;
          throw new AppError("SIGNING_FAILED", "Signing on the PKCS#11 token failed", {}, e);
        }
      }),
    close: () =>
      serial(() => {
        open = false;
        for (const sn of [...kept.keys()]) drop(sn);
        if (options.api) api.C_Finalize();
        else release(options.modulePath);
        return Promise.resolve();
      }).catch(() => undefined),
  };
}
