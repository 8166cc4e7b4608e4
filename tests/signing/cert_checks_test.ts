/** checkCertificate() / assertCertificateUsable() on generated certificates with a fake clock. */

import "reflect-metadata";
import assert from "node:assert/strict";
import * as x509 from "@peculiar/x509";
import { isAppError } from "../../src/contract/errors.ts";
import {
  assertCertificateUsable,
  type CertificateCheck,
  type CertificateCheckName,
  checkCertificate,
  qcStatementIds,
} from "../../src/signing/cert_checks.ts";
import { toCertificateInfo } from "../../src/signing/cert_info.ts";
import { makeCert, qcStatementsDer, TEST_CA_SUBJECT } from "../_helpers/pki.ts";

const notBefore = new Date("2026-01-01T00:00:00Z");
const notAfter = new Date("2027-01-01T00:00:00Z");
const inside = () => new Date("2026-06-01T00:00:00Z");
const ca = await makeCert({ subject: TEST_CA_SUBJECT, ca: true });
const good = await makeCert({
  subject: "CN=Ivan Petrov, 2.5.4.5=PNOBG-8001010008, C=BG",
  issuer: ca,
  notBefore,
  notAfter,
});

const byName = (r: CertificateCheck[]) => {
  const named = (name: CertificateCheckName) => {
    const c = r.find((x) => x.check === name);
    assert.ok(c, `no ${name} check in ${JSON.stringify(r)}`);
    return c;
  };
  return {
    validity: named("validity"),
    keyUsage: named("keyUsage"),
    qcStatements: named("qcStatements"),
    issuer: named("issuer"),
  };
};

Deno.test("checkCertificate() passes a qualified B-Trust-like certificate and says why", () => {
  const r = checkCertificate(good.der, inside);
  assert.deepEqual(r.map((x) => x.check), ["validity", "keyUsage", "qcStatements", "issuer"]);
  assert.ok(r.every((x) => x.ok), JSON.stringify(r));
  const n = byName(r);
  assert.match(n.validity.reason, /Valid until 2027-01-01T00:00:00.000Z \(214 days left\)/);
  assert.equal(n.keyUsage.reason, "Key usage allows nonRepudiation");
  assert.equal(
    n.qcStatements.reason,
    "Qualified certificate (QcCompliance, QcSSCD (key on a qualified device), QcType esign)",
  );
  assert.match(n.issuer.reason, /^Issued by BORICA \(B-Trust\)/);
  assertCertificateUsable(r);
});

Deno.test("checkCertificate() validity follows the injected clock", () => {
  const early = byName(checkCertificate(good.der, () => new Date("2025-12-31T23:59:59Z")));
  assert.equal(early.validity.ok, false);
  assert.match(early.validity.reason, /^Not valid before 2026-01-01/);
  const late = byName(checkCertificate(good.der, () => new Date("2027-01-01T00:00:01Z")));
  assert.equal(late.validity.ok, false);
  assert.match(late.validity.reason, /^Expired on 2027-01-01/);
});

Deno.test("checkCertificate() key usage: digitalSignature ok, keyEncipherment only or none fails", async () => {
  const cases: [number | null, boolean, RegExp][] = [
    [x509.KeyUsageFlags.digitalSignature, true, /digitalSignature/],
    [
      x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation,
      true,
      /digitalSignature and nonRepudiation/,
    ],
    [x509.KeyUsageFlags.keyEncipherment, false, /neither/],
    [null, false, /no keyUsage/],
  ];
  for (const [keyUsage, ok, reason] of cases) {
    const c = await makeCert({ subject: "CN=KU", kind: "EC-P256", issuer: ca, keyUsage });
    const ku = byName(checkCertificate(c.der, () => new Date())).keyUsage;
    assert.equal(ku.ok, ok, `${keyUsage}`);
    assert.match(ku.reason, reason);
  }
});

