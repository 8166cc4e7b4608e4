/**
 * PKCS#11 without a module: struct layouts per OS, library header detection, loader message and
 * CK_RV mapping, and the key store's login/sign logic against a fake Pkcs11Api.
 */

import assert from "node:assert/strict";
import { isAppError } from "../../src/contract/errors.ts";
import {
  abiFor,
  type AttributeSlot,
  decodeTokenInfo,
  encodeTemplate,
  functionListOffset,
  templateLengths,
  ulongFromBytes,
} from "../../src/signing/pkcs11/abi.ts";
import {
  CKA,
  CKF,
  CKK,
  CKM,
  CKO,
  CKR,
  CKU,
  SHA256_DIGEST_INFO_PREFIX,
} from "../../src/signing/pkcs11/constants.ts";
import { classifyLoaderError, rvError } from "../../src/signing/pkcs11/errors.ts";
import type { Pkcs11Api } from "../../src/signing/pkcs11/ffi.ts";
import { openPkcs11KeyStore } from "../../src/signing/pkcs11/keystore.ts";
import { parseLibraryHeader } from "../../src/signing/pkcs11/library_header.ts";
import { makeCert } from "../_helpers/pki.ts";
import { nth } from "../_helpers/nth.ts";

Deno.test("encodeTemplate() lays out CK_ATTRIBUTE as 24 bytes on Linux and 16 packed bytes on Windows", () => {
  const slots: AttributeSlot[] = [{ type: CKA.ID, value: new Uint8Array([1, 2]) }, {
    type: CKA.VALUE,
    value: null,
  }];
  const linux = encodeTemplate(abiFor("linux"), slots);
  const win = encodeTemplate(abiFor("windows"), slots);
  assert.equal(linux.length, 48);
  assert.equal(win.length, 32);
  const dl = new DataView(linux.buffer), dw = new DataView(win.buffer);
  assert.equal(dl.getBigUint64(0, true), BigInt(CKA.ID));
  assert.notEqual(dl.getBigUint64(8, true), 0n); // pValue
  assert.equal(dl.getBigUint64(16, true), 2n);
  assert.equal(dl.getBigUint64(24 + 8, true), 0n); // null pValue of the second
  assert.equal(dw.getUint32(0, true), CKA.ID);
  assert.equal(dw.getBigUint64(4, true), dl.getBigUint64(8, true)); // same buffer address
  assert.equal(dw.getUint32(12, true), 2);
  assert.equal(dw.getUint32(16, true), CKA.VALUE);
  dl.setBigUint64(24 + 16, 0xffffffffffffffffn, true);
  assert.deepEqual(templateLengths(abiFor("linux"), linux, 2), [2, undefined]);
});

Deno.test("functionListOffset() and decodeTokenInfo() follow each ABI", () => {
  assert.equal(functionListOffset(abiFor("linux"), 0), 8);
  assert.equal(functionListOffset(abiFor("linux"), 43), 8 + 43 * 8);
  assert.equal(functionListOffset(abiFor("windows"), 0), 2);
  const buf = new Uint8Array(256).fill(0x20);
  buf.set(new TextEncoder().encode("QES card"), 0);
  buf.set(new TextEncoder().encode("1234ABCD"), 80);
  new DataView(buf.buffer).setBigUint64(
    96,
    BigInt(CKF.USER_PIN_LOCKED | CKF.TOKEN_INITIALIZED),
    true,
  );
  const info = decodeTokenInfo(abiFor("linux"), buf);
  assert.equal(info.label, "QES card");
  assert.equal(info.serialNumber, "1234ABCD");
  assert.equal(info.flags, CKF.USER_PIN_LOCKED | CKF.TOKEN_INITIALIZED);
  assert.equal(ulongFromBytes(new Uint8Array([3, 0, 0, 0])), 3);
});

