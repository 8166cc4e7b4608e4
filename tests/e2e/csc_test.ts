/**
 * Cloud signatures end to end (docs/signing.md § Remote signing): `senders add --csc` signs in at
 * the CSC simulator in Chromium (OAuth 2.0 + PKCE, the CLI's loopback callback), the agent files
 * D1/D6 live to the NRA simulator signed through the CSC API (openssl verifies each CMS, D1 and
 * D6 approved together), a folder-wide filing of 50 companies takes one approval (and three when
 * the provider allows 20 hashes per approval), and each provider fault ends in its catalog code
 * with nothing sent to the NRA.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { readAgentFile, writeAgentFile } from "../../src/agent/senders/mod.ts";
import { addCscSenderWithBrowser, assertAdded, CSC_PIN, startCscWorld } from "../_helpers/csc.ts";
import { confirmWithPin, type LiveWorld, startLiveWorld } from "../_helpers/live_agent.ts";
import { run } from "../_helpers/pki.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import { writeCompanyTree } from "../_helpers/company_tree.ts";
import { CHROMIUM } from "../_helpers/browser.ts";

const ignore = skipUnless(["openssl", CHROMIUM], "cloud signature end-to-end tests");
const CLOUD = "cloud";

async function verifyAll(w: LiveWorld, caPem: string, from = 0): Promise<number> {
  const ca = join(w.dir, "csc-signer-ca.pem");
  await Deno.writeTextFile(ca, caPem);
  let n = 0;
  for (const [i, f] of w.sim.received.slice(from).entries()) {
    const c = join(w.dir, `csc${i}.bin`);
    const s = join(w.dir, `csc${i}.p7s`);
    await Deno.writeFile(c, f.content);
    await Deno.writeFile(s, f.pkcs7);
    const r = await run("openssl", [
      "cms",
      "-verify",
      "-binary",
      "-inform",
      "DER",
      "-in",
      s,
      "-content",
      c,
      "-CAfile",
      ca,
      "-purpose",
      "any",
      "-out",
      "/dev/null",
    ]);
    ok(r.code === 0 && /Verification successful/.test(r.stderr), `${f.fileName}: ${r.stderr}`);
    n++;
  }
  return n;
}

/** Change the cloud sender's reference in agent.json (then restart the agent). */
async function editRef(w: LiveWorld, change: Record<string, unknown>): Promise<void> {
  const file = await readAgentFile(w.agentDir);
  await writeAgentFile(w.agentDir, {
    ...file,
    senders: file.senders.map((s) =>
      s.id === CLOUD ? { ...s, keystore: { ...s.keystore, ...change } } : s
    ),
  });
}

Deno.test({
  name:
    "[e2e] csc: senders add --csc signs in in Chromium; live D1/D6 signed through the CSC simulator verify with openssl, one approval for both files",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const w = await startLiveWorld();
    const csc = await startCscWorld(w.dir);
    try {
      const added = await addCscSenderWithBrowser(w.agentDir, csc, [
        "--name",
        "Иван Петров (облачен КЕП)",
        "--id",
        CLOUD,
        "--credential-id",
        csc.sim.credentials.explicit,
      ]);
      assertAdded(added, CLOUD);
      ok(added.stdout.includes("PIN on the confirmation page"), added.stdout);
      ok(!added.stdout.includes("8001010008"), "the EGN is masked");
      const text = await Deno.readTextFile(join(w.agentDir, "agent.json"));
      ok(!/refresh/i.test(text), "no refresh token in agent.json");
      const ref = (await readAgentFile(w.agentDir)).senders.find((s) => s.id === CLOUD)!
        .keystore as Record<string, string>;
      equal(ref.type, "csc");
      const sealed = await Deno.readTextFile(ref.tokenFile!);
      ok(sealed.includes('"alg":"A256GCM"'), "the refresh token is sealed");
      equal(csc.sim.stats.signIns, 1);

      await w.restart();
      const files = await w.payroll("203456783");
      const filing = w.file("dec1_6", "203456783", { year: 2026, month: 9, ...files }, {
        "x-svc-batch-id": crypto.randomUUID(),
        "x-svc-sender-id": CLOUD,
      });
      await confirmWithPin(w.agent, CLOUD, CSC_PIN);
      const r = await filing;
      equal(r.status, 200, JSON.stringify(r.json));
      equal(r.json.success, true, JSON.stringify(r.json));
      equal(csc.sim.stats.authorizations, 1, "D1 and D6 approved together");
      equal(csc.sim.stats.hashesSigned, 2);
      equal(await verifyAll(w, csc.sim.signerCaPem), 2);
      const logs = JSON.stringify(w.agent.logs);
      ok(!logs.includes(`"${CSC_PIN}"`), "the PIN is not logged");
      ok(!logs.includes(sealed), "the sealed token is not logged");
    } finally {
      await csc.stop();
      await w.stop();
    }
  },
});

