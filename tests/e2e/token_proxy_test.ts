/**
 * The scale-out set-up of docs/token-service.md § Scale-out, run for real: two `token-service`
 * processes on one PostgreSQL schema behind real nginx, configured from
 * examples/scale-out/token-service.conf.template (the file docker-compose.yml mounts), rendered
 * the way the official nginx image renders its templates. Through the proxy: `/ready`, the
 * proxy's request id kept by the instances, tokens spread over both instances, one rate-limit
 * budget for both, a revocation refused by both within one second, and one instance stopped
 * without a lost request. docker-compose.yml itself needs a Docker engine, which this machine
 * has not; its services, ports and variables are checked against what this test runs.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { parse } from "yaml";
import { envVariables, TokenServiceConfig } from "../../src/config.ts";
import { TokenRunConfig } from "../../src/token/mod.ts";
import { type Proc, startTokenService } from "../_helpers/e2e.ts";
import { DIR, startNginx, templateVars } from "../_helpers/nginx.ts";
import { adminKey, awayFromWindowEdge, serviceEnv } from "../_helpers/token_procs.ts";
import { freshPgSchema, pgIgnored } from "../_helpers/postgres.ts";
import { skipUnless } from "../_helpers/require_tool.ts";

const ADMIN = serviceEnv("").SVC_ADMIN_TOKEN!;

async function issue(url: string, key: string) {
  const r = await fetch(`${url}/api/v1/tokens/issue`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ typeId: "vat", eik: "121212121" }),
  });
  await r.body?.cancel();
  return { status: r.status, retryAfter: r.headers.get("retry-after") };
}

/** Token requests an instance has logged (its access log lines). */
const issued = (p: Proc) =>
  p.logs.filter((l) => l.msg === "request" && l.path === "/api/v1/tokens/issue").length;

