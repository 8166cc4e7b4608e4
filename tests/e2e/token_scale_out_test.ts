/**
 * Scale-out of the token service (docs/token-service.md § Scale-out, § Operations): two real
 * `token-service` processes on one PostgreSQL schema issue tokens signed by one key ring and
 * share the rate-limit budgets; `/ready` answers on both; and SIGTERM under a load of
 * concurrent token requests drains: every request started before the signal gets its answer
 * (none is reset), and the process exits 0.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { type Proc, startTokenService } from "../_helpers/e2e.ts";
import { adminKey, awayFromWindowEdge, serviceEnv } from "../_helpers/token_procs.ts";
import { freshPgSchema, pgIgnored } from "../_helpers/postgres.ts";

/** POST /api/v1/tokens/issue; returns the status, the RateLimit-Remaining header and the body. */
async function issue(url: string, key: string) {
  const r = await fetch(`${url}/api/v1/tokens/issue`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ typeId: "vat", eik: "121212121" }),
  });
  return {
    status: r.status,
    remaining: r.headers.get("ratelimit-remaining"),
    body: await r.json(),
  };
}

const kidOf = (jwt: string) =>
  JSON.parse(atob(jwt.split(".")[0]!.replaceAll("-", "+").replaceAll("_", "/"))).kid;

Deno.test({
  name:
    "[e2e/postgres] two token-service processes on one database: one key ring, shared budgets, /ready, and a SIGTERM under load loses no request",
  ignore: pgIgnored(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const pg = await freshPgSchema();
    const dirs = [await Deno.makeTempDir(), await Deno.makeTempDir()];
    const procs: Proc[] = [];
    try {
      // An hour's window, and the six counted requests kept away from its end (they would
      // start counting again in the next one).
      const env = { ...serviceEnv(pg.url), SVC_RATE_LIMIT_WINDOW_SECONDS: "3600" };
      // Started together: the migrations and the first signing key race and must agree.
      procs.push(...await Promise.all(dirs.map((d) => startTokenService(d, env))));
      const [a, b] = procs as [Proc, Proc];
      for (const p of procs) {
        const r = await fetch(`${p.url}/ready`);
        equal(r.status, 200);
        equal((await r.json()).status, "ready");
      }
      deepStrictEqual(
        await (await fetch(`${a.url}/.well-known/jwks.json`)).json(),
        await (await fetch(`${b.url}/.well-known/jwks.json`)).json(),
        "one key ring",
      );

      const key = await adminKey(a.url, "acme");
      const answers = [];
      await awayFromWindowEdge(3600, 30);
      for (let i = 0; i < 6; i++) answers.push(await issue(i % 2 ? b.url : a.url, key));
      deepStrictEqual(answers.map((x) => x.status), [200, 200, 200, 200, 200, 200]);
      equal(new Set(answers.map((x) => kidOf(x.body.token))).size, 1, "one signing key");
      // One budget across both instances: each instance spends leases of the shared row
      // (rate_counters.ts), so B's first answer already counts A's hit, and the six answers
      // report the six hits, though each from its own instance's view (not in order).
      equal(Number(answers[1]!.remaining), 99998, "B sees A's hit");
      deepStrictEqual(
        answers.map((x) => Number(x.remaining)).sort((p, q) => q - p),
        [99999, 99998, 99997, 99996, 99995, 99994],
      );

      // Drain B under load: 32 workers issue tokens back to back; SIGTERM after 1.5 s.
      let signalled = false;
      const before: { status?: number; error?: string }[] = [];
      let after = 0;
      const worker = async () => {
        while (!signalled || before.length === 0) {
          const startedBefore = !signalled;
          const rec: { status?: number; error?: string } = {};
          if (startedBefore) before.push(rec);
          else after++;
          try {
            const r = await fetch(`${b.url}/api/v1/tokens/issue`, {
              method: "POST",
              headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
              body: JSON.stringify({ typeId: "vat", eik: "121212121" }),
            });
            await r.arrayBuffer();
            rec.status = r.status;
          } catch (e) {
            rec.error = String(e);
          }
          if (!startedBefore) break; // after the signal, one try each is enough
        }
      };
      const load = Array.from({ length: 32 }, worker);
      await new Promise((r) => setTimeout(r, 1500));
      signalled = true;
      b.child.kill("SIGTERM");
      await Promise.all(load);
      const status = await b.child.status;
      equal(status.code, 0, "B exits 0 after draining");
      ok(before.length > 100, `load ran (${before.length} requests before the signal)`);
      const lost = before.filter((x) => x.error !== undefined || (x.status ?? 0) >= 500);
      deepStrictEqual(lost, [], "every request started before SIGTERM got a 2xx/4xx answer");
      ok(before.every((x) => x.status === 200));
      ok(b.logs.some((l) => l.msg === "shutting down: finishing running requests"));
      ok(after >= 0);
      // Access log lines of B: one per request, no credential.
      const access = b.logs.filter((l) => l.msg === "request");
      ok(access.length >= before.length, `${access.length} access log lines`);
      ok(!JSON.stringify(b.logs).includes(key), "the key never reaches the log");
      // A still serves.
      equal((await issue(a.url, key)).status, 200);
    } finally {
      await Promise.all(procs.map((p) => p.stop()));
      for (const d of dirs) await Deno.remove(d, { recursive: true }).catch(() => {});
      await pg.drop();
    }
  },
});
