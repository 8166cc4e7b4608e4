/**
 * What the agent learns about a sender's certificate before asking for a PIN (docs/live-portal.md),
 * with real files made by openssl: a `certificateFile` (PEM or DER), a PKCS#12 file whose
 * certificate bag is not encrypted, and one whose bag is (unknown until the PIN); validity on
 * the clock; whether the page asks for a PIN to sign or to read the certificate only; the
 * certificate-only live context (no signer, no PIN where the certificate is readable).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  certificateWithoutPin,
  type KeyStoreRef,
  liveContext,
  needsPin,
  parseKeyStoreRef,
  precheckSenders,
  readCertificateFile,
} from "../../src/agent/senders/mod.ts";
import { makeCert, pem, runOk, TEST_CA_SUBJECT } from "../_helpers/pki.ts";
import { skipUnless } from "../_helpers/require_tool.ts";

const ignore = skipUnless(["openssl"], "sender certificate pre-checks");
const DAY = 86_400_000;

Deno.test("needsPin() asks to sign with PKCS#12/PKCS#11, and to read the certificate only when a PKCS#12 file hides it", () => {
  const refs: KeyStoreRef[] = [
    { type: "pkcs12", file: "/x.p12" },
    { type: "pkcs11", module: "/x.so" },
    { type: "windows", thumbprint: "ab" },
    { type: "macos" },
  ];
  const table = refs.map((r) => [
    r.type,
    needsPin(r),
    needsPin(r, "certificate", false),
    needsPin(r, "certificate", true),
  ]);
  assert.deepEqual(table, [
    ["pkcs12", true, true, false],
    ["pkcs11", true, false, false],
    ["windows", false, false, false],
    ["macos", false, false, false],
  ]);
  assert.equal(needsPin(null), false);
});

Deno.test("parseKeyStoreRef() keeps certificateFile", () => {
  assert.deepEqual(
    parseKeyStoreRef({ type: "pkcs11", module: "/m.so", certificateFile: "/c.pem" }),
    { type: "pkcs11", module: "/m.so", certificateFile: "/c.pem" },
  );
});

Deno.test({
  name:
    "precheckSenders() reads certificates without a PIN (certificateFile, plain PKCS#12 bag) and refuses expired or not-yet-valid ones",
  ignore,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-precheck-" });
    try {
      const ca = await makeCert({ subject: TEST_CA_SUBJECT, ca: true });
      const now = Date.now();
      const cert = (name: string, notBefore: number, notAfter: number) =>
        makeCert({
          subject: `CN=Ivan Petrov ${name}, 2.5.4.5=PNOBG-8001010008, C=BG`,
          issuer: ca,
          notBefore: new Date(notBefore),
          notAfter: new Date(notAfter),
        });
      const files = async (name: string, c: Awaited<ReturnType<typeof makeCert>>) => {
        const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", c.keys.privateKey));
        const f = {
          pem: join(dir, `${name}.pem`),
          der: join(dir, `${name}.der`),
          key: join(dir, `${name}.key`),
          p12: join(dir, `${name}.p12`),
          plainP12: join(dir, `${name}.plain.p12`),
        };
        await Deno.writeTextFile(f.pem, pem("CERTIFICATE", c.der));
        await Deno.writeFile(f.der, c.der);
        await Deno.writeTextFile(f.key, pem("PRIVATE KEY", pkcs8));
        const p12 = ["pkcs12", "-export", "-in", f.pem, "-inkey", f.key, "-passout", "pass:pw"];
        await runOk("openssl", [...p12, "-out", f.p12]);
        await runOk("openssl", [...p12, "-certpbe", "NONE", "-out", f.plainP12]);
        return f;
      };
      const valid = await files("valid", await cert("valid", now - DAY, now + 300 * DAY));
      const expired = await files("expired", await cert("old", now - 900 * DAY, now - DAY));
      const future = await files("future", await cert("new", now + DAY, now + 900 * DAY));

      assert.equal((await readCertificateFile(valid.pem)).notAfter.getTime() > now, true);
      assert.equal((await readCertificateFile(valid.der)).subject.includes("valid"), true);
      assert.equal(await certificateWithoutPin({ type: "pkcs12", file: valid.p12 }), null);
      assert.ok(await certificateWithoutPin({ type: "pkcs12", file: valid.plainP12 }));

      const senders: [string, KeyStoreRef | null][] = [
        ["hidden", { type: "pkcs12", file: valid.p12 }],
        ["plain", { type: "pkcs12", file: valid.plainP12 }],
        ["plain-old", { type: "pkcs12", file: expired.plainP12 }],
        ["file-old", { type: "pkcs12", file: expired.p12, certificateFile: expired.der }],
        ["file-new", { type: "pkcs11", module: "/nowhere.so", certificateFile: future.pem }],
        ["file-ok", { type: "pkcs11", module: "/nowhere.so", certificateFile: valid.pem }],
        ["file-gone", { type: "pkcs12", file: valid.p12, certificateFile: join(dir, "no.pem") }],
        ["module-gone", { type: "pkcs11", module: "/nowhere.so" }],
        ["none", null],
      ];
      const checked = await precheckSenders(
        senders.map(([id, ref]) => ({ sender: { id, displayName: id, active: true }, ref })),
        now,
      );
      const summary = checked.map((p) => [
        p.sender.id,
        p.certificate !== null,
        p.problem?.code ?? null,
        p.problem ? Object.keys(p.problem.details ?? {}).sort().join(",") : null,
      ]);
      assert.deepEqual(summary, [
        ["hidden", false, null, null],
        ["plain", true, null, null],
        ["plain-old", true, "CERTIFICATE_INVALID", "notAfter,senderId"],
        ["file-old", true, "CERTIFICATE_INVALID", "notAfter,senderId"],
        ["file-new", true, "CERTIFICATE_INVALID", "notBefore,senderId"],
        ["file-ok", true, null, null],
        ["file-gone", false, null, null],
        ["module-gone", false, null, null],
        ["none", false, null, null],
      ]);
      const old = checked[2]!.problem!;
      assert.match(old.message, /sender "plain-old" expired on/);
      assert.ok(!JSON.stringify([old.message, old.details]).includes("8001010008"), "no EGN");

      // The certificate-only context: no signer; certificateFile without opening the store;
      // a hidden PKCS#12 certificate with the password typed on the page.
      const sender = { id: "s", displayName: "S" };
      const fromFile = await liveContext(
        sender,
        { type: "pkcs11", module: "/nowhere.so", certificateFile: valid.pem },
        null,
        "certificate",
      );
      assert.equal(fromFile.ctx.sign, undefined);
      assert.ok(fromFile.ctx.certificate && fromFile.ctx.certificate.length > 0);
      const fromP12 = await liveContext(
        sender,
        { type: "pkcs12", file: valid.p12 },
        "pw",
        "certificate",
      );
      assert.equal(fromP12.ctx.sign, undefined);
      assert.deepEqual(fromP12.ctx.certificate, fromFile.ctx.certificate);
      const signing = await liveContext(sender, { type: "pkcs12", file: valid.p12 }, "pw");
      assert.equal(typeof signing.ctx.sign, "function");
      signing.close();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
