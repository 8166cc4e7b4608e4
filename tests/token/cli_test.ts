/**
 * `main.ts admin …` (src/cli/admin*.ts) in process through `runCli()`: integrators, keys,
 * applications, contracts, statements and usage on SQLite and PostgreSQL; `--json` documents;
 * exit codes 0/1/2; the secret printed once.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { FakeClock } from "../../src/clock.ts";
import type { TokenStore } from "../../src/token/mod.ts";
import { backendTest, tokenEnv } from "../_helpers/token_env.ts";
import { runInProcess } from "../cli/_run.ts";

/** `admin …` with `--json` (the admin API's documents), on `store` at `clock`'s time. */
function cli(store: TokenStore, clock: FakeClock) {
  const run = async (...args: string[]) => {
    const r = await runInProcess(["admin", ...args, "--json"], { tokenStore: store, clock });
    return { ...r, out: r.stdout, err: r.stderr };
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
    equal((await run("contracts", "statement", ctr, "--month", "11-2026")).code, 2);
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

Deno.test("[token] admin CLI: wrong command lines exit 2 with one line; failures exit 1 with the error code", async () => {
  const { store, clock } = await tokenEnv();
  const run = (...args: string[]) => runInProcess(["admin", ...args], { tokenStore: store, clock });
  for (
    const args of [
      ["nope"],
      ["keys", "explode"],
      ["keys", "list", "--bogus"],
      ["keys", "revoke"],
      ["keys", "allow", "key_x"],
      ["keys", "create", "--integrator", "default", "--mode", "prod"],
      ["contracts", "statement", "ctr_x", "--month", "11-2026"],
    ]
  ) {
    const r = await run(...args);
    equal(r.code, 2, args.join(" "));
    equal(r.stdout, "");
    const lines = r.stderr.trimEnd().split("\n");
    equal(lines.length, 2, r.stderr);
    match(lines[0]!, /^error: /);
    match(lines[1]!, /^Run 'main\.ts admin .*--help' for usage\.$/);
  }
  equal((await run()).code, 2, "admin without a group prints its help and exits 2");
  const help = await run("help");
  equal(help.code, 0);
  match(help.stdout, /Usage: main\.ts admin/);
  const nf = await run("contracts", "show", "ctr_nope");
  equal(nf.code, 1);
  equal(nf.stderr, 'Failed (NOT_FOUND): No contract "ctr_nope"\n');
  const nfJson = await run("contracts", "show", "ctr_nope", "--json");
  equal(nfJson.code, 1);
  equal(JSON.parse(nfJson.stderr).errorCode, "NOT_FOUND");
  const bad = await run("integrators", "create", "--name", "x", "--email", "no-mail", "--json");
  equal(bad.code, 1);
  equal(JSON.parse(bad.stderr).errorCode, "VALIDATION_FAILED");
});

Deno.test("[token] admin CLI prints text for people unless --json", async () => {
  const { store, clock } = await tokenEnv();
  const run = (...args: string[]) => runInProcess(["admin", ...args], { tokenStore: store, clock });
  equal((await run("integrators", "create", "--id", "acme", "--name", "ACME")).code, 0);
  const created = await run("keys", "create", "--integrator", "acme", "--mode", "test");
  equal(created.code, 0, created.stderr);
  match(created.stdout, /^secret: svc_test_/m);
  match(created.stdout, /^key:\n {2}id: key_/m);
  const list = await run("keys", "list");
  match(list.stdout.split("\n")[0]!, /^id +integratorId +mode +status/);
  ok(!list.stdout.includes("svc_test_"), "the secret is printed only at creation");
  equal((await run("contracts", "list")).stdout, "No contracts.\n");
  const usage = await run("usage", "--format", "json");
  deepStrictEqual(JSON.parse(usage.stdout), { items: [], total: 0 });
});
