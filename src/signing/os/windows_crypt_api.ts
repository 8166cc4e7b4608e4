/**
 * The Windows certificate store through the Windows API (`Deno.dlopen`, as the PKCS#11 code
 * does): `crypt32.dll` (stores, certificates, `CryptAcquireCertificatePrivateKey`,
 * `CertAddEncodedCertificateToStore`), `ncrypt.dll` (`NCryptSignHash`, CNG keys), `advapi32.dll`
 * (`CryptAcquireContextW`, `CryptCreateHash`, `CryptSignHashW`, CryptoAPI keys). Only the raw
 * calls live here ({@link WinCryptOps}); the decisions (which key, which path, which error) are
 * in windows_store.ts, where a unit test drives them with an injected implementation.
 * Constants: wincrypt.h, ncrypt.h, bcrypt.h.
 * @module
 */

import {
  AT_KEYEXCHANGE,
  AT_SIGNATURE,
  CERT_NCRYPT_KEY_SPEC,
  CRYPT_MACHINE_KEYSET,
  type KeyProvInfo,
  type RawCert,
  WinCallError,
  type WinCryptOps,
} from "./windows_crypt_types.ts";

export * from "./windows_crypt_types.ts";

const ENCODING = 0x00010001; // X509_ASN_ENCODING | PKCS_7_ASN_ENCODING
const CERT_STORE_PROV_SYSTEM_W = 10n;
const CERT_SYSTEM_STORE_CURRENT_USER = 0x10000;
const CERT_SYSTEM_STORE_LOCAL_MACHINE = 0x20000;
const CERT_STORE_READONLY_FLAG = 0x8000;
const CERT_STORE_OPEN_EXISTING_FLAG = 0x4000;
const CERT_STORE_ADD_REPLACE_EXISTING = 3;
const CERT_KEY_PROV_INFO_PROP_ID = 2;
const CERT_FRIENDLY_NAME_PROP_ID = 11;
const CRYPT_ACQUIRE_CACHE_FLAG = 0x1;
const CRYPT_ACQUIRE_ALLOW_NCRYPT_KEY_FLAG = 0x10000;
const CALG_SHA_256 = 0x800c;
const HP_HASHVAL = 2;
const BCRYPT_PAD_PKCS1 = 2;

const CRYPT32 = {
  CertOpenStore: {
    parameters: ["pointer", "u32", "pointer", "u32", "buffer"],
    result: "pointer",
  },
  CertCloseStore: { parameters: ["pointer", "u32"], result: "i32" },
  CertEnumCertificatesInStore: { parameters: ["pointer", "pointer"], result: "pointer" },
  CertFreeCertificateContext: { parameters: ["pointer"], result: "i32" },
  CertGetCertificateContextProperty: {
    parameters: ["pointer", "u32", "buffer", "buffer"],
    result: "i32",
  },
  CertAddEncodedCertificateToStore: {
    parameters: ["pointer", "u32", "buffer", "u32", "u32", "pointer"],
    result: "i32",
  },
  CryptAcquireCertificatePrivateKey: {
    parameters: ["pointer", "u32", "pointer", "buffer", "buffer", "buffer"],
    result: "i32",
  },
} as const;
const ADVAPI32 = {
  CryptAcquireContextW: {
    parameters: ["buffer", "buffer", "buffer", "u32", "u32"],
    result: "i32",
  },
  CryptReleaseContext: { parameters: ["usize", "u32"], result: "i32" },
  CryptCreateHash: { parameters: ["usize", "u32", "usize", "u32", "buffer"], result: "i32" },
  CryptSetHashParam: { parameters: ["usize", "u32", "buffer", "u32"], result: "i32" },
  CryptSignHashW: {
    parameters: ["usize", "u32", "pointer", "u32", "buffer", "buffer"],
    result: "i32",
  },
  CryptDestroyHash: { parameters: ["usize"], result: "i32" },
  CryptGetUserKey: { parameters: ["usize", "u32", "buffer"], result: "i32" },
  CryptDestroyKey: { parameters: ["usize"], result: "i32" },
} as const;
const NCRYPT = {
  NCryptSignHash: {
    parameters: ["usize", "buffer", "buffer", "u32", "buffer", "u32", "buffer", "u32"],
    result: "i32",
  },
  NCryptFreeObject: { parameters: ["usize"], result: "i32" },
} as const;
const KERNEL32 = { GetLastError: { parameters: [], result: "u32" } } as const;

interface Libs {
  c: Deno.DynamicLibrary<typeof CRYPT32>["symbols"];
  a: Deno.DynamicLibrary<typeof ADVAPI32>["symbols"];
  n: Deno.DynamicLibrary<typeof NCRYPT>["symbols"];
  k: Deno.DynamicLibrary<typeof KERNEL32>["symbols"];
}
let libs: Libs | null = null;
function load(): Libs {
  libs ??= {
    c: Deno.dlopen("crypt32.dll", CRYPT32).symbols,
    a: Deno.dlopen("advapi32.dll", ADVAPI32).symbols,
    n: Deno.dlopen("ncrypt.dll", NCRYPT).symbols,
    k: Deno.dlopen("kernel32.dll", KERNEL32).symbols,
  };
  return libs;
}

