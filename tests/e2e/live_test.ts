/**
 * Live mode end to end: a live key, the agent with senders on a SoftHSM2 token (RSA and EC keys)
 * and in a PKCS#12 file, filing `vat` and `dec1_6` to the NRA simulator over HTTPS; the PIN is
 * typed on the confirmation page; `openssl cms -verify` accepts every signature the simulator
 * received; a wrong PIN stops a folder-wide batch after the first attempt.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { SIM_CLIENT, startNraSimulator } from "../_helpers/nra_simulator.ts";
import { run, runOk, writeTestPki } from "../_helpers/pki.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import { writeCompanyTree } from "../_helpers/company_tree.ts";
import {
  createKeyCli,
  issueToken,
  type Proc,
  startAgent,
  startTokenService,
} from "../_helpers/e2e.ts";
import { createSoftHsmToken, TOKEN_PIN } from "../signing/softhsm_fixture.ts";

const ignore = skipUnless(
  ["openssl", "softhsm2-util", "pkcs11-tool"],
  "live-mode end-to-end tests",
);

/** Confirm the next page, typing the PIN. */
async function confirmWithPin(agent: Proc, senderId: string, pin: string) {
  const log = await agent.waitLog("confirmation page opened", 20_000);
  const url = String(log.url);
  const html = await (await fetch(url)).text();
  ok(html.includes('name="pin"'), "live mode asks for the PIN on the page");
  const nonce = /name="nonce" value="([^"]+)"/.exec(html)![1]!;
  const res = await fetch(`${url}/decision`, {
    method: "POST",
    headers: { origin: new URL(url).origin, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      seen: /name="seen" id="seen" value="(\d+)"/.exec(html)![1]!,
      nonce,
      decision: "confirm",
      senderId,
      pin,
    }),
  });
  await res.body?.cancel();
  equal(res.status, 200);
}

