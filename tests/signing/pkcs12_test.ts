/**
 * PKCS#12 key store against files made by `openssl pkcs12 -export` (OpenSSL 3 defaults, legacy
 * 3DES, -legacy RC2), with signatures checked by `openssl cms -verify`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { isAppError } from "../../src/contract/errors.ts";
import { keyStoreSigner, signDetached } from "../../src/signing/cms.ts";
import { openPkcs12KeyStore } from "../../src/signing/pkcs12.ts";
import { pkcs12Kdf } from "../../src/signing/pkcs12_pbe.ts";
import { runOk, type SignerFiles, tempDir, toolsMissing, writeTestPki } from "../_helpers/pki.ts";
import { opensslVerify } from "./openssl_verify.ts";
import { nth } from "../_helpers/nth.ts";

const skip = await toolsMissing(["openssl"]);

async function exportPfx(
  dir: string,
  s: SignerFiles,
  caPem: string,
  name: string,
  extra: string[],
) {
  const out = join(dir, `${name}.p12`);
  await runOk("openssl", [
    "pkcs12",
    "-export",
    "-inkey",
    s.keyPem,
    "-in",
    s.certPem,
    "-certfile",
    caPem,
    "-name",
    `friendly ${name}`,
    "-out",
    out,
    "-passout",
    "pass:s3cret",
    ...extra,
  ]);
  return await Deno.readFile(out);
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "resolved";
  } catch (e) {
    assert.ok(isAppError(e), String(e));
    assert.ok(!e.message.includes("s3cret") && !e.message.includes("wrong-pw"));
    return e.code;
  }
}

Deno.test({
  name:
    "openPkcs12KeyStore() signs with OpenSSL 3 default, 3DES and -legacy (RC2) PFX files; openssl verifies",
  ignore: skip !== undefined,
  async fn(t) {
    const tmp = await tempDir("p12-");
    try {
      const pki = await writeTestPki(tmp.path);
      const variants: [string, string[]][] = [
        ["default", []],
        ["3des", ["-certpbe", "PBE-SHA1-3DES", "-keypbe", "PBE-SHA1-3DES", "-macalg", "sha1"]],
        ["legacy-rc2", ["-legacy"]], // RC2-40 certificate bag + 3DES key, as OpenSSL 1.x wrote
      ];
      for (const signer of [pki.rsa, pki.ec]) {
        for (const [variant, extra] of variants) {
          const label = `${signer.cert.kind} ${variant}`;
          await t.step(`${label}: list, sign 1 KB, openssl cms -verify`, async () => {
            const store = openPkcs12KeyStore(
              await exportPfx(tmp.path, signer, pki.caPem, variant, extra),
            );
            const certs = await store.listCertificates("s3cret");
            assert.equal(certs.length, 1, "only the signer, not the CA");
            assert.equal(nth(certs).keyAlgorithm, signer.cert.kind);
            assert.equal(nth(certs).personalId, "PNOBG-8001010008");
            assert.equal(nth(certs).label, `friendly ${variant}`);
            assert.match(nth(certs).id, /^sha256:[0-9a-f]{64}$/);
            const data = crypto.getRandomValues(new Uint8Array(1024));
            const p7s = await signDetached(data, keyStoreSigner(store, nth(certs), "s3cret"));
            const v = await opensslVerify(tmp.path, label.replace(" ", "-"), p7s, data, pki.caPem);
            assert.equal(v.code, 0, v.output);
            assert.match(v.output, /Verification successful/);
            await store.close();
          });
        }
      }
    } finally {
      await tmp.remove();
    }
  },
});

Deno.test({
  name: "openPkcs12KeyStore() maps wrong and missing passwords, unknown ids and non-PFX bytes",
  ignore: skip !== undefined,
  async fn(t) {
    const tmp = await tempDir("p12err-");
    try {
      const pki = await writeTestPki(tmp.path);
      const pfx = await exportPfx(tmp.path, pki.rsa, pki.caPem, "default", []);
      const store = openPkcs12KeyStore(pfx);
      const cert = nth(await store.listCertificates("s3cret"));
      await t.step("wrong password → PIN_INCORRECT, with or without a MAC", async () => {
        assert.equal(
          await codeOf(store.sign(cert.id, new Uint8Array(1), "wrong-pw")),
          "PIN_INCORRECT",
        );
        assert.equal(await codeOf(store.listCertificates("wrong-pw")), "PIN_INCORRECT");
        // Without a MAC the wrong password is caught by decryption (padding / structure).
        for (
          const [name, extra] of [["nomac", ["-nomac"]], ["nomac-rc2", ["-nomac", "-legacy"]]] as [
            string,
            string[],
          ][]
        ) {
          const noMac = openPkcs12KeyStore(
            await exportPfx(tmp.path, pki.rsa, pki.caPem, name, extra),
          );
          assert.equal(await codeOf(noMac.listCertificates("wrong-pw")), "PIN_INCORRECT", name);
          assert.equal((await noMac.listCertificates("s3cret")).length, 1, name);
        }
      });
      await t.step("after a good signature a wrong password is still refused", async () => {
        // "again": MAC skipped, the shrouded key's decryption refuses; "plainkey": -keypbe NONE,
        // where only the MAC checks the password, so it is checked every time.
        const cases: [string, string[]][] = [["again", []], ["plainkey", ["-keypbe", "NONE"]]];
        for (const [name, extra] of cases) {
          const s2 = openPkcs12KeyStore(await exportPfx(tmp.path, pki.rsa, pki.caPem, name, extra));
          const c = nth(await s2.listCertificates("s3cret"));
          assert.ok((await s2.sign(c.id, new Uint8Array(8), "s3cret")).length > 0);
          assert.equal(
            await codeOf(s2.sign(c.id, new Uint8Array(8), "wrong-pw")),
            "PIN_INCORRECT",
            name,
          );
          assert.ok((await s2.sign(c.id, new Uint8Array(8), "s3cret")).length > 0);
        }
      });
      await t.step("no password → PIN_INCORRECT with details.pinRequired", async () => {
        try {
          await store.listCertificates();
          assert.fail("should need the password");
        } catch (e) {
          assert.ok(isAppError(e) && e.code === "PIN_INCORRECT" && e.details?.pinRequired === true);
        }
        assert.equal(await codeOf(store.sign(cert.id, new Uint8Array(1))), "PIN_INCORRECT");
      });
      await t.step("unknown certificate id → CERTIFICATE_INVALID", async () => {
        assert.equal(
          await codeOf(store.sign("sha256:00", new Uint8Array(1), "s3cret")),
          "CERTIFICATE_INVALID",
        );
      });
      await t.step("unencrypted certificate bag lists without a password", async () => {
        const plain = openPkcs12KeyStore(
          await exportPfx(tmp.path, pki.rsa, pki.caPem, "nocert", ["-certpbe", "NONE"]),
        );
        const certs = await plain.listCertificates();
        assert.equal(certs.length, 1);
        assert.equal(nth(certs).id, cert.id);
      });
      await t.step(
        "not a PFX → KEYSTORE_UNAVAILABLE; closed store → KEYSTORE_UNAVAILABLE",
        async () => {
          const junk = openPkcs12KeyStore(new TextEncoder().encode("not a pfx"));
          assert.equal(await codeOf(junk.listCertificates("x")), "KEYSTORE_UNAVAILABLE");
          await store.close();
          assert.equal(await codeOf(store.listCertificates("s3cret")), "KEYSTORE_UNAVAILABLE");
        },
      );
    } finally {
      await tmp.remove();
    }
  },
});

Deno.test("pkcs12Kdf() matches the RFC 7292 KDF test vector (SHA-1, id 1, 'smeg')", () => {
  // Test vector from the OpenSSL/BouncyCastle PKCS#12 KDF tests: password "smeg",
  // salt 0A58CF64530D823F, 1 iteration, ID 1, 24 bytes.
  const salt = new Uint8Array([0x0a, 0x58, 0xcf, 0x64, 0x53, 0x0d, 0x82, 0x3f]);
  const key = pkcs12Kdf("smeg", salt, 1, 1, 24);
  assert.equal(
    Array.from(key, (b) => b.toString(16).padStart(2, "0")).join("").toUpperCase(),
    "8AAAE6297B6CB04642AB5B077851284EB7128F1A2A7FBCA3",
  );
});