/** NUL-terminated UTF-16LE. */
function wide(s: string): Uint16Array {
  const out = new Uint16Array(s.length + 1);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** A NUL-terminated UTF-16 string at a pointer. */
function readWide(p: Deno.PointerValue): string {
  if (p === null) return "";
  const view = new Deno.UnsafePointerView(p);
  let s = "";
  for (let i = 0; i < 32768; i += 2) {
    const c = view.getUint16(i);
    if (c === 0) break;
    s += String.fromCharCode(c);
  }
  return s;
}

function fail(l: Libs, call: string): never {
  throw new WinCallError(call, l.k.GetLastError());
}

function openStore(l: Libs, name: string, where: number, readOnly: boolean): Deno.PointerObject {
  const flags = where | (readOnly ? CERT_STORE_READONLY_FLAG | CERT_STORE_OPEN_EXISTING_FLAG : 0);
  const s = l.c.CertOpenStore(
    Deno.UnsafePointer.create(CERT_STORE_PROV_SYSTEM_W),
    0,
    null,
    flags,
    wide(name),
  );
  if (s === null) fail(l, `CertOpenStore(${name})`);
  return s;
}

/** The DER bytes of a CERT_CONTEXT (pbCertEncoded at 8, cbCertEncoded at 16). */
function contextDer(ctx: Deno.PointerObject): Uint8Array {
  const v = new Deno.UnsafePointerView(ctx);
  const p = v.getPointer(8);
  const n = v.getUint32(16);
  return p === null
    ? new Uint8Array()
    : new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(p, n).slice(0));
}

function property(l: Libs, ctx: Deno.PointerObject, id: number): Uint8Array | null {
  const cb = new Uint32Array(1);
  if (!l.c.CertGetCertificateContextProperty(ctx, id, null, cb)) return null;
  // non-null: a one-element array
  const buf = new Uint8Array(cb[0]!);
  if (!l.c.CertGetCertificateContextProperty(ctx, id, buf, cb)) return null;
  return buf;
}

/** CRYPT_KEY_PROV_INFO (x64 layout): pointers at 0 and 8, DWORDs at 16, 20, 24, 40. */
function provInfo(buf: Uint8Array): KeyProvInfo {
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const ptr = (o: number) => Deno.UnsafePointer.create(v.getBigUint64(o, true));
  return {
    container: readWide(ptr(0)),
    provider: readWide(ptr(8)),
    provType: v.getUint32(16, true),
    flags: v.getUint32(20, true),
    keySpec: v.getUint32(40, true),
  };
}

function friendlyName(buf: Uint8Array | null): string | undefined {
  if (!buf || buf.length < 2) return undefined;
  const s = new TextDecoder("utf-16le").decode(buf).replace(/\0+$/, "");
  return s || undefined;
}

const where = (location: "CurrentUser" | "LocalMachine") =>
  location === "CurrentUser" ? CERT_SYSTEM_STORE_CURRENT_USER : CERT_SYSTEM_STORE_LOCAL_MACHINE;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The real Windows calls (Windows only: the first call throws where the DLLs do not exist). */
