/**
 * PKCS#11 over Deno.dlopen against a real SoftHSM2 token: listing, RSA and EC signatures checked
 * with `openssl cms -verify`, one C_Login per wrong PIN, module loading errors, and one C_Login
 * for a whole folder-wide filing against the NRA simulator.
 * All SoftHSM2 tests live in this one file: SoftHSM2 is a per-process singleton configured by
 * the SOFTHSM2_CONF environment variable.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type AppError, isAppError } from "../../src/contract/errors.ts";
import { keyStoreSigner, signDetached } from "../../src/signing/cms.ts";
import { loadPkcs11Module, type Pkcs11Api } from "../../src/signing/pkcs11/ffi.ts";
import { openPkcs11KeyStore } from "../../src/signing/pkcs11/keystore.ts";
import { SOFTHSM2_MODULE, tempDir, toolsMissing, writeTestPki } from "../_helpers/pki.ts";
import { opensslVerify } from "./openssl_verify.ts";
import { createSoftHsmToken, holdSoftHsm, TOKEN_PIN } from "./softhsm_fixture.ts";
import { type BatchOperation, getOperation } from "../../src/contract/mod.ts";
import { fileSubmission, Journal, runBatch } from "../../src/agent/filing/mod.ts";
import { createLocalOps } from "../../src/agent/local/mod.ts";
import { createLivePortal } from "../../src/portal/live/mod.ts";
import { silentLogger } from "../../src/log.ts";
import { SIM_CLIENT, startNraSimulator } from "../_helpers/nra_simulator.ts";
import { writeCompanyTree } from "../_helpers/company_tree.ts";
import { nth } from "../_helpers/nth.ts";

const skip = await toolsMissing(["openssl", "softhsm2-util", "pkcs11-tool"], [SOFTHSM2_MODULE]);
const fixedClock = () => new Date("2026-03-01T10:00:00Z");

async function rejectsWith(p: Promise<unknown>, code: string): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    assert.ok(isAppError(e), `expected AppError, got ${e}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}`);
}

/** Wraps a real API and counts C_Login calls. */
function countingApi(real: Pkcs11Api): { api: Pkcs11Api; logins: () => number } {
  let n = 0;
  return {
    api: { ...real, C_Login: (s, u, pin) => (n++, real.C_Login(s, u, pin)) },
    logins: () => n,
  };
}

Deno.test({
  name: "openPkcs11KeyStore() on SoftHSM2 lists, signs RSA and EC, and openssl verifies the CMS",
  ignore: skip !== undefined,
  sanitizeResources: false,
  async fn(t) {
    await using hsm = await holdSoftHsm();
    const tmp = await tempDir("p11-");
    try {
      const pki = await writeTestPki(tmp.path);
      const token = hsm.use(await createSoftHsmToken(pki, tmp.path));
      const store = await openPkcs11KeyStore({ modulePath: token.module });
      try {
        const certs = await store.listCertificates();
        await t.step("listCertificates() returns both certificates with their metadata", () => {
          assert.equal(certs.length, 2);
          const rsa = certs.find((c) => c.keyAlgorithm === "RSA")!;
          const ec = certs.find((c) => c.keyAlgorithm === "EC-P256")!;
          assert.match(rsa.id, /^pkcs11:serial=[^;]+;id=01$/);
          assert.match(ec.id, /;id=02$/);
          assert.equal(rsa.personalId, "PNOBG-8001010008");
          assert.match(rsa.issuer, /O=BORICA AD/);
          assert.match(rsa.subject, /^C=BG, serialNumber=PNOBG-8001010008, CN=Ivan Petrov rsa$/);
          assert.equal(rsa.label, "rsa");
          assert.deepEqual(rsa.der, pki.rsa.cert.der);
        });
        for (const cert of certs) {
          await t.step(
            `signDetached() with the ${cert.keyAlgorithm} token key verifies`,
            async () => {
              const data = crypto.getRandomValues(new Uint8Array(1024));
              const p7s = await signDetached(data, keyStoreSigner(store, cert, TOKEN_PIN), {
                clock: fixedClock,
              });
              const v = await opensslVerify(tmp.path, `p11-${cert.label}`, p7s, data, pki.caPem);
              assert.equal(v.code, 0, v.output);
              assert.match(v.output, /Verification successful/);
            },
          );
        }
      } finally {
        await store.close();
      }
    } finally {
      await tmp.remove();
    }
  },
});

