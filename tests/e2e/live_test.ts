/**
 * Live mode end to end: a live key, the agent with senders on a SoftHSM2 token (RSA and EC keys)
 * and in a PKCS#12 file, filing `vat` and `dec1_6` to the NRA simulator over HTTPS; the PIN is
 * typed on the confirmation page; `openssl cms -verify` accepts every signature the simulator
 * received; a wrong PIN stops a folder-wide batch after the first attempt. Then (docs/journal.md):
 * a filing the NRA filed but answered too late is "unknown" and the same files are not sent again
 * until `journal resolve` (filed / not filed); and nothing the agent logs holds an EGN, a PIN, a
 * key or a token.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { SIM_CLIENT, startNraSimulator } from "../_helpers/nra_simulator.ts";
import { run, TEST_PERSONAL_ID, writePkcs12, writeTestPki } from "../_helpers/pki.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import { validEik, writeCompanyTree } from "../_helpers/company_tree.ts";
import {
  confirmWithPin,
  naturalPersonEgn,
  P12_PIN,
  SENDER_ID,
  startLiveWorld,
} from "../_helpers/live_agent.ts";
import { createKeyCli, issueToken, startAgent, startTokenService } from "../_helpers/e2e.ts";
import { createSoftHsmToken, TOKEN_PIN } from "../signing/softhsm_fixture.ts";

/** A PIN typed wrongly on the confirmation page (must not be logged either). */
const WRONG_PIN = "wrong-pin-4711";

const ignore = skipUnless(
  ["openssl", "softhsm2-util", "pkcs11-tool"],
  "live-mode end-to-end tests",
);

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
    await writePkcs12(pki.rsa, p12, "p12-pin");
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
          // Live VAT is off by default (docs/live-portal.md); this test files the assumed mapping.
          experimentalVatService: true,
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
        // Declarations 1 and 6 are more than the batch's page showed (a VAT return): it asks
        // again, for them only.
        const dec16 = file("dec1_6", {
          year: 2026,
          month: 9,
          dec1FilePath: join(base, "payroll", "EMPL2021.TXT"),
          dec6FilePath: join(base, "payroll", "NRA62007.TXT"),
        }, h);
        await confirmWithPin(agent, sender, pin);
        const d = await dec16;
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
      // The first company's same D1/D6 was filed above: the batch answers that filing from the
      // journal (no signature, nothing sent); the other stops at the wrong PIN.
      equal(b.submitted, 1, JSON.stringify(b));
      equal(b.items.find((i: { eik: string }) => i.eik === eik).outcome, "submitted");
      equal(b.failed, 1, JSON.stringify(b));
      equal(
        b.items.filter((i: { errorCode: string }) => i.errorCode === "PIN_INCORRECT").length,
        1,
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

Deno.test({
  name:
    "[e2e] live: a filing the NRA filed but answered too late stays unknown; the same files are refused with FILING_UNRESOLVED until journal resolve",
  ignore: skipUnless(["openssl"], "live-mode end-to-end tests"),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const w = await startLiveWorld({ timeoutSeconds: 3 });
    try {
      const [eik1, eik2] = [validEik(30_100_000), validEik(30_100_137)];
      const dec16 = async (eik: string, batch: string, confirm: boolean) => {
        const pending = w.file("dec1_6", eik, { year: 2026, month: 9, ...await w.payroll(eik) }, {
          "x-svc-batch-id": batch,
          "x-svc-sender-id": SENDER_ID,
        });
        if (confirm) await w.confirmWithPin();
        return await pending;
      };
      // 1. The NRA files it and answers after the agent's time-out: unknown.
      w.sim.fail({ on: "submit", fault: { kind: "accept_then_delay", ms: 8000 }, times: 1 });
      const batchA = crypto.randomUUID();
      const lost = await dec16(eik1, batchA, true);
      equal(lost.status, 502);
      equal(lost.json.errorCode, "PORTAL_TIMEOUT", JSON.stringify(lost.json));
      const details = lost.json.details as Record<string, unknown>;
      equal(details.outcome, "unknown");
      const id = String(details.filingId);
      equal(w.sim.submissions.size, 1, "the simulator filed it");
      const filed = [...w.sim.submissions.values()][0]!;
      // 2. A new batch with the same files: refused before anything is sent.
      const calls = w.sim.stats.submitCalls;
      const again = await dec16(eik1, crypto.randomUUID(), true);
      equal(again.json.errorCode, "FILING_UNRESOLVED", JSON.stringify(again.json));
      equal(again.json.errorKind, "PORTAL");
      equal((again.json.details as Record<string, unknown>).filingId, id);
      ok(String(again.json.error).includes(`journal resolve ${id} --filed`));
      equal(w.sim.stats.submitCalls, calls, "nothing was sent");
      const unknown = await w.journal(["list", "--state", "unknown"]);
      ok(unknown.stdout.includes(id), unknown.stdout);
      // 3. The accountant finds it filed on the portal: the retry answers what was recorded.
      const resolved = await w.journal([
        "resolve",
        id,
        "--filed",
        "--document-id",
        String(filed.documentId),
        "--income-number",
        filed.entryNumber,
      ], { USER: "accountant" });
      equal(resolved.code, 0, resolved.stderr);
      const replay = await dec16(eik1, batchA, false);
      equal(replay.status, 200, JSON.stringify(replay.json));
      equal(replay.json.documentId, String(filed.documentId));
      equal(replay.json.incomeNumber, filed.entryNumber);
      equal(w.sim.stats.submitCalls, calls, "not filed twice");

      // 4. Dropped unfiled after the time-out; found not filed: the retry sends it.
      w.sim.fail({ on: "submit", fault: { kind: "drop", ms: 8000 }, times: 1 });
      const batchC = crypto.randomUUID();
      const dropped = await dec16(eik2, batchC, true);
      equal(dropped.json.errorCode, "PORTAL_TIMEOUT");
      const id2 = String((dropped.json.details as Record<string, unknown>).filingId);
      equal((await dec16(eik2, crypto.randomUUID(), true)).json.errorCode, "FILING_UNRESOLVED");
      equal((await w.journal(["resolve", id2, "--not-filed"])).code, 0);
      const sent = await dec16(eik2, batchC, false);
      equal(sent.status, 200, JSON.stringify(sent.json));
      equal(sent.json.success, true);
      equal(w.sim.submissions.size, 2);
      const rows = JSON.parse((await w.journal(["export"])).stdout) as Record<string, unknown>[];
      const byId = new Map(rows.map((r) => [r.id, r]));
      equal(byId.get(id)!.state, "filed");
      equal(byId.get(id)!.resolvedBy, "accountant");
      equal(byId.get(id2)!.state, "not_filed");
      equal(byId.get(id2)!.resolution, "not_filed");
      equal(rows.find((r) => r.retryOf === id2)!.state, "filed");
    } finally {
      await w.stop();
    }
  },
});