Deno.test("checkCertificate() qcStatements: missing extension fails with a reason", async () => {
  const c = await makeCert({ subject: "CN=No QC", kind: "EC-P256", issuer: ca, qc: false });
  const q = byName(checkCertificate(c.der, () => new Date())).qcStatements;
  assert.equal(q.ok, false);
  assert.match(q.reason, /not a qualified certificate/);
  assert.deepEqual(qcStatementIds(qcStatementsDer()), [
    "0.4.0.1862.1.1",
    "0.4.0.1862.1.4",
    "0.4.0.1862.1.6",
    "0.4.0.1862.1.6/0.4.0.1862.1.6.1",
  ]);
});

Deno.test("checkCertificate() issuer: each Bulgarian QES provider matches by O or CN; others fail", async () => {
  const issuers: [string, boolean, string][] = [
    ["CN=B-Trust Operational Qualified CA, O=BORICA AD, C=BG", true, "BORICA (B-Trust)"],
    [
      "CN=StampIT Global Qualified CA, O=Information Services JSC, C=BG",
      true,
      "Information Services (StampIT)",
    ],
    ["CN=InfoNotary Qualified Natural Person CA, O=InfoNotary PLC, C=BG", true, "InfoNotary"],
    ["CN=Evrotrust RSA Operational CA, O=Evrotrust Technologies AD, C=BG", true, "Evrotrust"],
    ["CN=Qualified CA, O=SEP Bulgaria AD, C=BG", true, "SEP Bulgaria"],
    ["CN=Some Other CA, O=Example Trust, C=DE", false, ""],
  ];
  for (const [subject, ok, name] of issuers) {
    const issuer = await makeCert({ subject, kind: "EC-P256", ca: true });
    const leaf = await makeCert({ subject: "CN=Leaf", kind: "EC-P256", issuer });
    const r = byName(checkCertificate(leaf.der, () => new Date())).issuer;
    assert.equal(r.ok, ok, subject);
    if (ok) assert.match(r.reason, new RegExp(`^Issued by ${name.replace(/[()]/g, "\\$&")}`));
    else assert.match(r.reason, /is not a Bulgarian QES provider/);
  }
});

Deno.test("assertCertificateUsable() → CERTIFICATE_INVALID listing failed required checks only", async () => {
  const c = await makeCert({
    subject: "CN=Plain",
    issuer: await makeCert({ subject: "CN=X", ca: true }),
    qc: false,
  });
  const r = checkCertificate(c.der, () => new Date());
  assertCertificateUsable(r, ["validity", "keyUsage"]);
  try {
    assertCertificateUsable(r);
    assert.fail("should throw");
  } catch (e) {
    assert.ok(isAppError(e) && e.code === "CERTIFICATE_INVALID");
    assert.deepEqual((e.details?.failed as { check: string }[]).map((f) => f.check), [
      "qcStatements",
      "issuer",
    ]);
  }
});

Deno.test("toCertificateInfo() reads names, serial, dates, key algorithm and personal id", async () => {
  const p384 = await makeCert({
    subject: "CN=Мария Иванова, 2.5.4.5=PNOBG-7501010000, C=BG",
    kind: "EC-P384",
    issuer: ca,
    serial: "00ab12",
    notBefore,
    notAfter,
  });
  const info = toCertificateInfo(p384.der, "x");
  assert.equal(info.keyAlgorithm, "EC-P384");
  assert.equal(info.personalId, "PNOBG-7501010000");
  assert.equal(info.subject, "C=BG, serialNumber=PNOBG-7501010000, CN=Мария Иванова");
  assert.equal(info.issuer, "C=BG, O=BORICA AD, CN=B-Trust Test Operational Qualified CA");
  assert.equal(info.serialNumber, "ab12");
  assert.equal(info.notBefore.toISOString(), notBefore.toISOString());
  const noId = toCertificateInfo(ca.der, "ca");
  assert.equal(noId.personalId, undefined);
  assert.equal(noId.keyAlgorithm, "RSA");
});