Deno.test({
  name:
    "[e2e] live vat and dec1_6 filings signed on SoftHSM2 (RSA, EC) and PKCS#12 are accepted by the NRA simulator and verify with openssl",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-live-" });
    const pki = await writeTestPki(await Deno.makeTempDir({ dir, prefix: "pki-" }));
    const hsm = await createSoftHsmToken(pki, join(dir, "hsm"));
    const p12 = join(dir, "sender.p12");
    await runOk("openssl", [
      "pkcs12",
      "-export",
      "-in",
      pki.rsa.certPem,
      "-inkey",
      pki.rsa.keyPem,
      "-out",
      p12,
      "-passout",
      "pass:p12-pin",
    ]);
    await using sim = await startNraSimulator({ recognised: "any", powerOfAttorney: "any" });
    const caFile = join(dir, "sim-ca.pem");
    await Deno.writeTextFile(caFile, sim.caPem);
    const agentDir = join(dir, "agent");
    await Deno.mkdir(agentDir);
    await Deno.writeTextFile(
      join(agentDir, "agent.json"),
      JSON.stringify({
        senders: [
          {
            id: "hsm-rsa",
            displayName: "Иван Петров (SoftHSM RSA)",
            keystore: { type: "pkcs11", module: hsm.module, tokenLabel: "test", certId: "id=01" },
          },
          {
            id: "hsm-ec",
            displayName: "Иван Петров (SoftHSM EC)",
            keystore: { type: "pkcs11", module: hsm.module, tokenLabel: "test", certId: "id=02" },
          },
          {
            id: "p12",
            displayName: "Иван Петров (PKCS#12)",
            keystore: { type: "pkcs12", file: p12 },
          },
        ],
        portal: {
          baseUrl: sim.url,
          environment: "test",
          clientId: SIM_CLIENT.id,
          clientSecret: SIM_CLIENT.secret,
          caFile,
        },
      }),
    );
    const tree = join(dir, "clients");
    const [eik, eik2] = await writeCompanyTree(tree, 2, 2026, 9);
    const ts = await startTokenService(join(dir, "ts"));
    const agent = await startAgent(agentDir, ts.url, hsm.env);
    try {
      const key = await createKeyCli(join(dir, "ts"), "live");
      const base = join(tree, eik!, "2026-09");
      const file = async (typeId: string, body: unknown, headers: Record<string, string>) => {
        const token = await issueToken(ts.url, key, { typeId, eik: eik! });
        const r = await fetch(`${agent.url}/api/v1/operations/${typeId}`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            ...headers,
          },
          body: JSON.stringify(body),
        });
        return { status: r.status, json: await r.json() };
      };
      for (
        const [sender, pin] of [["hsm-rsa", TOKEN_PIN], ["hsm-ec", TOKEN_PIN], [
          "p12",
          "p12-pin",
        ]] as const
      ) {
        const h = { "x-svc-batch-id": crypto.randomUUID(), "x-svc-sender-id": sender };
        const vat = file("vat", { eik, year: 2026, month: 9 }, {
          ...h,
          "x-svc-file-path": join(base, "vat"),
        });
        await confirmWithPin(agent, sender, pin);
        const v = await vat;
        equal(v.status, 200, JSON.stringify(v.json));
        equal(v.json.success, true, JSON.stringify(v.json));
        const d = await file("dec1_6", {
          year: 2026,
          month: 9,
          dec1FilePath: join(base, "payroll", "EMPL2021.TXT"),
          dec6FilePath: join(base, "payroll", "NRA62007.TXT"),
        }, h);
        equal(d.status, 200, JSON.stringify(d.json));
        equal(d.json.success, true, JSON.stringify(d.json));
      }
      ok(sim.received.length >= 3 * 5, `received ${sim.received.length} files`);
      // openssl accepts every signature the simulator received.
      for (const [i, f] of sim.received.entries()) {
        const c = join(dir, `r${i}.bin`);
        const s = join(dir, `r${i}.p7s`);
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
          pki.caPem,
          "-purpose",
          "any",
          "-out",
          "/dev/null",
        ]);
        ok(r.code === 0 && /Verification successful/.test(r.stderr), `${f.fileName}: ${r.stderr}`);
      }

      // A wrong PIN stops a folder-wide batch after the first attempt.
      const before = sim.stats.submitCalls;
      const attemptsBefore = agent.logs.filter((l) => l.msg === "portal submit").length;
      const batchToken = await issueToken(ts.url, key, {
        typeId: "dec1_6_batch",
        eiks: [eik!, eik2!],
      });
      const batchId = crypto.randomUUID();
      const pending = fetch(`${agent.url}/api/v1/operations/dec1_6_batch`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${batchToken}`,
          "content-type": "application/json",
          "x-svc-batch-id": batchId,
        },
        body: JSON.stringify({ rootFolder: tree, year: 2026, month: 9 }),
      });
      await confirmWithPin(agent, "hsm-rsa", "9999");
      const b = await (await pending).json();
      equal(b.failed, 2, JSON.stringify(b));
      equal(
        b.items.filter((i: { errorCode: string }) => i.errorCode === "PIN_INCORRECT").length,
        2,
      );
      equal(sim.stats.submitCalls, before, "nothing was sent");
      const attempts = agent.logs.filter((l) => l.msg === "portal submit").length - attemptsBefore;
      equal(attempts, 1, "one signing attempt, then the batch stopped (no token lock-out)");
      // The batch is refused after the wrong PIN: a later request of it gets SENDER_NOT_CHOSEN.
      const again = await file("dec1_6", {
        year: 2026,
        month: 9,
        dec1FilePath: join(base, "payroll", "EMPL2021.TXT"),
      }, {
        "x-svc-batch-id": batchId,
      });
      equal(again.json.errorCode, "SENDER_NOT_CHOSEN");
    } finally {
      await agent.stop();
      await ts.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
