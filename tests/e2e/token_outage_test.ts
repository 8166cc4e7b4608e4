/**
 * A database outage under load (docs/token-service.md § Operations): a real
 * `token-service` process on a private PostgreSQL cluster (its own port, started and stopped by
 * the test, so the shared test cluster is not disturbed) keeps answering while the server is
 * stopped for ~5 s — 503 DATABASE_UNAVAILABLE with `Retry-After`, never a 500 or a reset —,
 * `/ready` says 503 `database_unreachable`, and once the server is back the service recovers by
 * itself: tokens are issued again and `/ready` is 200, without a restart.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { type Proc, startTokenService } from "../_helpers/e2e.ts";
import { pgClusterIgnored, startPgCluster } from "../_helpers/pg_cluster.ts";
import { adminKey, serviceEnv } from "../_helpers/token_procs.ts";

Deno.test({
  name:
    "[e2e/postgres] the database stopped for 5 s under load: 503 DATABASE_UNAVAILABLE, no 500, and recovery by itself",
  ignore: pgClusterIgnored(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const cluster = await startPgCluster();
    const dir = await Deno.makeTempDir();
    let svc: Proc | undefined;
    try {
      svc = await startTokenService(dir, serviceEnv(cluster.url));
      const url = svc.url;
      const key = await adminKey(url, "acme");
      type Phase = "before" | "down" | "after";
      let phase: Phase = "before";
      const seen: Record<Phase, Map<string, number>> = {
        before: new Map(),
        down: new Map(),
        after: new Map(),
      };
      let stop = false;
      let slowest503 = 0;
      const worker = async () => {
        while (!stop) {
          let outcome: string;
          const t0 = Date.now();
          try {
            const r = await fetch(`${url}/api/v1/tokens/issue`, {
              method: "POST",
              headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
              body: JSON.stringify({ typeId: "vat", eik: "121212121" }),
            });
            const body = await r.json();
            outcome = r.status === 200 ? "200" : `${r.status} ${body.errorCode}`;
            if (r.status === 503) {
              equal(r.headers.get("retry-after"), "5");
              slowest503 = Math.max(slowest503, Date.now() - t0);
            }
          } catch (e) {
            outcome = `error ${e}`;
          }
          // Counted in the phase it ended in: one sent just before the stop may answer 503.
          const p = phase;
          seen[p].set(outcome, (seen[p].get(outcome) ?? 0) + 1);
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      const load = Array.from({ length: 8 }, worker);
      await new Promise((r) => setTimeout(r, 1000));

      phase = "down";
      await cluster.stop();
      await new Promise((r) => setTimeout(r, 2500));
      // A refused connection here means the process is gone: say what it logged last.
      const notReady = await fetch(`${url}/ready`).catch((e) => {
        throw new Error(
          `${e}; the service's last log lines: ${JSON.stringify(svc!.logs.slice(-8))}`,
        );
      });
      equal(notReady.status, 503);
      equal((await notReady.json()).details.reason, "database_unreachable");
      equal((await fetch(`${url}/health`)).status, 200, "the process stays alive");
      await new Promise((r) => setTimeout(r, 2500));

      await cluster.start();
      phase = "after";
      // Recovery by itself: the first 200 comes within a few seconds, /ready turns 200.
      const deadline = Date.now() + 15_000;
      while (!seen.after.has("200") && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 1000));
      stop = true;
      await Promise.all(load);
      equal((await fetch(`${url}/ready`)).status, 200);

      const all = { before: [...seen.before], down: [...seen.down], after: [...seen.after] };
      deepStrictEqual([...seen.before.keys()], ["200"], JSON.stringify(all));
      const downOutcomes = [...seen.down.keys()].sort();
      ok(seen.down.has("503 DATABASE_UNAVAILABLE"), JSON.stringify(all));
      deepStrictEqual(
        downOutcomes.filter((o) => o !== "200" && o !== "503 DATABASE_UNAVAILABLE"),
        [],
        `only 503 DATABASE_UNAVAILABLE (or 200 before the stop took effect): ${
          JSON.stringify(all)
        }`,
      );
      ok(seen.after.has("200"), `recovered: ${JSON.stringify(all)}`);
      deepStrictEqual(
        [...seen.after.keys()].filter((o) => o !== "200" && o !== "503 DATABASE_UNAVAILABLE"),
        [],
        JSON.stringify(all),
      );
      ok(slowest503 < 3000, `a 503 comes within 3 s (slowest ${slowest503} ms)`);
      // The last answers are all 200 (recovered, not flapping).
      ok((seen.after.get("200") ?? 0) > 20, JSON.stringify(all));
      ok(
        !svc.logs.some((l) => l.msg === "unexpected error"),
        "an outage is not logged as an unexpected error",
      );
    } finally {
      await svc?.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      await cluster.destroy();
    }
  },
});