Deno.test("parseLibraryHeader() recognises ELF, Mach-O (thin and universal) and PE architectures", () => {
  const elf = new Uint8Array(64);
  elf.set([0x7f, 0x45, 0x4c, 0x46, 2, 1]);
  elf[18] = 62;
  assert.deepEqual(parseLibraryHeader(elf), { format: "elf", archs: ["x86_64"], bits: 64 });
  const macho = new Uint8Array(32);
  new DataView(macho.buffer).setUint32(0, 0xfeedfacf, true);
  new DataView(macho.buffer).setUint32(4, 0x0100000c, true);
  assert.deepEqual(parseLibraryHeader(macho), { format: "macho", archs: ["aarch64"] });
  const fat = new Uint8Array(64);
  const fv = new DataView(fat.buffer);
  fv.setUint32(0, 0xcafebabe);
  fv.setUint32(4, 2);
  fv.setUint32(8, 0x01000007);
  fv.setUint32(28, 0x0100000c);
  assert.deepEqual(parseLibraryHeader(fat).archs, ["x86_64", "aarch64"]);
  const pe = new Uint8Array(256);
  pe.set([0x4d, 0x5a]);
  new DataView(pe.buffer).setUint32(0x3c, 0x80, true);
  pe.set([0x50, 0x45, 0, 0, 0x4c, 0x01], 0x80); // PE, i386 (a 32-bit DLL from SysWOW64)
  assert.deepEqual(parseLibraryHeader(pe), { format: "pe", archs: ["x86"] });
  assert.equal(parseLibraryHeader(new TextEncoder().encode("#!/bin/sh\n")).format, "unknown");
});

Deno.test("classifyLoaderError() maps Linux, macOS and Windows loader messages", () => {
  const table: [string, string][] = [
    ["x.so: wrong ELF class: ELFCLASS32", "PKCS11_MODULE_WRONG_ARCH"],
    [
      "dlopen(x.dylib, 0x0001): tried: 'x.dylib' (mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64e'))",
      "PKCS11_MODULE_WRONG_ARCH",
    ],
    [
      "dlopen(x.dylib, 1): no suitable image found. Did find: x.dylib: mach-o, but wrong architecture",
      "PKCS11_MODULE_WRONG_ARCH",
    ],
    [
      "Could not open library: %1 is not a valid Win32 application. (os error 193)",
      "PKCS11_MODULE_WRONG_ARCH",
    ],
    ["x.so: cannot open shared object file: No such file or directory", "PKCS11_MODULE_MISSING"],
    [
      "Could not open library: The specified module could not be found. (os error 126)",
      "PKCS11_MODULE_MISSING",
    ],
    ["dlopen(x.dylib, 1): image not found", "PKCS11_MODULE_MISSING"],
    ["x.so: invalid ELF header", "KEYSTORE_UNAVAILABLE"],
    [
      "Failed to register symbol C_GetFunctionList: x.so: undefined symbol: C_GetFunctionList",
      "KEYSTORE_UNAVAILABLE",
    ],
    ["something else entirely", "KEYSTORE_UNAVAILABLE"],
  ];
  for (const [msg, code] of table) assert.equal(classifyLoaderError("/m", msg).code, code, msg);
});

Deno.test("rvError() maps PIN and token return values", () => {
  const table: [number, string][] = [
    [CKR.PIN_INCORRECT, "PIN_INCORRECT"],
    [CKR.PIN_LEN_RANGE, "PIN_INCORRECT"],
    [CKR.PIN_LOCKED, "PIN_LOCKED"],
    [CKR.TOKEN_NOT_PRESENT, "KEYSTORE_UNAVAILABLE"],
    [CKR.FUNCTION_CANCELED, "KEYSTORE_UNAVAILABLE"],
    [CKR.GENERAL_ERROR, "SIGNING_FAILED"],
  ];
  for (const [rv, code] of table) assert.equal(rvError("C_Sign", rv, "SIGNING_FAILED").code, code);
  assert.equal(rvError("C_Login", CKR.PIN_LOCKED, "SIGNING_FAILED").details?.rv, "CKR_PIN_LOCKED");
});

