/**
 * The backend of the console's Senders page (src/agent/senders/discover.ts, actions.ts,
 * messages.ts) with real parts: a SoftHSM2 token found by discovery (PKCS#11 through
 * Deno.dlopen) and PKCS#12 files made by openssl; add/test/remove/activate round-trips through
 * agent.json; the errors people read (bg + en). The Windows store is fed a recorded-format
 * injected Windows API (no Windows here; tests/windows/ runs the real one under Wine).
 */
import { deepEqual, equal, match, notEqual, ok } from "node:assert/strict";
import { join } from "node:path";
import { type AppError, isAppError } from "../../src/contract/errors.ts";
import {
  addSender,
  agentFilePath,
  certificateByKey,
  deriveSenderId,
  describePkcs12,
  discoverCertificates,
  type DiscoverDeps,
  type FoundCertificate,
  maskCertificatePersonalId,
  publicSenders,
  readAgentFile,
  removeSender,
  scanCertificates,
  senderErrorText,
  senderKeyStore,
  setActiveSender,
  testSender,
} from "../../src/agent/senders/mod.ts";
import {
  type ModuleCandidate,
  openPkcs11KeyStore,
  type Pkcs11KeyStore,
} from "../../src/signing/mod.ts";
import {
  makeCert,
  pem,
  TEST_PERSONAL_ID,
  type TestPki,
  writePkcs12,
  writeTestPki,
} from "../_helpers/pki.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import {
  createSoftHsmToken,
  holdSoftHsm,
  TOKEN_LABEL,
  TOKEN_PIN,
} from "../signing/softhsm_fixture.ts";

const ignore = skipUnless(["openssl", "softhsm2-util", "pkcs11-tool"], "senders actions tests");
const EGN = TEST_PERSONAL_ID.slice("PNOBG-".length);

async function appError(p: Promise<unknown>, code: string): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    ok(isAppError(e), `expected AppError ${code}, got ${e}`);
    equal(e.code, code, e.message);
    ok(!/\n\s+at /.test(e.message), "no stack trace in the message");
    return e;
  }
  throw new Error(`expected ${code}`);
}

const candidate = (path: string, provider = "SoftHSM2"): ModuleCandidate => ({
  provider,
  middleware: provider,
  os: "linux",
  path,
  verified: true,
});

async function p12(dir: string, name: string, certPem: string, keyPem: string, pw = "s3cret") {
  return await writePkcs12({ certPem, keyPem }, join(dir, `${name}.p12`), pw);
}

Deno.test("maskCertificatePersonalId() and deriveSenderId()", () => {
  equal(maskCertificatePersonalId("PNOBG-8001010008"), "80******08");
  equal(maskCertificatePersonalId("8001010008"), "80******08");
  equal(maskCertificatePersonalId("IDCBG-AB1234567"), "IDCBG-AB*****67");
  equal(maskCertificatePersonalId(undefined), null);
  equal(deriveSenderId("Иван Петров"), "ivan-petrov");
  equal(deriveSenderId("Мария Щерева-Жекова"), "mariya-shtereva-zhekova");
  equal(deriveSenderId("Иван Петров", ["ivan-petrov", "ivan-petrov-2"]), "ivan-petrov-3");
  equal(deriveSenderId("!!!"), "sender");
  equal(deriveSenderId("x".repeat(100)).length, 48);
});

