/**
 * signDetached(): the CMS profile (detached, SHA-256, four signed attributes in DER order,
 * ESS signingCertificateV2 bound to the certificate, injected signingTime) and its errors.
 * Uses WebCrypto keys directly, so no system tool is needed.
 */

import assert from "node:assert/strict";
import type * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { AppError, isAppError } from "../../src/contract/errors.ts";
import { digest, toArrayBuffer } from "../../src/signing/bytes.ts";
import { type CmsSigner, signDetached, verifyDetached } from "../../src/signing/cms.ts";
import { compareDer, OID } from "../../src/signing/cms_attributes.ts";
import { ecdsaRawToDer } from "../../src/signing/ecdsa_signature.ts";
import { makeCert, TEST_CA_SUBJECT, type TestCert } from "../_helpers/pki.ts";
import { nth } from "../_helpers/nth.ts";

const ca = await makeCert({ subject: TEST_CA_SUBJECT, ca: true });
const rsa = await makeCert({ subject: "CN=RSA Signer, C=BG", issuer: ca });
const ec = await makeCert({ subject: "CN=EC Signer, C=BG", kind: "EC-P256", issuer: ca });
const clock = () => new Date("2026-03-01T10:00:00.789Z");

function webCryptoSigner(c: TestCert): CmsSigner {
  return {
    certificate: c.der,
    async sign(tbs) {
      if (c.kind === "RSA") {
        return new Uint8Array(
          await crypto.subtle.sign("RSASSA-PKCS1-v1_5", c.keys.privateKey, toArrayBuffer(tbs)),
        );
      }
      const raw = await crypto.subtle.sign(
        { name: "ECDSA", hash: "SHA-256" },
        c.keys.privateKey,
        toArrayBuffer(tbs),
      );
      return ecdsaRawToDer(new Uint8Array(raw));
    },
  };
}