Deno.test({
  name: "openPkcs11KeyStore() wrong PIN → PIN_INCORRECT after exactly one C_Login, no retry",
  ignore: skip !== undefined,
  sanitizeResources: false,
  async fn() {
    await using hsm = await holdSoftHsm();
    const tmp = await tempDir("p11pin-");
    try {
      const pki = await writeTestPki(tmp.path);
      const token = hsm.use(await createSoftHsmToken(pki, tmp.path));
      const counted = countingApi(await loadPkcs11Module(token.module));
      const store = await openPkcs11KeyStore({ modulePath: token.module, api: counted.api });
      try {
        const cert = nth(await store.listCertificates());
        assert.equal(counted.logins(), 0, "listing must not log in");
        const err = await rejectsWith(
          signDetached(new Uint8Array(1024), keyStoreSigner(store, cert, "9999")),
          "PIN_INCORRECT",
        );
        assert.equal(counted.logins(), 1);
        assert.equal(err.details?.rv, "CKR_PIN_INCORRECT");
        assert.ok(!err.message.includes("9999") && !JSON.stringify(err.details).includes("9999"));
        // The right PIN still works afterwards (the token was not locked by retries).
        const sig = await store.sign(cert.id, new Uint8Array([1, 2, 3]), TOKEN_PIN);
        assert.ok(sig.length > 0);
        assert.equal(counted.logins(), 2);
        // The session stays logged in: the next signatures need no login (one per batch).
        await store.sign(cert.id, new Uint8Array([4]), TOKEN_PIN);
        assert.equal(counted.logins(), 2, "one login for the store's signatures");
        await store.close();
        const fresh = await openPkcs11KeyStore({ modulePath: token.module, api: counted.api });
        await rejectsWith(fresh.sign(cert.id, new Uint8Array([1]), undefined), "PIN_INCORRECT");
        assert.equal(counted.logins(), 2, "no PIN given → no login attempt");
        await fresh.close();
      } finally {
        await store.close();
        counted.api.unload();
      }
    } finally {
      await tmp.remove();
    }
  },
});

Deno.test({
  name: "loadPkcs11Module() maps missing, non-library, wrong-arch and non-PKCS#11 files",
  ignore: skip !== undefined,
  async fn(t) {
    const tmp = await tempDir("p11load-");
    try {
      const so = await Deno.readFile(SOFTHSM2_MODULE);
      const write = async (name: string, patch: (b: Uint8Array) => void) => {
        const b = so.slice();
        patch(b);
        await Deno.writeFile(join(tmp.path, name), b);
        return join(tmp.path, name);
      };
      const elf32 = await write("libelf32.so", (b) => (b[4] = 1)); // EI_CLASS = ELFCLASS32
      const aarch64 = await write("libarm64.so", (b) => (b[18] = 183, b[19] = 0)); // EM_AARCH64
      const text = join(tmp.path, "notalib.so");
      await Deno.writeTextFile(text, "this is not a library\n");
      const cases: [string, string, string][] = [
        ["missing path", join(tmp.path, "nope.so"), "PKCS11_MODULE_MISSING"],
        ["a text file", text, "KEYSTORE_UNAVAILABLE"],
        ["a 32-bit ELF", elf32, "PKCS11_MODULE_WRONG_ARCH"],
        ["an aarch64 ELF", aarch64, "PKCS11_MODULE_WRONG_ARCH"],
      ];
      const libc = ["/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6"];
      for (const p of libc) {
        if (Deno.build.arch === "x86_64" && await Deno.stat(p).then(() => true, () => false)) {
          cases.push(["a library without C_GetFunctionList (libc)", p, "KEYSTORE_UNAVAILABLE"]);
          break;
        }
      }
      for (const [what, path, code] of cases) {
        await t.step(`${what} → ${code}`, async () => {
          const e = await rejectsWith(openPkcs11KeyStore({ modulePath: path }), code);
          assert.equal(e.details?.modulePath, path);
        });
      }
      await t.step("the 32-bit ELF also fails in dlopen with the text we map", () => {
        try {
          Deno.dlopen(elf32, { C_GetFunctionList: { parameters: ["buffer"], result: "u64" } });
          assert.fail("dlopen should fail");
        } catch (e) {
          assert.match(String(e), /wrong ELF class: ELFCLASS32/);
        }
      });
    } finally {
      await tmp.remove();
    }
  },
});

