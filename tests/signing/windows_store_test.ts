/**
 * The Windows certificate store's decisions (src/signing/os/windows_store.ts) over injected
 * Windows calls that answer as Windows and Wine do: a CNG key (NCryptSignHash, RSA and EC), a
 * CryptoAPI key on a PROV_RSA_FULL handle (NTE_BAD_ALGID, then the container reopened with
 * PROV_RSA_AES), Wine 8's handle with key spec 3, smart-card codes, LocalMachine unreadable,
 * and the Root store read back. The signatures are real (the test key signs the hash) and are
 * verified with WebCrypto. The real calls run under Wine in tests/windows/win32_api_test.ts.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { constants, createPrivateKey, privateEncrypt } from "node:crypto";
import { isAppError } from "../../src/contract/errors.ts";
import { digest } from "../../src/signing/bytes.ts";
import {
  type AcquiredKey,
  type KeyProvInfo,
  NTE_BAD_ALGID,
  PROV_RSA_AES,
  type RawCert,
  WinCallError,
  type WinCryptOps,
} from "../../src/signing/os/windows_crypt_api.ts";
import { openWindowsCertStore, trustInWindowsRoot } from "../../src/signing/os/windows_store.ts";
import { makeCert, type TestCert } from "../_helpers/pki.ts";

const rsa = await makeCert({ subject: "CN=Иван Петров, 2.5.4.5=PNOBG-8001010008, C=BG" });
const ec = await makeCert({ subject: "CN=EC Person, C=BG", kind: "EC-P256" });
const thumb = async (c: TestCert) => (await digest(c.der, "SHA-1")).toHex().toUpperCase();
const SHA256_DIGEST_INFO = Uint8Array.fromHex("3031300d060960864801650304020105000420");

async function pkcs8(c: TestCert) {
  const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", c.keys.privateKey));
  return createPrivateKey({ key: Buffer.from(der), format: "der", type: "pkcs8" });
}
const rsaKey = await pkcs8(rsa);
/** PKCS#1 v1.5 over a SHA-256 hash (what a key does with a hash it is given). */
const rsaSignHash = (hash: Uint8Array) =>
  new Uint8Array(
    privateEncrypt(
      { key: rsaKey, padding: constants.RSA_PKCS1_PADDING },
      new Uint8Array([...SHA256_DIGEST_INFO, ...hash]),
    ),
  );

async function verifies(c: TestCert, data: Uint8Array, sig: Uint8Array): Promise<boolean> {
  const alg = c.kind === "RSA" ? { name: "RSASSA-PKCS1-v1_5" } : { name: "ECDSA", hash: "SHA-256" };
  const pub = c.keys.publicKey;
  if (c.kind === "RSA") {
    return crypto.subtle.verify(alg, pub, sig as BufferSource, data as BufferSource);
  }
  // WebCrypto wants r||s; the store returns DER.
  const { ecdsaDerToRaw } = await import("../../src/signing/ecdsa_signature.ts");
  return crypto.subtle.verify(
    alg,
    pub,
    ecdsaDerToRaw(sig, 32) as BufferSource,
    data as BufferSource,
  );
}

const capiInfo = (keySpec: number, provType = 1): KeyProvInfo => ({
  container: "{le-container}",
  provider: "Microsoft Enhanced Cryptographic Provider v1.0",
  provType,
  flags: 0,
  keySpec,
});

const data = new TextEncoder().encode("signed attributes of a D1 file");
const dataHash = await digest(data, "SHA-256");
const ecRaw = new Uint8Array(
  await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, ec.keys.privateKey, data),
);