export const win32CryptOps: WinCryptOps = {
  listMy(location) {
    const l = load();
    const store = openStore(l, "MY", where(location), true);
    const out: RawCert[] = [];
    try {
      let ctx: Deno.PointerValue = null;
      while ((ctx = l.c.CertEnumCertificatesInStore(store, ctx)) !== null) {
        const info = property(l, ctx, CERT_KEY_PROV_INFO_PROP_ID);
        out.push({
          der: contextDer(ctx),
          friendlyName: friendlyName(property(l, ctx, CERT_FRIENDLY_NAME_PROP_ID)),
          ...(info ? { provInfo: provInfo(info) } : {}),
        });
      }
    } finally {
      l.c.CertCloseStore(store, 0);
    }
    return out;
  },
  acquire(location, der) {
    const l = load();
    const store = openStore(l, "MY", where(location), true);
    try {
      let ctx: Deno.PointerValue = null;
      while ((ctx = l.c.CertEnumCertificatesInStore(store, ctx)) !== null) {
        if (!sameBytes(contextDer(ctx), der)) continue;
        const h = new BigUint64Array(1);
        const spec = new Uint32Array(1);
        const callerFree = new Int32Array(1);
        const ok = l.c.CryptAcquireCertificatePrivateKey(
          ctx,
          CRYPT_ACQUIRE_CACHE_FLAG | CRYPT_ACQUIRE_ALLOW_NCRYPT_KEY_FLAG,
          null,
          h,
          spec,
          callerFree,
        );
        if (!ok) {
          const code = l.k.GetLastError();
          l.c.CertFreeCertificateContext(ctx);
          throw new WinCallError("CryptAcquireCertificatePrivateKey", code);
        }
        l.c.CertFreeCertificateContext(ctx);
        // non-null: one-element arrays
        const keySpec = spec[0]!;
        // non-null: a one-element array
        const handle = h[0]!;
        return {
          handle,
          keySpec,
          free() {
            if (!callerFree[0]) return;
            if (keySpec === CERT_NCRYPT_KEY_SPEC) l.n.NCryptFreeObject(handle);
            else l.a.CryptReleaseContext(handle, 0);
          },
        };
      }
      throw new WinCallError("CertEnumCertificatesInStore", 0x80092004); // CRYPT_E_NOT_FOUND
    } finally {
      l.c.CertCloseStore(store, 0);
    }
  },
  ncryptSign(handle, hash, rsa) {
    const l = load();
    const alg = wide("SHA256");
    const padding = rsa
      ? new BigUint64Array([BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(alg)))])
      : null;
    const cb = new Uint32Array(1);
    let st = l.n.NCryptSignHash(
      handle,
      padding,
      hash,
      hash.length,
      null,
      0,
      cb,
      rsa ? BCRYPT_PAD_PKCS1 : 0,
    );
    if (st !== 0) throw new WinCallError("NCryptSignHash", st);
    // non-null: a one-element array
    const sig = new Uint8Array(cb[0]!);
    st = l.n.NCryptSignHash(
      handle,
      padding,
      hash,
      hash.length,
      sig,
      sig.length,
      cb,
      rsa ? BCRYPT_PAD_PKCS1 : 0,
    );
    if (st !== 0) throw new WinCallError("NCryptSignHash", st);
    void alg; // kept alive until here: the padding info points into it
    // non-null: a one-element array
    return sig.slice(0, cb[0]!);
  },
  capiSign(handle, keySpec, hash) {
    const l = load();
    const hh = new BigUint64Array(1);
    if (!l.a.CryptCreateHash(handle, CALG_SHA_256, 0n, 0, hh)) {
      fail(l, "CryptCreateHash(CALG_SHA_256)");
    }
    // non-null: a one-element array
    const hHash = hh[0]!;
    try {
      if (!l.a.CryptSetHashParam(hHash, HP_HASHVAL, hash, 0)) {
        fail(l, "CryptSetHashParam(HP_HASHVAL)");
      }
      const cb = new Uint32Array(1);
      if (!l.a.CryptSignHashW(hHash, keySpec, null, 0, null, cb)) fail(l, "CryptSignHashW");
      // non-null: a one-element array
      const sig = new Uint8Array(cb[0]!);
      if (!l.a.CryptSignHashW(hHash, keySpec, null, 0, sig, cb)) fail(l, "CryptSignHashW");
      // non-null: a one-element array
      return sig.slice(0, cb[0]!);
    } finally {
      l.a.CryptDestroyHash(hHash);
    }
  },
  capiKeySpecs(handle) {
    const l = load();
    const specs: number[] = [];
    for (const spec of [AT_KEYEXCHANGE, AT_SIGNATURE]) {
      const k = new BigUint64Array(1);
      if (l.a.CryptGetUserKey(handle, spec, k)) {
        specs.push(spec);
        // non-null: a one-element array
        l.a.CryptDestroyKey(k[0]!);
      }
    }
    return specs;
  },
  capiOpen(info, provType) {
    const l = load();
    const h = new BigUint64Array(1);
    const ok = l.a.CryptAcquireContextW(
      h,
      wide(info.container),
      null,
      provType,
      info.flags & CRYPT_MACHINE_KEYSET,
    );
    if (!ok) fail(l, `CryptAcquireContextW(type ${provType})`);
    // non-null: a one-element array
    const handle = h[0]!;
    return { handle, keySpec: info.keySpec, free: () => void l.a.CryptReleaseContext(handle, 0) };
  },
  addToUserRoot(der) {
    const l = load();
    const store = openStore(l, "Root", CERT_SYSTEM_STORE_CURRENT_USER, false);
    try {
      const ok = l.c.CertAddEncodedCertificateToStore(
        store,
        ENCODING,
        der,
        der.length,
        CERT_STORE_ADD_REPLACE_EXISTING,
        null,
      );
      if (!ok) fail(l, "CertAddEncodedCertificateToStore(Root)");
    } finally {
      l.c.CertCloseStore(store, 0);
    }
  },
  userRootHas(der) {
    const l = load();
    const store = openStore(l, "Root", CERT_SYSTEM_STORE_CURRENT_USER, true);
    try {
      let ctx: Deno.PointerValue = null;
      while ((ctx = l.c.CertEnumCertificatesInStore(store, ctx)) !== null) {
        if (sameBytes(contextDer(ctx), der)) {
          l.c.CertFreeCertificateContext(ctx);
          return true;
        }
      }
      return false;
    } finally {
      l.c.CertCloseStore(store, 0);
    }
  },
};