function parse(p7s: Uint8Array): pkijs.SignedData {
  const ci = pkijs.ContentInfo.fromBER(toArrayBuffer(p7s));
  assert.equal(ci.contentType, OID.signedData);
  return new pkijs.SignedData({ schema: ci.content });
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

for (const c of [rsa, ec]) {
  Deno.test(`signDetached() ${c.kind}: detached SignedData with the NRA profile`, async () => {
    const data = new TextEncoder().encode("D1 file bytes, raw\r\n");
    const p7s = await signDetached(data, webCryptoSigner(c), { clock });
    const sd = parse(p7s);
    assert.equal(sd.version, 1);
    assert.equal(sd.encapContentInfo.eContentType, OID.data);
    assert.equal(sd.encapContentInfo.eContent, undefined, "content must not be encapsulated");
    assert.deepEqual(sd.digestAlgorithms.map((a) => a.algorithmId), [OID.sha256]);
    assert.equal(sd.certificates?.length, 1);
    const si = nth(sd.signerInfos);
    assert.equal(sd.signerInfos.length, 1);
    assert.equal(si.version, 1);
    assert.ok(si.sid instanceof pkijs.IssuerAndSerialNumber);
    assert.equal(si.digestAlgorithm.algorithmId, OID.sha256);
    assert.equal(
      si.signatureAlgorithm.algorithmId,
      c.kind === "RSA" ? OID.rsaEncryption : OID.ecdsaWithSha256,
    );
    const attrs = si.signedAttrs!.attributes;
    assert.deepEqual(
      attrs.map((a) => a.type).sort(),
      [OID.contentType, OID.messageDigest, OID.signingTime, OID.signingCertificateV2].sort(),
    );
    const enc = attrs.map((a) => new Uint8Array(a.toSchema().toBER()));
    for (const [i, e] of enc.entries()) {
      if (i > 0) assert.ok(compareDer(nth(enc, i - 1), e) <= 0, "DER order");
    }
    const get = (oid: string) => attrs.find((a) => a.type === oid)!.values[0];
    const md = (get(OID.messageDigest) as asn1js.OctetString).valueBlock.valueHexView;
    assert.deepEqual(new Uint8Array(md), await digest(data));
    const time = get(OID.signingTime) as asn1js.UTCTime;
    assert.equal(time.toDate().toISOString(), "2026-03-01T10:00:00.000Z");
    // signingCertificateV2 → certs[0].certHash = SHA-256(certificate DER); hashAlgorithm omitted.
    const ess = get(OID.signingCertificateV2) as asn1js.Sequence;
    const certId = (ess.valueBlock.value[0] as asn1js.Sequence).valueBlock
      .value[0] as asn1js.Sequence;
    const first = certId.valueBlock.value[0] as asn1js.OctetString;
    assert.equal(first.idBlock.tagNumber, 4, "first field is certHash (SHA-256 is the DEFAULT)");
    assert.deepEqual(new Uint8Array(first.valueBlock.valueHexView), await digest(c.der));
    // pkijs verifies the detached signature over the same data.
    const ok = await sd.verify({ signer: 0, data: toArrayBuffer(data), checkChain: false });
    assert.equal(ok, true);
  });
}

Deno.test("signDetached() signs the DER SET of the signed attributes (tag 0x31)", async () => {
  let seen: Uint8Array | undefined;
  const signer = webCryptoSigner(rsa);
  await signDetached(new Uint8Array([1]), {
    certificate: rsa.der,
    sign: (tbs) => (seen = tbs, signer.sign(tbs)),
  }, { clock });
  assert.equal(seen?.[0], 0x31);
});

Deno.test("signDetached() passes the key store's error codes through unchanged", async () => {
  for (const code of ["PIN_INCORRECT", "PIN_LOCKED", "KEYSTORE_UNAVAILABLE"] as const) {
    const signer: CmsSigner = {
      certificate: rsa.der,
      sign: () => Promise.reject(new AppError(code, "from the store")),
    };
    assert.equal(await codeOf(signDetached(new Uint8Array(1), signer)), code);
  }
});

Deno.test("signDetached() → SIGNING_FAILED for raw ECDSA, a key that does not match, or a throw", async () => {
  const rawEc: CmsSigner = {
    certificate: ec.der,
    sign: async (tbs) =>
      new Uint8Array(
        await crypto.subtle.sign(
          { name: "ECDSA", hash: "SHA-256" },
          ec.keys.privateKey,
          toArrayBuffer(tbs),
        ),
      ),
  };
  assert.equal(await codeOf(signDetached(new Uint8Array(1), rawEc)), "SIGNING_FAILED");
  const other = await makeCert({ subject: "CN=Other", issuer: ca });
  const mismatched: CmsSigner = { ...webCryptoSigner(other), certificate: rsa.der };
  assert.equal(await codeOf(signDetached(new Uint8Array(1), mismatched)), "SIGNING_FAILED");
  const throwing: CmsSigner = { certificate: rsa.der, sign: () => Promise.reject(new Error("x")) };
  assert.equal(await codeOf(signDetached(new Uint8Array(1), throwing)), "SIGNING_FAILED");
  const notCert: CmsSigner = { certificate: new Uint8Array([1, 2]), sign: throwing.sign };
  assert.equal(await codeOf(signDetached(new Uint8Array(1), notCert)), "CERTIFICATE_INVALID");
});

Deno.test("verifyDetached() accepts our RSA and EC signatures and refuses other data or bytes", async () => {
  const data = new TextEncoder().encode("D1 file bytes, raw\r\n");
  for (const c of [rsa, ec]) {
    const p7s = await signDetached(data, webCryptoSigner(c), { clock });
    assert.deepEqual((await verifyDetached(p7s, data)).certificate, c.der);
    const other = new TextEncoder().encode("D1 file bytes, raw\r\n!");
    assert.equal(await codeOf(verifyDetached(p7s, other)), "SIGNING_FAILED");
    const flipped = p7s.slice();
    flipped[flipped.length - 5]! ^= 0xff; // inside the signature value
    assert.equal(await codeOf(verifyDetached(flipped, data)), "SIGNING_FAILED");
  }
  assert.equal(await codeOf(verifyDetached(new Uint8Array([1, 2, 3]), data)), "SIGNING_FAILED");
});