/** Injected calls: `answers` decides what acquire gives and how each call behaves. */
function fakeOps(o: {
  certs: RawCert[];
  acquire?: (der: Uint8Array) => { keySpec: number; handle?: bigint };
  capiFails?: (handle: bigint) => number | null;
  machineFails?: boolean;
  ncryptFails?: number;
  root?: { keeps: boolean };
  /** The key pairs the container holds (default AT_KEYEXCHANGE). */
  held?: number[];
}) {
  const calls: string[] = [];
  const freed: bigint[] = [];
  const rootStore: Uint8Array[] = [];
  const key = (handle: bigint, keySpec: number): AcquiredKey => ({
    handle,
    keySpec,
    free: () => void freed.push(handle),
  });
  const ops: WinCryptOps = {
    listMy(location) {
      calls.push(`listMy ${location}`);
      if (location === "LocalMachine" && o.machineFails) {
        throw new WinCallError("CertOpenStore(MY)", 5);
      }
      return location === "CurrentUser" ? o.certs : [];
    },
    acquire(_location, der) {
      calls.push("acquire");
      const a = o.acquire?.(der) ?? { keySpec: 0xFFFFFFFF };
      return key(a.handle ?? 1n, a.keySpec);
    },
    ncryptSign(_h, hash, isRsa) {
      calls.push(`ncryptSign ${isRsa ? "RSA" : "EC"}`);
      if (o.ncryptFails) throw new WinCallError("NCryptSignHash", o.ncryptFails);
      if (isRsa) return rsaSignHash(hash);
      // NCrypt's EC signature is r||s over the hash: made here from the data the hash is of.
      assert.deepEqual(hash, dataHash);
      return ecRaw;
    },
    capiSign(handle, keySpec, hash) {
      calls.push(`capiSign ${handle} spec ${keySpec}`);
      const fails = o.capiFails?.(handle);
      if (fails) throw new WinCallError("CryptCreateHash(CALG_SHA_256)", fails);
      return rsaSignHash(hash).reverse(); // CryptoAPI: little-endian
    },
    capiKeySpecs(handle) {
      calls.push(`capiKeySpecs ${handle}`);
      return o.held ?? [1];
    },
    capiOpen(info, provType) {
      calls.push(`capiOpen ${info.container} type ${provType}`);
      return key(2n, info.keySpec);
    },
    addToUserRoot(der) {
      calls.push("addToUserRoot");
      if (o.root?.keeps) rootStore.push(der);
    },
    userRootHas(der) {
      calls.push("userRootHas");
      return rootStore.some((d) => d.length === der.length && d.every((b, i) => b === der[i]));
    },
  };
  return { ops, calls, freed };
}

async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof p === "function" ? p() : p);
    return "resolved";
  } catch (e) {
    assert.ok(isAppError(e), String(e));
    return e.code;
  }
}

Deno.test("lists the certificates with a key, CurrentUser then LocalMachine (skipped when unreadable)", async () => {
  const f = fakeOps({
    certs: [
      { der: rsa.der, friendlyName: "Иван", provInfo: capiInfo(1) },
      { der: ec.der }, // no private key here
    ],
    machineFails: true,
  });
  const list = await openWindowsCertStore({ ops: f.ops }).listCertificates();
  assert.deepEqual(list.map((c) => c.id), [`windows:CurrentUser/My/${await thumb(rsa)}`]);
  assert.equal(list[0]!.label, "Иван");
  assert.equal(list[0]!.personalId, "PNOBG-8001010008");
  assert.deepEqual(f.calls, ["listMy CurrentUser", "listMy LocalMachine"]);
  // Asked for explicitly, an unreadable LocalMachine is an error naming the call.
  const only = openWindowsCertStore({ ops: f.ops, locations: ["LocalMachine"] });
  assert.equal(await codeOf(only.listCertificates()), "KEYSTORE_UNAVAILABLE");
});

Deno.test("a CNG key signs through NCryptSignHash: RSA as is, EC r||s as DER", async () => {
  for (const c of [rsa, ec]) {
    const f = fakeOps({ certs: [{ der: c.der, provInfo: { ...capiInfo(0, 0) } }] });
    const store = openWindowsCertStore({ ops: f.ops });
    const sig = await store.sign(`windows:CurrentUser/My/${await thumb(c)}`, data);
    assert.ok(await verifies(c, data, sig), c.kind);
    assert.deepEqual(f.calls.slice(-2), [
      "acquire",
      `ncryptSign ${c.kind === "RSA" ? "RSA" : "EC"}`,
    ]);
    assert.deepEqual(f.freed, [1n]);
  }
});

Deno.test("a CryptoAPI key on a PROV_RSA_FULL handle: NTE_BAD_ALGID, the container reopened with PROV_RSA_AES, bytes reversed", async () => {
  const f = fakeOps({
    certs: [{ der: rsa.der, provInfo: capiInfo(1) }],
    acquire: () => ({ keySpec: 1, handle: 7n }),
    capiFails: (h) => (h === 7n ? NTE_BAD_ALGID : null),
  });
  const sig = await openWindowsCertStore({ ops: f.ops }).sign(await thumb(rsa), data);
  assert.ok(await verifies(rsa, data, sig));
  assert.deepEqual(f.calls.slice(-4), [
    "acquire",
    "capiSign 7 spec 1",
    `capiOpen {le-container} type ${PROV_RSA_AES}`,
    "capiSign 2 spec 1",
  ]);
  assert.deepEqual(f.freed.sort(), [2n, 7n]);
});