Deno.test({
  name:
    "[e2e/postgres] two token-service processes behind nginx (examples/scale-out): spread, one budget, revocation on both within 1 s, an instance stopped without a lost request",
  ignore: pgIgnored() || skipUnless(["nginx"], "the token service behind nginx"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const pg = await freshPgSchema();
    const dirs = [await Deno.makeTempDir(), await Deno.makeTempDir()];
    const env = {
      ...serviceEnv(pg.url),
      SVC_RATE_LIMIT_PER_KEY: "30",
      SVC_RATE_LIMIT_WINDOW_SECONDS: "3600", // one window for the whole test (awayFromWindowEdge)
      SVC_SHUTDOWN_DELAY_SECONDS: "1",
    };
    const procs: Proc[] = await Promise.all(
      dirs.map((d, i) => startTokenService(d, { ...env, SVC_INSTANCE_ID: `token${i + 1}` })),
    );
    const [a, b] = procs as [Proc, Proc];
    const proxy = await startNginx(procs.map((p) => new URL(p.url).host));
    try {
      const ready = await fetch(`${proxy.url}/ready`);
      equal(ready.status, 200);
      equal((await ready.json()).status, "ready");
      // nginx's $request_id (32 hex digits) reaches the instance and comes back.
      ok(/^[0-9a-f]{32}$/.test(ready.headers.get("x-request-id") ?? ""), "the proxy's request id");

      // Spread: nginx sends the requests round robin to both instances.
      const key = await adminKey(proxy.url, "acme");
      await awayFromWindowEdge(3600, 60);
      const first = [];
      for (let i = 0; i < 24; i++) first.push((await issue(proxy.url, key)).status);
      deepStrictEqual(first, Array(24).fill(200));
      ok(issued(a) >= 8 && issued(b) >= 8, `both instances issue: ${issued(a)} / ${issued(b)}`);

      // One budget of 30 per key for both instances, however the proxy spreads the requests.
      const more = [];
      for (let i = 0; i < 16; i++) more.push(await issue(proxy.url, key));
      const admitted = 24 + more.filter((x) => x.status === 200).length;
      ok(admitted <= 30 && admitted >= 26, `${admitted} of 40 admitted for a budget of 30`);
      const refused = more.filter((x) => x.status === 429);
      equal(refused.length, 40 - admitted, "the others refused with 429");
      ok(refused.every((x) => Number(x.retryAfter) >= 1), "with Retry-After");

      // A revocation through the proxy: both instances refuse the key within one second.
      const victim = await adminKey(proxy.url, "victim");
      for (let i = 0; i < 4; i++) equal((await issue(proxy.url, victim)).status, 200);
      const { items } = await (await fetch(`${proxy.url}/admin/v1/keys?integratorId=victim`, {
        headers: { authorization: `Bearer ${ADMIN}` },
      })).json();
      const revoke = await fetch(`${proxy.url}/admin/v1/keys/${items[0].id}/revoke`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      equal(revoke.status, 200);
      await revoke.body?.cancel();
      // From the revocation's answer (it is committed then) to the first request each instance
      // refused, counted when that request was sent; both instances polled at once.
      const t0 = performance.now();
      const refusedAfter = async (p: Proc) => {
        for (;;) {
          const sent = performance.now() - t0;
          if ((await issue(p.url, victim)).status === 401) return sent;
          ok(performance.now() - t0 < 5000, "refused in the end");
        }
      };
      const delays = await Promise.all(procs.map(refusedAfter));
      delays.forEach((ms, i) =>
        ok(ms <= 1000, `${procs[i]!.url} refuses the revoked key after ${ms.toFixed(0)} ms`)
      );

      // Instance A stops (SIGTERM: it drains, then exits); the proxy goes on with B alone.
      const other = await adminKey(proxy.url, "other");
      a.child.kill("SIGTERM");
      equal((await a.child.status).code, 0);
      const after = [];
      for (let i = 0; i < 12; i++) after.push((await issue(proxy.url, other)).status);
      deepStrictEqual(after, Array(12).fill(200), "no request lost once A is gone");
      ok(!/upstream prematurely closed|no live upstreams/.test(await proxy.errorLog()));
    } finally {
      await proxy.stop();
      await Promise.all(procs.map((p) => p.stop()));
      for (const d of dirs) await Deno.remove(d, { recursive: true }).catch(() => {});
      await pg.drop();
    }
  },
});

Deno.test("[scale-out] docker-compose.yml runs what the proxy test runs: the template, two instances, one database, one secret", async () => {
  const compose = parse(await Deno.readTextFile(new URL("docker-compose.yml", DIR)), {
    merge: true,
  });
  const services = compose.services as Record<string, Record<string, unknown>>;
  deepStrictEqual(Object.keys(services).sort(), ["postgres", "proxy", "token1", "token2"]);
  const proxy = services.proxy!;
  ok(
    (proxy.volumes as string[]).includes(
      "./token-service.conf.template:/etc/nginx/templates/token-service.conf.template:ro",
    ),
    "the proxy renders the tested template",
  );
  const proxyEnv = proxy.environment as Record<string, string>;
  deepStrictEqual(Object.keys(proxyEnv).sort(), templateVars().sort(), "every variable given");
  deepStrictEqual(
    [proxyEnv.TOKEN_UPSTREAM_1, proxyEnv.TOKEN_UPSTREAM_2],
    ["token1:8080", "token2:8080"],
  );
  const known = new Set([
    ...Object.keys(envVariables(TokenServiceConfig)),
    ...Object.keys(envVariables(TokenRunConfig)),
  ]);
  const tokens = [services.token1!, services.token2!];
  for (const t of tokens) {
    const command = t.command as string[];
    ok(command.includes("token-service") && command.includes("8080"), command.join(" "));
    const e = t.environment as Record<string, string>;
    for (const name of Object.keys(e).filter((n) => n.startsWith("SVC_"))) {
      ok(known.has(name), `${name} is a variable the token service reads`);
    }
    ok(e.SVC_DATABASE_URL?.startsWith("postgres://") && e.SVC_DATABASE_URL.includes("@postgres:"));
    ok(e.SVC_SIGNING_KEY_SECRET!.length >= 32 && e.SVC_ADMIN_TOKEN!.length >= 32);
    equal(e.SVC_TOKEN_HOST, "0.0.0.0", "reachable by the proxy");
    ok(String(t.image).endsWith(":2.9.6"), "the Deno the README uses");
  }
  const [e1, e2] = tokens.map((t) => t.environment as Record<string, string>);
  equal(e1!.SVC_SIGNING_KEY_SECRET, e2!.SVC_SIGNING_KEY_SECRET, "one secret for both");
  equal(e1!.SVC_DATABASE_URL, e2!.SVC_DATABASE_URL, "one database");
  ok(e1!.SVC_INSTANCE_ID !== e2!.SVC_INSTANCE_ID, "each its own instance id");
});