Deno.test({
  name:
    "discovery finds the SoftHSM2 token's certificates without a PIN; add/test/activate/remove round-trip; a wrong PIN is a clear error",
  ignore,
  sanitizeResources: false,
  fn: async (t) => {
    await using hsm = await holdSoftHsm();
    const dir = await Deno.makeTempDir({ prefix: "svc-senders-disc-" });
    try {
      const pki = await writeTestPki(dir);
      const token = hsm.use(await createSoftHsmToken(pki, dir));
      const now = Date.now();
      const deps: DiscoverDeps = {
        os: "linux",
        discoverModules: () =>
          Promise.resolve([candidate(token.module), candidate("/nonexistent/libqes.so", "X")]),
        now: () => now,
      };
      const scan = await scanCertificates(deps);
      let rsa!: FoundCertificate;

      await t.step("both certificates of the token, described, personal id masked", () => {
        equal(scan.certificates.length, 2);
        rsa = scan.certificates.find((c) => c.holderName === "Ivan Petrov rsa")!;
        ok(rsa, JSON.stringify(scan.certificates.map((c) => c.holderName)));
        equal(rsa.source, "pkcs11");
        equal(rsa.sourceLabel, `SoftHSM2, token "${TOKEN_LABEL}"`);
        equal(rsa.personalIdMasked, "80******08");
        equal(rsa.subject, "C=BG, serialNumber=PNOBG-80******08, CN=Ivan Petrov rsa");
        equal(rsa.issuer, "B-Trust Test Operational Qualified CA (BORICA AD)");
        equal(rsa.qualified, true);
        equal(rsa.expired, false);
        equal(rsa.expiringSoon, false);
        ok(rsa.expiresInDays > 300 && rsa.expiresInDays <= 365, String(rsa.expiresInDays));
        deepEqual(rsa.checks.map((c) => [c.check, c.ok]), [
          ["validity", true],
          ["keyUsage", true],
          ["qcStatements", true],
          ["issuer", true],
        ]);
        equal(rsa.ref.type, "pkcs11");
        match(rsa.ref.certId!, /^pkcs11:serial=[^;]+;id=01$/);
        deepEqual(rsa.ref, {
          type: "pkcs11",
          module: token.module,
          tokenLabel: TOKEN_LABEL,
          certId: rsa.ref.certId,
        });
        match(rsa.key, /^cert_[0-9a-f]{32}$/);
        notEqual(scan.certificates[0]!.key, scan.certificates[1]!.key);
        ok(!JSON.stringify(scan).includes(EGN), "the EGN never appears unmasked");
      });

      await t.step("each place says how it answered, with reasons in bg and en", () => {
        const [hsm, missing, windows, macos] = scan.sources;
        equal(hsm!.status, "ok");
        equal(hsm!.certificates, 2);
        equal(hsm!.tokenLabel, TOKEN_LABEL);
        equal(missing!.status, "error");
        equal(missing!.errorCode, "PKCS11_MODULE_MISSING");
        match(missing!.reason!.bg, /не е инсталиран: \/nonexistent\/libqes\.so/);
        match(missing!.reason!.en, /not installed: \/nonexistent\/libqes\.so/);
        equal(windows!.source, "windows");
        equal(windows!.status, "not_available");
        match(windows!.reason!.en, /Windows only/);
        equal(macos!.status, "not_available");
        equal(scan.sources.length, 4);
      });

      await t.step("keys are stable; certificateByKey() finds it again", async () => {
        const again = await discoverCertificates(deps);
        deepEqual(again.map((c) => c.key), scan.certificates.map((c) => c.key));
        equal((await certificateByKey(rsa.key, deps)).holderName, "Ivan Petrov rsa");
        const e = await appError(certificateByKey("cert_nope", deps), "KEYSTORE_UNAVAILABLE");
        match(senderErrorText(e).en, /no longer offered/);
      });

      await t.step("listTokens() names the token without a login", async () => {
        const store = await openPkcs11KeyStore({ modulePath: token.module });
        try {
          const [tok, ...rest] = await store.listTokens();
          equal(rest.length, 0);
          equal(tok!.label, TOKEN_LABEL);
          equal(tok!.loginRequired, true);
          equal(tok!.pinLocked, false);
          equal(tok!.pinPad, false);
          ok(rsa.ref.certId!.includes(`serial=${tok!.serialNumber};`));
        } finally {
          await store.close();
        }
      });

      await t.step("no module in the list: nothing found", async () => {
        deepEqual(
          await discoverCertificates({ ...deps, discoverModules: () => Promise.resolve([]) }),
          [],
        );
      });

      await t.step(
        "add (id from the name), test with the PIN, agent.json holds no PIN",
        async () => {
          const added = await addSender(dir, { displayName: "  Иван Петров ", ref: rsa.ref }, now);
          equal(added.sender.id, "ivan-petrov");
          equal(added.sender.displayName, "Иван Петров");
          equal(added.sender.active, true);
          // The certificate (public) is kept beside agent.json, and whether it is qualified.
          const kept = join(dir, "certificates", "ivan-petrov.cer");
          deepEqual(added.sender.keystore, { ...rsa.ref, certificateFile: kept });
          equal(added.sender.qualified, true);
          deepEqual(await Deno.readFile(kept), pki.rsa.cert.der);
          const { ref } = await senderKeyStore(dir, "ivan-petrov");
          const r = await testSender(ref, TOKEN_PIN, now);
          ok(r.signatureBytes > 1000, String(r.signatureBytes));
          equal(r.subject, "C=BG, serialNumber=PNOBG-80******08, CN=Ivan Petrov rsa");
          const text = await Deno.readTextFile(agentFilePath(dir));
          ok(!text.includes(TOKEN_PIN), "no PIN in agent.json");
        },
      );

      await t.step("a wrong or missing PIN: PIN_INCORRECT with a clear sentence", async () => {
        const wrong = await appError(testSender(rsa.ref, "0000", now), "PIN_INCORRECT");
        ok(!JSON.stringify({ m: wrong.message, d: wrong.details }).includes("0000"));
        const text = senderErrorText(wrong);
        equal(text.code, "PIN_INCORRECT");
        match(text.bg, /^Грешен PIN код/);
        match(text.en, /^Wrong PIN/);
        const none = await appError(testSender(rsa.ref, null, now), "PIN_INCORRECT");
        match(senderErrorText(none).bg, /^Въведете PIN кода/);
      });

      await t.step("a token that is not there: the certificate is not found", async () => {
        const gone = { ...rsa.ref, tokenLabel: "removed" };
        const e = await appError(testSender(gone, TOKEN_PIN, now), "KEYSTORE_UNAVAILABLE");
        match(senderErrorText(e).en, /Insert the card or token/);
        const bad = await appError(
          testSender({ ...rsa.ref, module: "/nonexistent/lib.so" }, TOKEN_PIN, now),
          "PKCS11_MODULE_MISSING",
        );
        match(senderErrorText(bad).bg, /Инсталирайте софтуера/);
      });

      await t.step("the EC certificate: add with a given id, activate, remove", async () => {
        const ec = scan.certificates.find((c) => c.holderName === "Ivan Petrov ec")!;
        await addSender(dir, { id: "ec", displayName: "EC", ref: ec.ref }, now);
        equal(publicSenders((await readAgentFile(dir)).senders).activeSenderId, null);
        const after = await setActiveSender(dir, "ec");
        deepEqual(after.map((s) => [s.id, s.active]), [["ivan-petrov", false], ["ec", true]]);
        equal(publicSenders((await readAgentFile(dir)).senders).activeSenderId, "ec");
        equal((await testSender(ec.ref, TOKEN_PIN, now)).certificate.holderName, "Ivan Petrov ec");
        equal((await removeSender(dir, "ec")).id, "ec");
        deepEqual((await readAgentFile(dir)).senders.map((s) => s.id), ["ivan-petrov"]);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "describePkcs12() and the sender actions with PKCS#12 files: checks, refusals, no partial writes",
  ignore,
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "svc-senders-p12-" });
    try {
      const pki: TestPki = await writeTestPki(dir);
      const file = await p12(dir, "ivan", pki.rsa.certPem, pki.rsa.keyPem);
      const now = Date.now();
      let found!: FoundCertificate;

      await t.step("describePkcs12() with the password", async () => {
        const list = await describePkcs12(file, "s3cret", { now: () => now });
        equal(list.length, 1);
        found = list[0]!;
        equal(found.source, "pkcs12");
        equal(found.sourceLabel, "ivan.p12 (PKCS#12)");
        equal(found.holderName, "Ivan Petrov rsa");
        equal(found.personalIdMasked, "80******08");
        equal(found.qualified, true);
        match(found.ref.certId!, /^sha256:[0-9a-f]{64}$/);
        deepEqual(found.ref, { type: "pkcs12", file, certId: found.ref.certId });
      });

      await t.step("expiry as seen on other days", async () => {
        const end = pki.rsa.cert.cert.notAfter.getTime();
        const soon = (await describePkcs12(file, "s3cret", {
          now: () => end - 10 * 86_400_000,
        }))[0]!;
        equal(soon.expiringSoon, true);
        equal(soon.expired, false);
        ok(soon.expiresInDays >= 9 && soon.expiresInDays <= 10, String(soon.expiresInDays));
        const late = (await describePkcs12(file, "s3cret", { now: () => end + 86_400_000 }))[0]!;
        equal(late.expired, true);
        equal(late.expiringSoon, false);
        equal(late.checks[0]!.ok, false);
      });

      await t.step("wrong or missing password, not a PFX, no file", async () => {
        const wrong = await appError(describePkcs12(file, "nope", {}), "PIN_INCORRECT");
        match(senderErrorText(wrong).bg, /^Грешен PIN код или парола/);
        const none = await appError(describePkcs12(file, undefined), "PIN_INCORRECT");
        equal(none.details?.pinRequired, true);
        const junk = join(dir, "junk.pfx");
        await Deno.writeTextFile(junk, "not a pfx");
        await appError(describePkcs12(junk, "x"), "KEYSTORE_UNAVAILABLE");
        await appError(describePkcs12(join(dir, "missing.p12"), "x"), "KEYSTORE_UNAVAILABLE");
      });

      await t.step("add, duplicate id, bad input: stable codes, agent.json unchanged", async () => {
        await addSender(
          dir,
          { id: "ivan", displayName: "Иван", ref: found.ref, pin: "s3cret" },
          now,
        );
        const before = await Deno.readTextFile(agentFilePath(dir));
        ok(!before.includes("s3cret"), "the password is never stored");
        const dup = await appError(
          addSender(dir, { id: "ivan", displayName: "x", ref: found.ref, pin: "s3cret" }, now),
          "CONFLICT",
        );
        match(senderErrorText(dup).bg, /Вече има подател/);
        const empty = await appError(
          addSender(dir, { displayName: "  ", ref: found.ref }, now),
          "VALIDATION_FAILED",
        );
        equal(empty.details?.field, "displayName");
        match(senderErrorText(empty).bg, /Въведете името/);
        const badId = await appError(
          addSender(dir, { id: "a b", displayName: "A", ref: found.ref }, now),
          "VALIDATION_FAILED",
        );
        equal(badId.details?.field, "id");
        for (const ref of [{ type: "pkcs12" }, { type: "pkcs12", file: "rel.p12" }, null, "x"]) {
          const e = await appError(
            addSender(dir, { displayName: "A", ref }, now),
            "VALIDATION_FAILED",
          );
          equal(e.details?.field, "ref");
        }
        await appError(
          addSender(dir, { displayName: "A", ref: found.ref, pin: "wrong" }, now),
          "PIN_INCORRECT",
        );
        await appError(removeSender(dir, "nope"), "SENDER_NOT_FOUND");
        await appError(setActiveSender(dir, "nope"), "SENDER_NOT_FOUND");
        await appError(senderKeyStore(dir, "nope"), "SENDER_NOT_FOUND");
        equal(await Deno.readTextFile(agentFilePath(dir)), before, "no partial write");
      });

      await t.step("a certificate failing a check is refused unless force", async () => {
        const plain = await makeCert({
          subject: "CN=Not Qualified, C=BG",
          issuer: pki.ca,
          qc: false,
        });
        const certPem = join(dir, "plain.cert.pem"), keyPem = join(dir, "plain.key.pem");
        await Deno.writeTextFile(certPem, pem("CERTIFICATE", plain.der));
        const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", plain.keys.privateKey));
        await Deno.writeTextFile(keyPem, pem("PRIVATE KEY", pkcs8));
        const f = await p12(dir, "plain", certPem, keyPem);
        const [c] = await describePkcs12(f, "s3cret");
        equal(c!.qualified, false);
        const before = await Deno.readTextFile(agentFilePath(dir));
        const e = await appError(
          addSender(dir, { displayName: "Plain", ref: c!.ref, pin: "s3cret" }, now),
          "CERTIFICATE_INVALID",
        );
        deepEqual((e.details?.failed as { check: string }[]).map((x) => x.check), ["qcStatements"]);
        // In words, not the extension's name.
        match(senderErrorText(e).bg, /не премина проверките: подписът не е квалифициран \(КЕП\)/);
        match(senderErrorText(e).en, /the signature is not qualified \(QES\)/);
        ok(!/QcStatements|keyUsage/.test(senderErrorText(e).bg + senderErrorText(e).en));
        equal(await Deno.readTextFile(agentFilePath(dir)), before);
        const forced = await addSender(
          dir,
          { displayName: "Plain", ref: c!.ref, pin: "s3cret", force: true },
          now,
        );
        equal(forced.sender.id, "plain");
        equal(forced.sender.qualified, false, "a non-qualified sender is recorded as such");
      });

      await t.step("concurrent adds are serialised: both land with distinct ids", async () => {
        const add = () =>
          addSender(dir, { displayName: "Иван", ref: found.ref, pin: "s3cret" }, now);
        const [a, b] = await Promise.all([add(), add()]);
        deepEqual([a.sender.id, b.sender.id].sort(), ["ivan-2", "ivan-3"]);
        deepEqual((await readAgentFile(dir)).senders.map((s) => s.id), [
          "ivan",
          "plain",
          "ivan-2",
          "ivan-3",
        ]);
      });

      await t.step("test signs and verifies; activate; remove", async () => {
        const r = await testSender(found.ref, "s3cret", now);
        ok(r.signatureBytes > 1000);
        await appError(testSender(found.ref, "wrong", now), "PIN_INCORRECT");
        const all = await setActiveSender(dir, "ivan-2");
        deepEqual(all.filter((s) => s.active).map((s) => s.id), ["ivan-2"]);
        await setActiveSender(dir, "ivan");
        equal(publicSenders((await readAgentFile(dir)).senders).activeSenderId, "ivan");
        for (const id of ["plain", "ivan-2", "ivan-3"]) await removeSender(dir, id);
        deepEqual((await readAgentFile(dir)).senders.map((s) => [s.id, s.active]), [[
          "ivan",
          true,
        ]]);
      });

      await t.step("an invalid agent.json is refused, not overwritten", async () => {
        await Deno.writeTextFile(agentFilePath(dir), '{"senders": [{"id": "bad id"}]}');
        const e = await appError(
          addSender(dir, { displayName: "A", ref: found.ref, pin: "s3cret" }, now),
          "VALIDATION_FAILED",
        );
        equal(e.details?.field, "agent.json");
        equal(await Deno.readTextFile(agentFilePath(dir)), '{"senders": [{"id": "bad id"}]}');
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("discovery: the Windows store through the Windows API, a failing Keychain, a removed token", async () => {
  const cert = await makeCert({ subject: `CN=Ivan Win, 2.5.4.5=${TEST_PERSONAL_ID}, C=BG` });
  const thumb = new Uint8Array(await crypto.subtle.digest("SHA-1", cert.der as BufferSource))
    .toHex().toUpperCase();
  const seen: string[] = [];
  const unused = () => {
    throw new Error("unused");
  };
  const windowsOps = {
    listMy(location: string) {
      seen.push(location);
      return location === "CurrentUser"
        ? [{
          der: cert.der,
          friendlyName: "Ivan",
          provInfo: { container: "c", provider: "", provType: 0, flags: 0, keySpec: 0 },
        }]
        : [];
    },
    acquire: unused,
    ncryptSign: unused,
    capiSign: unused,
    capiKeySpecs: unused,
    capiOpen: unused,
    addToUserRoot: unused,
    userRootHas: unused,
  };
  const win = await scanCertificates({
    os: "windows",
    discoverModules: () => Promise.resolve([]),
    windowsOps,
  });
  deepEqual(seen, ["CurrentUser", "LocalMachine"]);
  equal(win.certificates.length, 1);
  const c = win.certificates[0]!;
  equal(c.source, "windows");
  equal(c.personalIdMasked, "80******08");
  deepEqual(c.ref, {
    type: "windows",
    thumbprint: thumb,
    certId: `windows:CurrentUser/My/${thumb}`,
  });
  deepEqual(win.sources.map((s) => [s.source, s.status]), [["windows", "ok"], [
    "macos",
    "not_available",
  ]]);

  const mac = await scanCertificates({
    os: "darwin",
    discoverModules: () => Promise.resolve([]),
    run: () => Promise.resolve({ code: 1, stdout: "", stderr: "denied" }),
  });
  equal(mac.certificates.length, 0);
  const keychain = mac.sources.find((s) => s.source === "macos")!;
  equal(keychain.status, "error");
  equal(keychain.errorCode, "KEYSTORE_UNAVAILABLE");

  // A token pulled out while it is being read: the module's entry says so, nothing throws.
  const { AppError } = await import("../../src/contract/errors.ts");
  const removed = {
    kind: "pkcs11",
    listTokens: () =>
      Promise.reject(
        new AppError("KEYSTORE_UNAVAILABLE", "The token is not available (C_GetSlotList)", {
          function: "C_GetSlotList",
          rv: "CKR_DEVICE_REMOVED",
        }),
      ),
    listCertificates: () => Promise.resolve([]),
    sign: () => Promise.reject(new Error("unused")),
    close: () => Promise.resolve(),
  } satisfies Pkcs11KeyStore;
  const gone = await scanCertificates({
    os: "linux",
    discoverModules: () => Promise.resolve([candidate("/x/libqes.so", "B-Trust")]),
    openPkcs11: () => Promise.resolve(removed),
  });
  const entry = gone.sources[0]!;
  equal(entry.status, "error");
  match(entry.reason!.bg, /изваден/);
  match(entry.reason!.en, /removed/);
  const none = await scanCertificates({
    os: "linux",
    discoverModules: () => Promise.resolve([candidate("/x/libqes.so", "B-Trust")]),
    openPkcs11: () => Promise.resolve({ ...removed, listTokens: () => Promise.resolve([]) }),
  });
  equal(none.sources[0]!.status, "no_token");
  equal(none.sources[0]!.label, "B-Trust (libqes.so)");
});

Deno.test("senderErrorText(): anything that is not an AppError is one generic sentence", () => {
  const t = senderErrorText(new Error("boom\n    at secret (file.ts:1:1)"));
  equal(t.code, "AGENT_INTERNAL_ERROR");
  ok(!t.en.includes("boom") && !t.bg.includes("at secret"));
});