Deno.test({
  name:
    "a folder-wide batch on a SoftHSM2 key: one C_Login for 12 companies filed with the NRA simulator, 4 in flight",
  ignore: skip !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using hsm = await holdSoftHsm();
    const tmp = await tempDir("p11batch-");
    const sim = await startNraSimulator({
      recognised: "any",
      powerOfAttorney: "any",
      latencyMs: 30,
    });
    try {
      const pki = await writeTestPki(tmp.path);
      const token = hsm.use(await createSoftHsmToken(pki, tmp.path));
      const counted = countingApi(await loadPkcs11Module(token.module));
      const store = await openPkcs11KeyStore({ modulePath: token.module, api: counted.api });
      const [cert] = (await store.listCertificates()).filter((c) => c.keyAlgorithm === "RSA");
      const signer = keyStoreSigner(store, cert!, TOKEN_PIN);
      const root = join(tmp.path, "clients");
      const eiks = await writeCompanyTree(root, 12, 2026, 9, 33_000_000);
      const op = getOperation("dec1_6_batch") as BatchOperation;
      const body = { rootFolder: root, year: 2026, month: 9, recursive: true };
      const scan = await createLocalOps().scanBatch(op, body, { path: root });
      const portal = createLivePortal({
        baseUrl: sim.url,
        environment: "test",
        clientId: SIM_CLIENT.id,
        clientSecret: SIM_CLIENT.secret,
        timeoutSeconds: 30,
        experimentalVatService: false,
      }, { fetch: sim.fetch, clock: { now: () => Date.now() } });
      const journal = new Journal(":memory:");
      const deps = { journal, clock: { now: () => Date.now() }, log: silentLogger };
      const ctx = {
        sender: { id: "hsm", displayName: "SoftHSM" },
        certificate: cert!.der,
        sign: (bytes: Uint8Array) => signDetached(bytes, signer),
      };
      const r = await runBatch(
        op,
        body,
        { eiks, mode: "live", typeId: op.typeId, jti: "j" },
        scan,
        (input, c) =>
          fileSubmission(deps, portal, input, c, {
            typeId: op.typeId,
            mode: "live",
            integrator: "t",
            batchId: crypto.randomUUID(),
            idempotencyKey: null,
            period: "2026-09",
            replayFiled: true,
          }),
        () => Promise.resolve(ctx),
        { concurrency: 4 },
      );
      assert.equal(r.submitted, 12, r.error ?? "");
      assert.equal(counted.logins(), 1, "one login for the whole batch");
      assert.equal(sim.submissions.size, 12);
      assert.ok(sim.received.every((f) => f.verified), "every signature verifies");
      assert.equal(sim.received.length, 24, "D1 and D6 of each company");
      await store.close();
      await portal.close();
      journal.close();
      counted.api.unload();
    } finally {
      await sim.stop();
      await tmp.remove();
    }
  },
});
