/**
 * A live folder-wide filing and the NRA's Retry-After (docs/local-input.md § How a batch files):
 * the simulator answers one submission with 429 and `Retry-After: 2`; the whole batch waits (its
 * progress says so), then files that company again, and every company is filed once.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { writeCompanyTree } from "../_helpers/company_tree.ts";
import { issueToken } from "../_helpers/e2e.ts";
import { confirmWithPin, P12_PIN, SENDER_ID, startLiveWorld } from "../_helpers/live_agent.ts";
import { skipUnless } from "../_helpers/require_tool.ts";

Deno.test({
  name:
    "[e2e] live batch: a 429 with Retry-After pauses the whole batch, then the company is filed",
  ignore: skipUnless(["openssl"], "live batch Retry-After test"),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const w = await startLiveWorld({ sim: { latencyMs: 20 }, contract: true });
    try {
      const root = join(w.dir, "clients");
      const eiks = await writeCompanyTree(root, 8, 2026, 9, 32_000_000);
      w.sim.fail({
        on: "submit",
        fault: {
          kind: "status",
          status: 429,
          body: { code: 429, reason: "Too Many Requests" },
          headers: { "retry-after": "2" },
        },
        times: 1,
      });
      const token = await issueToken(w.ts.url, w.apiKey, { typeId: "dec1_6_batch", eiks });
      const batchId = crypto.randomUUID();
      const run = fetch(`${w.agent.url}/api/v1/operations/dec1_6_batch`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "x-svc-batch-id": batchId,
          "x-svc-sender-id": SENDER_ID,
        },
        body: JSON.stringify({ rootFolder: root, year: 2026, month: 9 }),
      }).then(async (r) => ({ status: r.status, json: await r.json() }));
      await confirmWithPin(w.agent, SENDER_ID, P12_PIN);
      const t0 = Date.now();
      let waited: Record<string, unknown> | null = null;
      for (;;) {
        const r = await fetch(`${w.agent.url}/api/v1/batches/${batchId}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const p = await r.json();
        equal(r.status, 200, JSON.stringify(p));
        if (p.waiting) waited ??= p;
        if (p.state === "done") break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const done = await run;
      equal(done.status, 200, JSON.stringify(done.json).slice(0, 400));
      equal(done.json.submitted, 8);
      ok(waited, "the progress said the batch waits");
      equal((waited.waiting as { reason: string }).reason, "retry_after");
      ok(Date.now() - t0 >= 2000, "the batch waited the Retry-After");
      equal(w.sim.stats.submitCalls, 9, "8 companies, one of them twice (the 429 was not filed)");
      equal(w.sim.submissions.size, 8);
    } finally {
      await w.stop();
    }
  },
});
