/**
 * The admin CLI `runAdminCli()` (main.ts admin …): integrators, keys, applications, contracts,
 * statements and usage on SQLite and PostgreSQL; exit codes 0/1/2; the secret printed once.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { FakeClock } from "../../src/clock.ts";
import { runAdminCli } from "../../src/token/cli.ts";
import type { TokenStore } from "../../src/token/store/store.ts";
import { backendTest, tokenEnv } from "../_helpers/token_env.ts";

function cli(store: TokenStore, clock: FakeClock) {
  const out: string[] = [];
  const err: string[] = [];
  const run = async (...args: string[]) => {
    out.length = 0;
    err.length = 0;
    const code = await runAdminCli(args, {
      store,
      clock,
      out: (s) => out.push(s),
      err: (s) => err.push(s),
    });
    return {
      code,
      out: out.join("\n"),
      err: err.join("\n"),
      json: () => JSON.parse(out.join("\n")),
    };
  };
  return run;
}

backendTest(
  "admin CLI walks integrators → keys → application → contract → statement",
  async (db) => {
    const store = await db.open();
    const clock = new FakeClock();
    const run = cli(store, clock);
    const i = await run(
      "integrators",
      "create",
      "--id",
      "acme",
      "--name",
      "ACME",
      "--email",
      "dev@acme.test",
      "--locale",
      "en",
    );
    equal(i.code, 0, i.err);
    equal(i.json().locale, "en");
    equal((await run("integrators", "create", "--id", "acme", "--name", "ACME")).code, 1);
    equal((await run("integrators", "list")).json().items.length, 1);
    equal(
      (await run("integrators", "update", "acme", "--name", "ACME Ltd")).json().name,
      "ACME Ltd",
    );

    const k = await run(
      "keys",
      "create",
      "--integrator",
      "acme",
      "--mode",
      "live",
      "--label",
      "srv",
      "--eik",
      "121212121",
    );
    equal(k.code, 0, k.err);
    const { secret, key } = k.json();
    match(secret, /^svc_live_/);
    deepStrictEqual(key.allowedEiks, ["121212121"]);
    const listed = await run("keys", "list", "--integrator", "acme");
    ok(!listed.out.includes(secret), "the secret is printed only at creation");
    equal(listed.json().items[0].id, key.id);
    equal((await run("keys", "allow", key.id, "--any")).json().allowedEiks, null);
    equal((await run("keys", "allow", key.id)).code, 2);
    const rot = (await run("keys", "rotate", key.id, "--grace-seconds", "60")).json();
    equal(rot.previous.status, "revoking");
    equal((await run("keys", "revoke", rot.key.id)).json().status, "revoked");
    equal((await run("keys", "show", "key_nope")).code, 1);

    const sub = await run(
      "applications",
      "submit",
      "--integrator",
      "acme",
      "--company",
      "ACME Ltd",
      "--email",
      "b@acme.test",
      "--use",
      "VAT",
    );
    equal(sub.code, 0, sub.err);
    const appId = sub.json().id;
    equal((await run("applications", "list", "--status", "pending")).json().items.length, 1);
    const appr = await run(
      "applications",
      "approve",
      appId,
      "--ends-at",
      "2027-11-01T00:00:00Z",
      "--note",
      "OK",
    );
    equal(appr.code, 0, appr.err);
    const ctr = appr.json().contract.id;
    equal((await run("applications", "approve", appId)).code, 1, "already decided");
    equal(
      (await run("contracts", "list", "--integrator", "acme")).json().items[0].endsAt,
      "2027-11-01T00:00:00.000Z",
    );
    equal((await run("contracts", "show", ctr)).json().status, "active");

    const t = await tokenEnv({ store, clock });
    const live = await run("keys", "create", "--integrator", "acme", "--mode", "live");
    const s2 = live.json().secret;
    await t.issue(s2, { typeId: "vat", eik: "131313131" });
    await t.issue(s2, { typeId: "vat", eik: "131313131" });
    await t.service.usage.flush();
    const st = await run("contracts", "statement", ctr, "--month", "2026-11");
    equal(st.json().totals.tokens, 2);
    const csv = await run("contracts", "statement", ctr, "--month", "2026-11", "--format", "csv");
    ok(csv.out.endsWith(`${ctr},ACME Ltd,2026-11,TOTAL,,,2\r\n`));
    equal((await run("contracts", "statement", ctr, "--month", "11-2026")).code, 1);
    equal((await run("usage", "--month", "2026-11", "--integrator", "acme")).json().total, 2);
    ok((await run("usage", "--format", "csv")).out.startsWith("month,integrator_id"));
    const term = await run("contracts", "terminate", ctr, "--reason", "End");
    equal(term.json().contract.status, "terminated");
    equal((await run("contracts", "terminate", ctr)).code, 1);
    const rej = await run(
      "applications",
      "submit",
      "--integrator",
      "acme",
      "--company",
      "A",
      "--email",
      "b@acme.test",
      "--use",
      "x",
    );
    equal(
      (await run("applications", "reject", rej.json().id, "--note", "No")).json().status,
      "rejected",
    );
  },
);

Deno.test("[token] admin CLI: usage errors exit 2 with the help text; failures exit 1 with the error code", async () => {
  const { store, clock } = await tokenEnv();
  const run = cli(store, clock);
  for (
    const args of [[], ["nope"], ["keys", "explode"], ["keys", "list", "--bogus"], [
      "keys",
      "revoke",
    ]]
  ) {
    const r = await run(...args);
    equal(r.code, 2, args.join(" "));
    match(r.err + r.out, /Usage: main\.ts admin/);
  }
  const help = await run("help");
  equal(help.code, 0);
  const nf = await run("contracts", "show", "ctr_nope");
  equal(nf.code, 1);
  equal(JSON.parse(nf.err).errorCode, "NOT_FOUND");
  const bad = await run("keys", "create", "--integrator", "default", "--mode", "prod");
  equal(JSON.parse(bad.err).errorCode, "VALIDATION_FAILED");
});
