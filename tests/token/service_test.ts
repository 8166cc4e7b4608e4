/**
 * The service's parts outside HTTP: openTokenStore() picks the backend by URL, the operations
 * config (admin token, SMTP, intervals) reports every problem at once, the usage recorder keeps
 * counts across a failed flush and splits months, and keyPolicy() covers every phase.
 */
import { deepStrictEqual, equal, ok, rejects, throws } from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { isPostgresUrl, openTokenStore } from "../../src/token/store/open_store.ts";
import { keyPolicy, keyStatus } from "../../src/token/access/phases.ts";
import { smtpSettings, TokenRunConfig } from "../../src/token/service_config.ts";
import type { ApiKeyRecord, UsageRow } from "../../src/token/store/store.ts";
import { BillingCountWriteError } from "../../src/token/store/records.ts";
import { BillingCounter, monthOf } from "../../src/token/contracts/billing_counts.ts";
import { PG_URL, pgIgnored } from "../_helpers/postgres.ts";

const DAY = 24 * 3600 * 1000;

Deno.test("openTokenStore() opens SQLite in the data directory and migrates it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const s = await openTokenStore({ dataDir: `${dir}/nested/data` });
    equal(s.dialect, "sqlite");
    deepStrictEqual(await s.listIntegrators(), []);
    await s.close();
    ok((await Deno.stat(`${dir}/nested/data/token-service.sqlite`)).isFile);
    await rejects(openTokenStore({ dataDir: dir, databaseUrl: "mysql://x" }), /postgres:\/\//);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  ok(isPostgresUrl("postgres://a@b/c") && isPostgresUrl("postgresql://a@b/c"));
  ok(!isPostgresUrl("sqlite:x") && !isPostgresUrl(undefined));
});

Deno.test({
  name: "openTokenStore() opens PostgreSQL for a postgres:// URL",
  ignore: pgIgnored(),
  async fn() {
    const { freshPgSchema } = await import("../_helpers/postgres.ts");
    const pg = await freshPgSchema();
    try {
      const s = await openTokenStore({ dataDir: "/nonexistent", databaseUrl: pg.url });
      equal(s.dialect, "postgres");
      deepStrictEqual(await s.listIntegrators(), []);
      await s.close();
    } finally {
      await pg.drop();
    }
    ok(PG_URL);
  },
});

Deno.test("TokenRunConfig reads SVC_ADMIN_TOKEN, SMTP and intervals, reporting every problem at once", () => {
  const cfg = loadConfig(TokenRunConfig, {
    SVC_ADMIN_TOKEN: "a".repeat(40),
    SVC_SMTP_HOST: "smtp.example.test",
    SVC_SMTP_PORT: "465",
    SVC_SMTP_SECURE: "true",
    SVC_SMTP_USER: "svc",
    SVC_SMTP_PASS: "pw",
    SVC_SMTP_FROM: "noreply@example.test",
    SVC_NOTICE_INTERVAL_SECONDS: "30",
  }, {});
  deepStrictEqual(smtpSettings(cfg), {
    host: "smtp.example.test",
    port: 465,
    secure: true,
    user: "svc",
    pass: "pw",
    from: "noreply@example.test",
  });
  equal(cfg.noticeIntervalSeconds, 30);
  equal(cfg.usageFlushSeconds, 1);
  const none = loadConfig(TokenRunConfig, {}, {});
  equal(smtpSettings(none), null);
  equal(none.adminToken, undefined);
  throws(
    () =>
      loadConfig(TokenRunConfig, {
        SVC_ADMIN_TOKEN: "short",
        SVC_SMTP_HOST: "smtp.example.test",
        SVC_SMTP_PORT: "99999",
      }, {}),
    (e: Error) =>
      /SVC_ADMIN_TOKEN/.test(e.message) && /SVC_SMTP_PORT/.test(e.message) &&
      /smtpFrom|SVC_SMTP_FROM/.test(e.message) && !e.message.includes("short"),
  );
});

const key = (over: Partial<ApiKeyRecord>): ApiKeyRecord => ({
  id: "key_1",
  integratorId: "i1",
  mode: "live",
  secretHash: "h",
  label: null,
  createdAt: 0,
  expiresAt: 7 * DAY,
  revokedAt: null,
  allowedEiks: null,
  ...over,
});