Deno.test({
  name:
    "[e2e] live: no EGN, PIN, private key, API key or token in anything the agent logs (a natural person's EGN as the EIK)",
  ignore: skipUnless(["openssl"], "live-mode end-to-end tests"),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const w = await startLiveWorld({ agentEnv: { SVC_LOG_LEVEL: "debug" } });
    try {
      const egn = naturalPersonEgn();
      const body = { year: 2026, month: 9, ...await w.payroll(egn) };
      const send = async (pin: string) => {
        const pending = w.file("dec1_6", egn, body, {
          "x-svc-batch-id": crypto.randomUUID(),
          "x-svc-sender-id": SENDER_ID,
        });
        await w.confirmWithPin(pin);
        return await pending;
      };
      const filed = await send(P12_PIN);
      equal(filed.status, 200, JSON.stringify(filed.json));
      equal(filed.json.success, true);
      // A refusal, and a wrong PIN, are logged too.
      w.sim.fail({ on: "submit", fault: { kind: "status", status: 429, body: {} }, times: 1 });
      equal((await send(P12_PIN)).json.errorCode, "PORTAL_REJECTED");
      equal((await send(WRONG_PIN)).json.errorCode, "PIN_INCORRECT");
      const logged = w.agent.logs.map((l) => JSON.stringify(l)).join("\n") +
        w.agent.stdout.join("\n");
      ok(logged.includes(`"eik":"${egn.slice(0, 2)}******${egn.slice(8)}"`), "the EGN is masked");
      const secrets: [string, string][] = [
        ["the taxpayer's EGN", egn],
        ["the holder's EGN", TEST_PERSONAL_ID.replace("PNOBG-", "")],
        ["the PIN", P12_PIN],
        ["a wrong PIN", WRONG_PIN],
        ["the API key", w.apiKey],
        ["the OAuth client secret", SIM_CLIENT.secret],
        ["the private key", w.privateKeyPem.split("\n")[1]!],
        ...w.tokens.map((t, i) => [`agent token ${i}`, t] as [string, string]),
      ];
      for (const [what, secret] of secrets) ok(!logged.includes(secret), `${what} was logged`);
      ok(!/sim-[0-9a-f]{8}-/.test(logged), "a portal access token was logged");
      ok(!/eyJ[A-Za-z0-9_-]{10,}\./.test(logged), "a JWT was logged");
    } finally {
      await w.stop();
    }
  },
});
