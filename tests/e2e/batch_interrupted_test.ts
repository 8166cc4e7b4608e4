/**
 * A folder-wide live filing the agent is killed in (docs/journal.md § Interrupted batches): a
 * batch of N companies, SIGKILL after a few were filed; after the restart
 * `GET /api/v1/batches/{batchId}` and the console's Filings page show the batch interrupted,
 * with exactly the companies the journal does not hold as filed; resending the same request
 * (the same batch id) files only those — the simulator receives each company once.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { writeCompanyTree } from "../_helpers/company_tree.ts";
import type { Proc } from "../_helpers/e2e.ts";
import { confirmWithPin, P12_PIN, SENDER_ID, startLiveWorld } from "../_helpers/live_agent.ts";
import { skipUnless } from "../_helpers/require_tool.ts";

const N = 8;
const AGENT_ENV = { SVC_BATCH_CONCURRENCY: "1" };

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
    "[e2e] live batch killed after k companies: interrupted with the N−k remaining; the resend files only them",
  ignore: skipUnless(["openssl"], "interrupted batch test"),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const w = await startLiveWorld({ sim: { latencyMs: 80 }, agentEnv: AGENT_ENV, contract: true });
    try {
      const root = join(w.dir, "clients");
      const eiks = await writeCompanyTree(root, N, 2026, 9, 32_000_000);
      const body = { rootFolder: root, year: 2026, month: 9 };
      const batchId = crypto.randomUUID();
      const send = () =>
        w.file("dec1_6_batch", eiks, body, {
          "x-svc-batch-id": batchId,
          "x-svc-sender-id": SENDER_ID,
        });
      const run = send().catch(() => null);
      await confirmWithPin(w.agent, SENDER_ID, P12_PIN);
      const token = w.tokens.at(-1)!;
      const until = Date.now() + 30_000;
      while (w.sim.submissions.size < 3 && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 5));
      }
      ok(w.sim.submissions.size >= 3 && w.sim.submissions.size < N, "killed mid-batch");
      await w.restart({ kill: true, env: AGENT_ENV });
      await run;

      // The journal after the restart (its reconciliation done): the companies filed.
      const out = await w.journal(["export", "--format", "json"]);
      equal(out.code, 0, out.stderr);
      const rows = JSON.parse(out.stdout) as { eik: string; state: string }[];
      const filed = new Set(rows.filter((r) => r.state === "filed").map((r) => r.eik));
      ok(filed.size >= 2, `k = ${filed.size}`);
      console.log(`interrupted batch test: k = ${filed.size} filed before the kill`);
      const remaining = eiks.filter((e) => !filed.has(e)).sort();
      // A company sent as the agent died is unknown: listed, never sent again by the resend.
      const unknown = new Set(rows.filter((r) => r.state === "unknown").map((r) => r.eik));

      // The page's view: interrupted, with the N−k remaining.
      const res = await fetch(`${w.agent.url}/api/v1/batches/${batchId}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const progress = await res.json();
      equal(res.status, 200, JSON.stringify(progress));
      equal(progress.state, "interrupted");
      equal(progress.filed, filed.size);
      deepStrictEqual(progress.remaining, remaining);
      equal(progress.remaining.length, N - filed.size);

      // The console's Filings page says so and links to the list; the batch's page lists them.
      const cookie = await consoleCookie(w.agent, w.agentDir);
      const page = await (await fetch(`${w.agent.url}/console/filings`, {
        headers: { cookie },
      })).text();
      ok(page.includes(`data-state="interrupted"`), page.slice(0, 500));
      ok(page.includes(`${N - filed.size} от ${N} фирми още не са подадени`), "in Bulgarian");
      const list = await (await fetch(`${w.agent.url}/console/batches/${batchId}`, {
        headers: { cookie },
      })).text();
      for (const eik of eiks) {
        equal(list.includes(`>${eik}<`), !filed.has(eik), `listed iff not filed: ${eik}`);
      }

      // The resend: the same request; only the remaining companies reach the simulator.
      const before = w.sim.stats.submitCalls;
      const again = send();
      await confirmWithPin(w.agent, SENDER_ID, P12_PIN);
      const final = await again;
      equal(final.status, 200, JSON.stringify(final.json).slice(0, 500));
      equal(final.json.submitted, N - unknown.size);
      equal(final.json.unknown, unknown.size);
      equal(
        w.sim.stats.submitCalls - before,
        remaining.length - unknown.size,
        "only the remaining were sent",
      );
      const byEik = new Map<string, number>();
      for (const s of w.sim.submissions.values()) {
        const eik = String(s.body.taxpayerPin);
        byEik.set(eik, (byEik.get(eik) ?? 0) + 1);
      }
      ok([...byEik.values()].every((n) => n === 1), "no company filed twice");
      equal(byEik.size, N - unknown.size + [...unknown].filter((e) => byEik.has(e)).length);
      const after = JSON.parse((await w.journal(["export", "--format", "json"])).stdout) as {
        eik: string;
        state: string;
      }[];
      const filedRows = after.filter((r) => r.state === "filed");
      equal(filedRows.length, N - unknown.size, "one filed journal row per company");
      equal(new Set(filedRows.map((r) => r.eik)).size, N - unknown.size);
      // Done now: no longer interrupted.
      const done = await (await fetch(`${w.agent.url}/api/v1/batches/${batchId}`, {
        headers: { authorization: `Bearer ${w.tokens.at(-1)}` },
      })).json();
      equal(done.state, "done");
    } finally {
      await w.stop();
    }
  },
});