Deno.test("Wine 8's key spec 3: the certificate's key spec, else the key pair the container holds; never assumed", async () => {
  // The handle says 3, the certificate says AT_SIGNATURE: that one.
  const cert = fakeOps({
    certs: [{ der: rsa.der, provInfo: capiInfo(2) }],
    acquire: () => ({ keySpec: 3, handle: 9n }),
  });
  assert.ok(
    await verifies(
      rsa,
      data,
      await openWindowsCertStore({ ops: cert.ops }).sign(await thumb(rsa), data),
    ),
  );
  assert.deepEqual(cert.calls.slice(-3), [
    "acquire",
    `capiOpen {le-container} type ${PROV_RSA_AES}`,
    "capiSign 2 spec 2",
  ]);
  // Both say 3 (Wine 8): the container holds an AT_KEYEXCHANGE pair.
  const wine = fakeOps({
    certs: [{ der: rsa.der, provInfo: capiInfo(3) }],
    acquire: () => ({ keySpec: 3, handle: 9n }),
  });
  assert.ok(
    await verifies(
      rsa,
      data,
      await openWindowsCertStore({ ops: wine.ops }).sign(await thumb(rsa), data),
    ),
  );
  assert.deepEqual(wine.calls.slice(-4), [
    "acquire",
    `capiOpen {le-container} type ${PROV_RSA_AES}`,
    "capiKeySpecs 2",
    "capiSign 2 spec 1",
  ]);
  assert.deepEqual(wine.freed.sort(), [2n, 9n]);
  // Nothing names a signing key spec and the container holds no pair: a clear error.
  const none = fakeOps({
    certs: [{ der: rsa.der, provInfo: capiInfo(3) }],
    acquire: () => ({ keySpec: 3 }),
    held: [],
  });
  assert.equal(
    await codeOf(openWindowsCertStore({ ops: none.ops }).sign(await thumb(rsa), data)),
    "CERTIFICATE_INVALID",
  );
  assert.ok(!none.calls.some((c) => c.startsWith("capiSign")));
});

Deno.test("Windows' codes map to the product's errors; bad thumbprints never reach Windows", async () => {
  const id = `windows:CurrentUser/My/${await thumb(rsa)}`;
  for (
    const [code, want] of [
      [0x8010006B, "PIN_INCORRECT"],
      [0x8010006C, "PIN_LOCKED"],
      [0x8010006E, "KEYSTORE_UNAVAILABLE"],
      [0x80090016, "CERTIFICATE_INVALID"],
      [0x80090029, "SIGNING_FAILED"], // NTE_NOT_SUPPORTED
    ] as const
  ) {
    const f = fakeOps({ certs: [{ der: rsa.der, provInfo: capiInfo(0, 0) }], ncryptFails: code });
    assert.equal(await codeOf(openWindowsCertStore({ ops: f.ops }).sign(id, data)), want);
  }
  const f = fakeOps({ certs: [{ der: rsa.der, provInfo: capiInfo(1) }] });
  const store = openWindowsCertStore({ ops: f.ops });
  assert.equal(
    await codeOf(store.sign("windows:CurrentUser/My/A';rm -rf", data)),
    "CERTIFICATE_INVALID",
  );
  assert.equal(await codeOf(store.sign("A".repeat(40), data)), "CERTIFICATE_INVALID");
  assert.ok(!f.calls.includes("acquire"));
});

Deno.test("trustInWindowsRoot adds to the user's Root store and reads it back", async () => {
  const kept = fakeOps({ certs: [], root: { keeps: true } });
  trustInWindowsRoot(rsa.der, kept.ops);
  assert.deepEqual(kept.calls, ["addToUserRoot", "userRootHas"]);
  // A store that answers success but does not hold it (a stub, or the person said no).
  const lost = fakeOps({ certs: [], root: { keeps: false } });
  assert.equal(await codeOf(() => trustInWindowsRoot(rsa.der, lost.ops)), "KEYSTORE_UNAVAILABLE");
});