Deno.test("keyPolicy() gives every phase its expiry and EIK limit", () => {
  const none = { active: null, lastEndedAt: null };
  deepStrictEqual(keyPolicy(key({ mode: "test", expiresAt: 90 * DAY }), null), {
    phase: "testing",
    expiresAt: 90 * DAY,
    eikLimit: null,
    contractId: null,
  });
  deepStrictEqual(keyPolicy(key({}), none), {
    phase: "pre_contract",
    expiresAt: 7 * DAY,
    eikLimit: 3,
    contractId: null,
  });
  const active = { active: { id: "c1", startsAt: 3 * DAY }, lastEndedAt: null };
  equal(keyPolicy(key({ expiresAt: null }), active).expiresAt, null);
  equal(keyPolicy(key({ expiresAt: 7 * DAY }), active).expiresAt, null, "valid at the start");
  equal(keyPolicy(key({ expiresAt: 2 * DAY }), active).expiresAt, 2 * DAY, "expired before");
  equal(keyPolicy(key({ expiresAt: null }), active).contractId, "c1");
  // Contract ended, fallback not yet stored by the scheduler: 7 days from the end.
  const ended = { active: null, lastEndedAt: 40 * DAY };
  deepStrictEqual(keyPolicy(key({ expiresAt: null }), ended).expiresAt, 47 * DAY);
  const p = keyPolicy(key({ revokedAt: 5 * DAY }), none);
  equal(keyStatus(key({ revokedAt: 5 * DAY }), p, 4 * DAY), "revoking");
  equal(keyStatus(key({ revokedAt: 5 * DAY }), p, 5 * DAY), "revoked");
  equal(keyStatus(key({}), p, 7 * DAY), "expired");
  equal(keyStatus(key({}), p, 7 * DAY - 1), "active");
});

Deno.test("BillingCounter keeps counts when a flush fails and splits UTC months", async () => {
  const written: UsageRow[][] = [];
  let fail = true;
  const errors: unknown[] = [];
  const rec = new BillingCounter({
    store: {
      addBillingCounts(rows) {
        if (fail) return Promise.reject(new Error("db down"));
        written.push([...rows]);
        return Promise.resolve();
      },
      listBillingCounts: () => Promise.resolve([]),
    },
    onError: (e) => errors.push(e),
  });
  const k = key({ mode: "test" });
  const endOfNov = Date.UTC(2026, 10, 30, 23, 59, 59, 999);
  rec.record(endOfNov, k, null, "vat", ["111111111"]);
  rec.record(endOfNov + 1, k, null, "vat", ["111111111"]);
  rec.record(endOfNov + 2, k, null, "vat", ["111111111"]);
  await rec.flush();
  equal(errors.length, 1);
  equal(rec.pending(), 2);
  rec.record(endOfNov + 3, k, null, "vat", ["111111111"]);
  fail = false;
  await rec.flush();
  deepStrictEqual(written[0]!.map((r) => [r.month, r.count]).sort(), [["2026-11", 1], [
    "2026-12",
    3,
  ]]);
  equal(rec.pending(), 0);
  equal(monthOf(endOfNov), "2026-11");
});

Deno.test("BillingCounter keeps only the unwritten rows of a partial flush (no double count)", async () => {
  const written: UsageRow[] = [];
  let partial = true;
  const rec = new BillingCounter({
    store: {
      addBillingCounts(rows) {
        if (!partial) return Promise.resolve(void written.push(...rows));
        partial = false;
        written.push(rows[0]!); // the first chunk went in, the rest did not
        return Promise.reject(new BillingCountWriteError(rows.slice(1), new Error("db down")));
      },
      listBillingCounts: () => Promise.resolve([]),
    },
  });
  const k = key({ mode: "live" });
  for (const eik of ["111111111", "222222222", "333333333"]) {
    rec.record(Date.UTC(2026, 10, 2), k, "c1", "vat", [eik]);
  }
  await rec.flush();
  equal(rec.pending(), 2);
  await rec.flush();
  deepStrictEqual(written.map((r) => [r.eik, r.count]).sort(), [
    ["111111111", 1],
    ["222222222", 1],
    ["333333333", 1],
  ]);
});