/** A one-token fake: certificate id 01 (RSA by default) with a private key. */
class FakeToken implements Pkcs11Api {
  calls: string[] = [];
  flags = CKF.TOKEN_INITIALIZED | CKF.LOGIN_REQUIRED | CKF.USER_PIN_INITIALIZED;
  loginRv: number = CKR.OK;
  keyType: number = CKK.RSA;
  alwaysAuth = false;
  mechanisms = new Set<number>([CKM.SHA256_RSA_PKCS, CKM.RSA_PKCS, CKM.ECDSA]);
  pins: (string | null)[] = [];
  signed: { mech: number; data: Uint8Array }[] = [];
  #mech = 0;
  #find: number | undefined;
  constructor(readonly certDer: Uint8Array) {}
  C_Initialize = () => CKR.OK;
  C_Finalize = () => CKR.OK;
  C_GetSlotList = () => ({ rv: CKR.OK, slots: [7n] });
  C_GetTokenInfo = () => ({
    rv: CKR.OK,
    info: {
      label: "card",
      manufacturerId: "x",
      model: "m",
      serialNumber: "SN1",
      flags: this.flags,
    },
  });
  C_OpenSession = () => ({ rv: CKR.OK, session: 1n });
  C_CloseSession = () => CKR.OK;
  C_Login = (_s: bigint, u: number, pin: Uint8Array | null) => {
    this.calls.push(`C_Login(${u})`);
    this.pins.push(pin ? new TextDecoder().decode(pin) : null);
    return Promise.resolve(this.loginRv);
  };
  C_Logout = () => CKR.OK;
  C_FindObjectsInit = (_s: bigint, t: readonly AttributeSlot[]) => {
    this.#find = ulongFromBytes(t.find((a) => a.type === CKA.CLASS)!.value!);
    return CKR.OK;
  };
  C_FindObjects = () => {
    const objects = this.#find === CKO.CERTIFICATE
      ? [10n]
      : this.#find === CKO.PRIVATE_KEY
      ? [20n]
      : [];
    this.#find = undefined;
    return { rv: CKR.OK, objects };
  };
  C_FindObjectsFinal = () => CKR.OK;
  C_GetAttributeValue = (_s: bigint, o: bigint, types: readonly number[]) => ({
    rv: CKR.OK,
    values: types.map((t) => {
      if (o === 10n && t === CKA.VALUE) return this.certDer;
      if (t === CKA.ID) return new Uint8Array([1]);
      if (t === CKA.KEY_TYPE) return new Uint8Array([this.keyType, 0, 0, 0, 0, 0, 0, 0]);
      if (t === CKA.ALWAYS_AUTHENTICATE) return new Uint8Array([this.alwaysAuth ? 1 : 0]);
      return undefined;
    }),
  });
  C_SignInit = (_s: bigint, m: number) => {
    this.calls.push(`C_SignInit(${m})`);
    this.#mech = m;
    return this.mechanisms.has(m) ? CKR.OK : CKR.MECHANISM_INVALID;
  };
  C_Sign = (_s: bigint, data: Uint8Array) => {
    this.signed.push({ mech: this.#mech, data: data.slice() });
    return Promise.resolve({ rv: CKR.OK, signature: new Uint8Array(64).fill(1) });
  };
  unload = () => {};
}

const cert = await makeCert({ subject: "CN=Fake", kind: "EC-P256" });
async function withFake(setup: (f: FakeToken) => void) {
  const fake = new FakeToken(cert.der);
  setup(fake);
  const store = await openPkcs11KeyStore({ modulePath: "/fake", api: fake });
  const c = nth(await store.listCertificates());
  return { fake, store, id: c.id };
}
async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "resolved";
  } catch (e) {
    assert.ok(isAppError(e), String(e));
    return e.code;
  }
}

Deno.test("Pkcs11 store: a token flagged USER_PIN_LOCKED → PIN_LOCKED without any C_Login", async () => {
  const { fake, store, id } = await withFake((f) => (f.flags |= CKF.USER_PIN_LOCKED));
  assert.equal(await codeOf(store.sign(id, new Uint8Array(1), "1234")), "PIN_LOCKED");
  assert.deepEqual(fake.calls, []);
});

Deno.test("Pkcs11 store: C_Login → CKR_PIN_LOCKED gives PIN_LOCKED after one attempt", async () => {
  const { fake, store, id } = await withFake((f) => (f.loginRv = CKR.PIN_LOCKED));
  assert.equal(await codeOf(store.sign(id, new Uint8Array(1), "1234")), "PIN_LOCKED");
  assert.deepEqual(fake.calls, [`C_Login(${CKU.USER})`]);
});

