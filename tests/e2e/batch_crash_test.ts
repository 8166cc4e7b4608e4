/**
 * A folder-wide live filing survives `kill -9` (docs/local-input.md § Resuming after a crash):
 * the agent is SIGKILLed at 20 random moments of a D1/D6 batch against the NRA simulator (a
 * moment = after a random number of companies reached the simulator, plus a random few ms, so
 * kills land while signing, in flight and after answers). After each restart the same request
 * is sent again — the same batch id, and every fifth time a new one (as after its memory
 * lapsed). In the end: no company reached the simulator twice; every company is filed or
 * listed `unknown` with its journal row in the batch's answer and on the console's Filings page
 * (with the way to resolve it); the filed ones are exactly those the simulator holds.
 *
 * N is 300 companies, a month-end office's size (about a minute); `BATCH_CRASH_N=50` makes a
 * quicker run while working on the batch code.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { writeCompanyTree } from "../_helpers/company_tree.ts";
import type { Proc } from "../_helpers/e2e.ts";
import { confirmWithPin, P12_PIN, SENDER_ID, startLiveWorld } from "../_helpers/live_agent.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
// The moments are reproducible from the printed seed.
import { prng } from "../../scripts/bench/prng.ts";

const N = Number(Deno.env.get("BATCH_CRASH_N") ?? 300);
const KILLS = 20;
const AGENT_ENV = { SVC_BATCH_CONCURRENCY: "4" };

/** A console session of the agent (as `agent open` gets one): its cookie. */
async function consoleCookie(agent: Proc, agentDir: string): Promise<string> {
  const secret = await Deno.readTextFile(join(agentDir, "console.secret"));
  const link = await fetch(`${agent.url}/console/links`, {
    method: "POST",
    headers: { "x-svc-console-secret": secret.trim() },
  });
  const { url } = await link.json();
  const open = await fetch(url, { redirect: "manual" });
  await open.body?.cancel();
  return open.headers.get("set-cookie")!.split(";")[0]!;
}

Deno.test({
  name:
    `[e2e] live batch: SIGKILL at ${KILLS} random moments; each restart files exactly the companies not yet filed, none twice, unknown ones listed`,
  ignore: skipUnless(["openssl"], "live batch crash test"),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const seed = Number(Deno.env.get("BATCH_CRASH_SEED") ?? Date.now() % 1_000_000);
    console.log(`batch crash test: N=${N}, seed ${seed} (BATCH_CRASH_SEED to repeat)`);
    const rnd = prng(seed);
    const w = await startLiveWorld({
      sim: { latencyMs: 60 },
      agentEnv: AGENT_ENV,
      contract: true,
    });
    try {
      const root = join(w.dir, "clients");
      const eiks = await writeCompanyTree(root, N, 2026, 9, 31_000_000);
      equal(eiks.length, N);
      const body = { rootFolder: root, year: 2026, month: 9 };
      const send = (batchId: string) =>
        w.file("dec1_6_batch", eiks, body, {
          "x-svc-batch-id": batchId,
          "x-svc-sender-id": SENDER_ID,
        });
      let batchId = crypto.randomUUID();
      const logs: Record<string, unknown>[][] = [];
      for (let k = 0; k < KILLS; k++) {
        if (k > 0 && k % 5 === 0) batchId = crypto.randomUUID(); // its memory lapsed
        logs.push(w.agent.logs);
        const before = w.sim.stats.submitCalls;
        let ended = false;
        const run = send(batchId).catch(() => null).finally(() => (ended = true)); // the kill ends it
        await confirmWithPin(w.agent, SENDER_ID, P12_PIN);
        // A random moment: after 0–5 more companies reached the simulator, then 0–40 ms.
        const more = Math.floor(rnd() * 6);
        const until = Date.now() + 20_000;
        while (w.sim.stats.submitCalls < before + more && !ended && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 2));
        }
        await new Promise((r) => setTimeout(r, Math.floor(rnd() * 40)));
        await w.restart({ kill: true, env: AGENT_ENV });
        await run;
      }
      // The last run, to its end.
      logs.push(w.agent.logs);
      const last = send(batchId);
      await confirmWithPin(w.agent, SENDER_ID, P12_PIN);
      const final = await last;
      equal(final.status, 200, JSON.stringify(final.json).slice(0, 500));
      const items = final.json.items as {
        eik: string;
        outcome: string;
        filingId?: string | null;
        result: { documentId: string | null } | null;
      }[];
      equal(items.length, N);
      equal(final.json.failed, 0, JSON.stringify(items.filter((i) => i.outcome === "failed")));
      equal(Number(final.json.submitted) + Number(final.json.unknown), N);

      // No company reached the simulator twice.
      const byEik = new Map<string, number>();
      for (const s of w.sim.submissions.values()) {
        const eik = String(s.body.taxpayerPin);
        byEik.set(eik, (byEik.get(eik) ?? 0) + 1);
      }
      ok([...byEik.values()].every((n) => n === 1), "no company filed twice");
      // The filed ones are those the simulator holds, with its document numbers.
      const docs = new Map(
        [...w.sim.submissions.values()].map((
          s,
        ) => [String(s.body.taxpayerPin), String(s.documentId)]),
      );
      for (const i of items.filter((i) => i.outcome === "submitted")) {
        equal(i.result?.documentId, docs.get(i.eik), `filed ${i.eik} is the simulator's`);
      }
      // The unknown ones: each names its journal row, which is "unknown" in the journal.
      const unknown = items.filter((i) => i.outcome === "unknown");
      ok(unknown.every((i) => typeof i.filingId === "string"));
      const out = await w.journal(["export", "--format", "json"]);
      equal(out.code, 0, out.stderr);
      const rows = JSON.parse(out.stdout) as { id: string; eik: string; state: string }[];
      deepStrictEqual(
        rows.filter((r) => r.state === "unknown").map((r) => r.id).sort(),
        unknown.map((i) => i.filingId!).sort(),
      );
      ok(rows.filter((r) => r.state === "filed").length === final.json.submitted);
      // Every submit the simulator answered was journaled once (sent rows ≥ simulator's).
      ok(w.sim.submissions.size <= final.json.submitted + unknown.length);
      // The console's Filings page lists them with the way to resolve them.
      if (unknown.length > 0) {
        const cookie = await consoleCookie(w.agent, w.agentDir);
        for (const i of unknown) {
          const page = await (await fetch(
            `${w.agent.url}/console/filings?state=unknown&eik=${i.eik}`,
            { headers: { cookie } },
          )).text();
          ok(
            page.includes(`/console/filings/${i.filingId}/resolve`),
            `resolve form of ${i.eik}: ${page.slice(0, 300)}`,
          );
        }
      }
      console.log(
        `batch crash test: ${final.json.submitted} filed, ${unknown.length} unknown, ` +
          `${w.sim.stats.submitCalls} submit calls over ${KILLS} kills`,
      );
    } finally {
      await w.stop();
    }
  },
});