Deno.test({
  name:
    "[e2e] csc: a folder-wide filing of 50 companies takes one approval (three when the provider allows 20 hashes per approval)",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const w = await startLiveWorld({ contract: true });
    const csc = await startCscWorld(w.dir);
    try {
      assertAdded(
        await addCscSenderWithBrowser(w.agentDir, csc, [
          "--name",
          "Иван Петров (облачен КЕП)",
          "--id",
          CLOUD,
          "--credential-id",
          csc.sim.credentials.explicit,
        ]),
        CLOUD,
      );
      await w.restart();
      const root = join(w.dir, "clients");
      const eiks = await writeCompanyTree(root, 50, 2026, 9, 33_000_000);
      equal(eiks.length, 50);
      const batch = async (subset: string[], month: number) => {
        const filing = w.file("dec1_6_batch", subset, { rootFolder: root, year: 2026, month }, {
          "x-svc-batch-id": crypto.randomUUID(),
          "x-svc-sender-id": CLOUD,
        });
        await confirmWithPin(w.agent, CLOUD, CSC_PIN);
        return await filing;
      };
      const r = await batch(eiks, 9);
      equal(r.status, 200, JSON.stringify(r.json).slice(0, 400));
      equal(r.json.submitted, 50, JSON.stringify(r.json).slice(0, 400));
      equal(csc.sim.stats.authorizations, 1, "one approval for the whole batch");
      equal(csc.sim.stats.hashesSigned, 100, "D1 and D6 of 50 companies");
      equal(w.sim.received.length, 100);
      await verifyAll(w, csc.sim.signerCaPem, 98);

      // The provider allows 20 hashes per approval: 25 other companies' October (50 files)
      // take three approvals.
      const oct = join(w.dir, "clients-oct");
      const eiks2 = await writeCompanyTree(oct, 25, 2026, 10, 34_000_000);
      csc.sim.faults.maxHashes = 20;
      const before = csc.sim.stats.authorizations;
      const filing = w.file("dec1_6_batch", eiks2, { rootFolder: oct, year: 2026, month: 10 }, {
        "x-svc-batch-id": crypto.randomUUID(),
        "x-svc-sender-id": CLOUD,
      });
      await confirmWithPin(w.agent, CLOUD, CSC_PIN);
      const r2 = await filing;
      equal(r2.json.submitted, 25, JSON.stringify(r2.json).slice(0, 400));
      equal(csc.sim.stats.authorizations - before, 3, "50 hashes in parts of 20");
    } finally {
      await csc.stop();
      await w.stop();
    }
  },
});

Deno.test({
  name:
    "[e2e] csc: declined, wrong SAD, wrong key, expired sign-in, slow provider and a declined sign-in end in catalog codes; nothing reaches the NRA",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const w = await startLiveWorld();
    const csc = await startCscWorld(w.dir);
    try {
      const declined = await addCscSenderWithBrowser(w.agentDir, csc, [
        "--name",
        "x",
        "--id",
        "nope",
      ], "decline");
      equal(declined.code, 1, declined.stdout + declined.stderr);
      ok(/declined|did not sign you in/i.test(declined.stderr), declined.stderr);
      assertAdded(
        await addCscSenderWithBrowser(w.agentDir, csc, [
          "--name",
          "Иван Петров (облачен КЕП)",
          "--id",
          CLOUD,
          "--credential-id",
          csc.sim.credentials.explicit,
        ]),
        CLOUD,
      );
      await editRef(w, { timeoutSeconds: 2 });
      await w.restart();
      const files = await w.payroll("203456783");
      const once = async () => {
        const f = w.file("dec1_6", "203456783", { year: 2026, month: 9, ...files }, {
          "x-svc-batch-id": crypto.randomUUID(),
          "x-svc-sender-id": CLOUD,
        });
        await confirmWithPin(w.agent, CLOUD, CSC_PIN);
        return await f;
      };
      const cases: [keyof typeof csc.sim.faults, unknown, string, RegExp][] = [
        ["decline", true, "SENDER_NOT_CHOSEN", /declined/],
        ["wrongSad", true, "SIGNING_FAILED", /SAD is invalid/],
        ["wrongKey", true, "SIGNING_FAILED", /does not verify/],
        ["delayMs", 2_500, "REMOTE_SIGNING_TIMEOUT", /did not answer/],
        ["expiredRefresh", true, "REMOTE_SIGN_IN_REQUIRED", /sign in again/],
      ];
      for (const [fault, value, code, words] of cases) {
        (csc.sim.faults as Record<string, unknown>)[fault] = value;
        const r = await once();
        (csc.sim.faults as Record<string, unknown>)[fault] = undefined;
        equal(r.json.errorCode, code, `${fault}: ${JSON.stringify(r.json)}`);
        ok(words.test(String(r.json.error)), `${fault}: ${r.json.error}`);
        if (fault === "wrongSad") {
          const details = r.json.details as Record<string, unknown>;
          equal(details.providerError, "invalid_request", JSON.stringify(details));
          equal(details.providerDescription, "SAD is invalid or expired");
        }
        ok(r.status >= 400 && r.status < 500 || r.status === 502, `${fault}: ${r.status}`);
      }
      equal(w.sim.stats.submitCalls, 0, "nothing was sent to the NRA");
      // After the faults, the same sender files.
      const r = await once();
      equal(r.json.success, true, JSON.stringify(r.json));
    } finally {
      await csc.stop();
      await w.stop();
    }
  },
});
