/**
 * A folder-wide filing's progress over HTTP (docs/local-input.md § Progress): the agent as a
 * subprocess with a test portal that takes 100 ms per filing; the caller polls
 * `GET /api/v1/batches/{batchId}` with the token of its request while the batch runs, sees the
 * counts grow and the company being filed, gets FILING_IN_PROGRESS (not a second filing) for a
 * second request of the same batch id, and BATCH_NOT_FOUND with another token. The answers
 * match the OpenAPI document and never carry a path.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { writeCompanyTree } from "../_helpers/company_tree.ts";
import {
  createKeyCli,
  decideNext,
  issueToken,
  startAgent,
  startTokenService,
} from "../_helpers/e2e.ts";
import { responseValidator } from "../_helpers/openapi_validate.ts";
import { type BatchProgress, createAgentClient, isAgentError } from "../../clients/ts/client.ts";

Deno.test({
  name:
    "[e2e] a batch's progress is readable with its token while it runs; a second request of the batch gets FILING_IN_PROGRESS",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-batch-progress-" });
    const root = join(dir, "clients");
    const eiks = await writeCompanyTree(root, 24, 2026, 9);
    const ts = await startTokenService(`${dir}/ts`);
    const agent = await startAgent(`${dir}/agent`, ts.url, {
      SVC_TEST_PORTAL_DELAY_MS: "100",
      SVC_BATCH_CONCURRENCY: "2",
    });
    try {
      const key = await createKeyCli(`${dir}/ts`, "test");
      const doc = await (await fetch(`${agent.url}/api/v1/openapi.json`)).json();
      const check = responseValidator(doc);
      const batchId = crypto.randomUUID();
      const chosen = eiks.slice(0, 20);
      const body = JSON.stringify({ rootFolder: root, year: 2026, month: 9 });
      const post = (token: string) =>
        fetch(`${agent.url}/api/v1/operations/dec1_6_batch`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "x-svc-batch-id": batchId,
          },
          body,
        });
      const progress = async (token: string) => {
        const res = await fetch(`${agent.url}/api/v1/batches/${batchId}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const json = await res.json();
        equal(check("get", "/api/v1/batches/{batchId}", res.status, json), null);
        return { status: res.status, json };
      };
      const token = await issueToken(ts.url, key, { typeId: "dec1_6_batch", eiks: chosen });
      const run = post(token).then(async (r) => ({ status: r.status, json: await r.json() }));
      // Before the person confirms: the batch is known, nothing is filed.
      let early = await progress(token);
      for (let i = 0; early.status === 404 && i < 500; i++) {
        await new Promise((r) => setTimeout(r, 20));
        early = await progress(token);
      }
      equal(early.status, 200, JSON.stringify(early.json));
      equal(early.json.state, "running");
      equal(early.json.filed, 0);
      await decideNext(agent, "confirm");
      // While it runs: counts grow, the company being filed is named, a second request is refused.
      const seen: Record<string, unknown>[] = [];
      let second: { status: number; json: Record<string, unknown> } | null = null;
      for (;;) {
        const p = await progress(token);
        equal(p.status, 200);
        seen.push(p.json);
        if (p.json.state === "done") break;
        if (!second && (p.json.filed as number) > 0) {
          const t2 = await issueToken(ts.url, key, { typeId: "dec1_6_batch", eiks: chosen });
          const r2 = await post(t2);
          second = { status: r2.status, json: await r2.json() };
          // The second request's token may read the progress too.
          equal((await progress(t2)).status, 200);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const done = await run;
      equal(done.status, 200, JSON.stringify(done.json).slice(0, 400));
      equal(done.json.submitted, 20);
      equal(done.json.skipped, 4);
      equal(done.json.unknown, 0);
      ok(second, "a second request was sent while the batch ran");
      equal(second.status, 409, JSON.stringify(second.json));
      equal(second.json.errorCode, "FILING_IN_PROGRESS");
      const details = second.json.details as Record<string, unknown>;
      equal(details.batchId, batchId);
      equal((details.progress as { state: string }).state, "running");
      // The counts only grow; the running snapshots name a company of the batch and a time left.
      const running = seen.filter((s) => s.state === "running" && (s.filed as number) > 0);
      ok(running.length >= 2, `several snapshots while filing: ${seen.length}`);
      for (let i = 1; i < seen.length; i++) {
        ok((seen[i]!.filed as number) >= (seen[i - 1]!.filed as number));
      }
      ok(running.some((s) => chosen.includes((s.current as { eik: string })?.eik)));
      ok(running.some((s) => typeof s.etaSeconds === "number"));
      const last = seen.at(-1)!;
      equal(last.total, 24);
      equal(last.filed, 20);
      equal(last.skipped, 4);
      equal(last.etaSeconds, 0);
      // Counts and EIKs only: no path, no file name.
      ok(!JSON.stringify(seen).includes(root), "no path in the progress");
      ok(!JSON.stringify(seen).includes("EMPL2021"), "no file name in the progress");
      // Anyone else: 404.
      const other = await issueToken(ts.url, key, { typeId: "dec1_6_batch", eiks: chosen });
      const nf = await progress(other);
      equal(nf.status, 404);
      equal(nf.json.errorCode, "BATCH_NOT_FOUND");
      equal((await progress("")).status, 404);
      // The finished batch answers again (same id) without filing anything twice.
      const again = await post(other);
      const aj = await again.json();
      equal(again.status, 200, JSON.stringify(aj).slice(0, 300));
      equal(aj.submitted, 20);
      const sends = agent.logs.filter((l) => l.msg === "portal submit").length;
      equal(sends, 20, "each company reached the portal once");
    } finally {
      await agent.stop();
      await ts.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name:
    "[e2e] the TypeScript client's watchBatch follows a folder-wide filing to its end with the batch's own token",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-batch-watch-" });
    const root = join(dir, "clients");
    const eiks = await writeCompanyTree(root, 12, 2026, 9, 27_000_000);
    const ts = await startTokenService(`${dir}/ts`);
    const agent = await startAgent(`${dir}/agent`, ts.url, {
      SVC_TEST_PORTAL_DELAY_MS: "150",
      SVC_BATCH_CONCURRENCY: "2",
    });
    try {
      const key = await createKeyCli(`${dir}/ts`, "test");
      let tokens = 0;
      const client = createAgentClient(agent.url, {
        tokenProvider: ({ typeId, eiks }) => {
          tokens++;
          return issueToken(ts.url, key, { typeId, eiks });
        },
      });
      const batch = client.batch();
      const filing = batch.call("dec1_6_batch", { rootFolder: root, year: 2026, month: 9 }, {
        eiks,
      });
      const seen: BatchProgress[] = [];
      const watching = batch.watch((p) => seen.push(p), { intervalMs: 100 });
      await decideNext(agent, "confirm");
      const [result, last] = await Promise.all([filing, watching]);
      equal(result.submitted, 12);
      equal(last.state, "done");
      equal(last.filed, 12);
      equal(last.total, 12);
      ok(seen.some((p) => p.state === "running" && p.filed > 0 && p.filed < 12), "in between");
      equal(tokens, 1, "watching costs no token");
      // Another client (another page) cannot read it.
      const other = createAgentClient(agent.url);
      try {
        await other.watchBatch(batch.batchId, () => {}, {
          token: await issueToken(ts.url, key, { typeId: "dec1_6_batch", eiks }),
          graceMs: 0,
        });
        ok(false, "another token must not read the batch");
      } catch (e) {
        ok(isAgentError(e, "BATCH_NOT_FOUND"), String(e));
      }
    } finally {
      await agent.stop();
      await ts.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
