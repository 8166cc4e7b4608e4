/**
 * Crash safety of the submission journal: the agent is SIGKILLed at each step of a filing (before
 * send, after send before the answer is journaled, after the answer) across 100 filings against the
 * test portal. After restart the journal holds every filing exactly once, none was filed twice, and
 * reconciliation fills in the answers lost in the crash. In live mode (docs/journal.md § Unknown →
 * resolve) the NRA simulator cannot be asked afterwards: a filing killed after it was sent stays
 * "unknown", and the same files are refused (FILING_UNRESOLVED) until a person runs `journal
 * resolve` — the token service on PostgreSQL there.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { validEik } from "../_helpers/company_tree.ts";
import { SENDER_ID, startLiveWorld } from "../_helpers/live_agent.ts";
import { pgIgnored } from "../_helpers/postgres.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import {
  createKeyCli,
  decideNext,
  issueToken,
  type Proc,
  startAgent,
  startTokenService,
} from "../_helpers/e2e.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const POINTS = ["before_send", "after_send", "after_answer"] as const;
const PER_POINT = 10;
const TOTAL = 100;

interface Filing {
  eik: string;
  key: string;
}

async function file(agent: Proc, tsUrl: string, apiKey: string, f: Filing, batch: string) {
  const token = await issueToken(tsUrl, apiKey, { typeId: "dec731", eik: f.eik });
  const res = await fetch(`${agent.url}/api/v1/operations/dec731`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "x-svc-batch-id": batch,
      "idempotency-key": f.key,
    },
    body: JSON.stringify({ eik: f.eik, year: 2025 }),
  });
  return { status: res.status, json: await res.json() };
}

Deno.test({
  name:
    "[e2e] SIGKILL at each step of 100 filings: every filing journaled once, none filed twice, answers reconciled",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-crash-" });
    const ts = await startTokenService(`${dir}/ts`);
    const apiKey = await createKeyCli(`${dir}/ts`, "test");
    const filings: Filing[] = Array.from({ length: TOTAL }, (_, i) => ({
      eik: validEik(40_000_000 + i * 7),
      key: crypto.randomUUID(),
    }));
    const logs: Record<string, unknown>[][] = [];
    try {
      // Three crashing runs, 10 filings held at one point each, then SIGKILL.
      for (const [p, point] of POINTS.entries()) {
        const agent = await startAgent(`${dir}/agent`, ts.url, { SVC_TEST_HOLD_AT: point });
        logs.push(agent.logs);
        const batch = crypto.randomUUID();
        const group = filings.slice(p * PER_POINT, (p + 1) * PER_POINT);
        const early: string[] = [];
        const calls = group.map((f) =>
          file(agent, ts.url, apiKey, f, batch).then(
            (r) => early.push(`${r.status} ${JSON.stringify(r.json)}`),
            () => null, // the SIGKILL below ends the held requests
          )
        );
        await decideNext(agent, "confirm", undefined, PER_POINT);
        for (let i = 0; i < PER_POINT; i++) {
          await agent.waitLog("journal hold", 20_000).catch((e) => {
            // Name what the filings that never reached the hold answered, and the agent's log.
            throw new Error(
              `${e.message} at ${point}, hold ${i}: answers ${JSON.stringify(early)}; log ${
                JSON.stringify(agent.logs.slice(-15))
              }`,
            );
          });
        }
        agent.child.kill("SIGKILL");
        await agent.child.status;
        await Promise.all(calls);
      }
      // A normal run: reconcile, retry the crashed filings with the same keys, file the rest,
      // and retry a few of those too.
      const agent = await startAgent(`${dir}/agent`, ts.url);
      logs.push(agent.logs);
      await new Promise((r) => setTimeout(r, 100));
      // Each start reconciles what the run before it left behind.
      const rec = logs.flat().filter((l) => l.msg === "journal reconciled");
      const sum = (k: string) => rec.reduce((n, l) => n + Number(l[k]), 0);
      deepStrictEqual([sum("notSent"), sum("reconciled"), sum("unknown")], [
        PER_POINT,
        PER_POINT,
        0,
      ]);
      const batch = crypto.randomUUID();
      // A confirmed batch covers the companies its page showed (docs/confirmation.md § What a
      // confirmed batch covers): ten companies a page, their requests joining it.
      const answers: Awaited<ReturnType<typeof file>>[] = [];
      for (let g = 0; g < TOTAL; g += PER_POINT) {
        const group = filings.slice(g, g + PER_POINT).map((f) =>
          file(agent, ts.url, apiKey, f, batch)
        );
        await decideNext(agent, "confirm", undefined, PER_POINT);
        answers.push(...await Promise.all(group));
      }
      for (const f of filings.slice(40, 50)) {
        answers.push(await file(agent, ts.url, apiKey, f, batch));
      }
      for (const a of answers) {
        equal(a.status, 200, JSON.stringify(a.json));
        equal(a.json.success, true);
      }
      // Reconciled answers are real: the result operation knows their documentIds. The reads
      // are items of their own (docs/confirmation.md § What a confirmed batch covers): sent
      // together, they share one page.
      const reads = filings.slice(PER_POINT, 2 * PER_POINT).map(async (f) => {
        const a = answers[filings.indexOf(f)]!;
        const token = await issueToken(ts.url, apiKey, { typeId: "dec731_result", eik: f.eik });
        const r = await fetch(`${agent.url}/api/v1/operations/dec731_result`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "x-svc-batch-id": batch,
          },
          body: JSON.stringify({ eik: f.eik, documentId: a.json.documentId }),
        });
        return await r.json();
      });
      await decideNext(agent, "confirm", undefined, PER_POINT);
      for (const r of await Promise.all(reads)) equal(r.status, "ok", JSON.stringify(r));
      await agent.stop();

      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          MAIN,
          "journal",
          "export",
          "--format",
          "json",
          "--data-dir",
          `${dir}/agent`,
        ],
      }).output();
      const rows = JSON.parse(new TextDecoder().decode(out.stdout)) as {
        id: string;
        idempotencyKey: string;
        state: string;
        success: boolean;
      }[];
      equal(rows.length, TOTAL, "every filing exactly once");
      equal(new Set(rows.map((r) => r.idempotencyKey)).size, TOTAL);
      ok(rows.every((r) => r.state === "filed" && r.success === true));
      // None filed twice: one portal submission per filing over all runs.
      const submits = new Map<string, number>();
      for (const l of logs.flat()) {
        if (l.msg === "portal submit") {
          submits.set(String(l.filingId), (submits.get(String(l.filingId)) ?? 0) + 1);
        }
      }
      equal(submits.size, TOTAL);
      ok([...submits.values()].every((n) => n === 1), JSON.stringify([...submits.values()]));
    } finally {
      await ts.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name:
    "[e2e] live: SIGKILL after the submit was sent leaves the filing unknown; the same files are refused with FILING_UNRESOLVED until journal resolve (token service on PostgreSQL)",
  ignore: pgIgnored() || skipUnless(["openssl"], "live-mode crash test"),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const w = await startLiveWorld({
      tokenDb: "postgres",
      agentEnv: { SVC_TEST_HOLD_AT: "after_send" },
    });
    try {
      const eik = validEik(30_200_000);
      const body = { year: 2026, month: 9, ...await w.payroll(eik) };
      const send = (batch: string) =>
        w.file("dec1_6", eik, body, { "x-svc-batch-id": batch, "x-svc-sender-id": SENDER_ID });
      // Held after the simulator filed it, then killed: no answer was journaled.
      const batchA = crypto.randomUUID();
      const held = send(batchA).catch(() => null);
      await w.confirmWithPin();
      const hold = await w.agent.waitLog("journal hold", 20_000);
      await w.restart({ kill: true });
      await held;
      equal(w.sim.submissions.size, 1, "the simulator filed it");
      const id = String(hold.filingId);
      const rec = w.agent.logs.find((l) => l.msg === "journal reconciled");
      equal(rec?.unknown, 1, JSON.stringify(w.agent.logs));
      // A new batch with the same files: refused, nothing sent.
      const calls = w.sim.stats.submitCalls;
      const pending = send(crypto.randomUUID());
      await w.confirmWithPin();
      const again = await pending;
      equal(again.status, 502);
      equal(again.json.errorCode, "FILING_UNRESOLVED", JSON.stringify(again.json));
      equal((again.json.details as Record<string, unknown>).filingId, id);
      equal(w.sim.stats.submitCalls, calls);
      // The same batch after the restart: the same row, still unknown.
      const retry = send(batchA);
      await w.confirmWithPin();
      equal((await retry).json.errorCode, "FILING_OUTCOME_UNKNOWN");
      // Found filed on the portal: resolved, the same batch answers what was recorded.
      const stored = [...w.sim.submissions.values()][0]!;
      const resolved = await w.journal([
        "resolve",
        id,
        "--filed",
        "--document-id",
        String(stored.documentId),
        "--income-number",
        stored.entryNumber,
      ]);
      equal(resolved.code, 0, resolved.stderr);
      const replay = await send(batchA);
      equal(replay.status, 200, JSON.stringify(replay.json));
      equal(replay.json.documentId, String(stored.documentId));
      equal(w.sim.stats.submitCalls, calls, "never filed twice");
      // A resolved row cannot be resolved again.
      const twice = await w.journal(["resolve", id, "--not-filed"]);
      equal(twice.code, 1);
      ok(/^Filing ".*" is filed, not unknown: /.test(twice.stderr), twice.stderr);
    } finally {
      await w.stop();
    }
  },
});