Deno.test("Pkcs11 store: RSA without CKM_SHA256_RSA_PKCS falls back to CKM_RSA_PKCS + DigestInfo", async () => {
  const { fake, store, id } = await withFake((f) => {
    f.keyType = CKK.RSA;
    f.mechanisms.delete(CKM.SHA256_RSA_PKCS);
  });
  await store.sign(id, new TextEncoder().encode("abc"), "1234");
  assert.equal(nth(fake.signed).mech, CKM.RSA_PKCS);
  assert.deepEqual(nth(fake.signed).data.subarray(0, 19), SHA256_DIGEST_INFO_PREFIX);
  assert.equal(nth(fake.signed).data.length, 19 + 32);
  assert.equal(fake.calls.filter((c) => c.startsWith("C_Login")).length, 1);
});

Deno.test("Pkcs11 store: EC signs the SHA-256 digest with CKM_ECDSA and returns DER", async () => {
  const { fake, store, id } = await withFake((f) => (f.keyType = CKK.EC));
  const sig = await store.sign(id, new TextEncoder().encode("abc"), "1234");
  assert.equal(nth(fake.signed).mech, CKM.ECDSA);
  assert.equal(nth(fake.signed).data.length, 32);
  assert.equal(sig[0], 0x30);
});

Deno.test("Pkcs11 store: CKA_ALWAYS_AUTHENTICATE adds a context-specific login after C_SignInit", async () => {
  const { fake, store, id } = await withFake((f) => (f.alwaysAuth = true));
  await store.sign(id, new Uint8Array(1), "1234");
  assert.deepEqual(fake.calls, [
    `C_Login(${CKU.USER})`,
    `C_SignInit(${CKM.SHA256_RSA_PKCS})`,
    `C_Login(${CKU.CONTEXT_SPECIFIC})`,
  ]);
});

Deno.test("Pkcs11 store: PIN pad tokens log in with a null PIN; others need a PIN", async () => {
  const pad = await withFake((f) => (f.flags |= CKF.PROTECTED_AUTHENTICATION_PATH));
  await pad.store.sign(pad.id, new Uint8Array(1));
  assert.deepEqual(pad.fake.pins, [null]);
  const plain = await withFake(() => {});
  assert.equal(await codeOf(plain.store.sign(plain.id, new Uint8Array(1))), "PIN_INCORRECT");
  assert.deepEqual(plain.fake.calls, []);
  await plain.store.close();
  assert.equal(await codeOf(plain.store.listCertificates()), "KEYSTORE_UNAVAILABLE");
});

Deno.test("Pkcs11 store: unknown ids and absent tokens are reported", async () => {
  const { store } = await withFake(() => {});
  assert.equal(await codeOf(store.sign("nope", new Uint8Array(1), "1")), "CERTIFICATE_INVALID");
  assert.equal(
    await codeOf(store.sign("pkcs11:serial=OTHER;id=01", new Uint8Array(1), "1")),
    "KEYSTORE_UNAVAILABLE",
  );
});

Deno.test("Pkcs11 store: one C_Login for many signatures; close() logs out and closes the session", async () => {
  const { fake, store, id } = await withFake(() => {});
  let closed = 0;
  let logouts = 0;
  fake.C_CloseSession = () => (closed++, CKR.OK);
  fake.C_Logout = () => (logouts++, CKR.OK);
  for (let i = 0; i < 5; i++) await store.sign(id, new Uint8Array([i]), "1234");
  assert.equal(fake.calls.filter((c) => c.startsWith("C_Login")).length, 1);
  assert.equal(fake.signed.length, 5);
  assert.equal(logouts, 0, "the session stays logged in while the store is open");
  await store.close();
  assert.equal(logouts, 1);
  assert.ok(closed >= 1);
});

Deno.test("Pkcs11 store: a failed signature drops the session; the next one logs in again", async () => {
  const { fake, store, id } = await withFake(() => {});
  await store.sign(id, new Uint8Array(1), "1234");
  fake.mechanisms.clear();
  assert.equal(await codeOf(store.sign(id, new Uint8Array(1), "1234")), "SIGNING_FAILED");
  fake.mechanisms.add(CKM.SHA256_RSA_PKCS);
  await store.sign(id, new Uint8Array(1), "1234");
  assert.equal(fake.calls.filter((c) => c.startsWith("C_Login")).length, 2);
});
