/**
 * The TokenStore contract, part 2, run against SQLite and PostgreSQL (`backendTest`):
 * applications and contracts with their key changes, notices claimed once, usage UPSERTs.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { createApiKey } from "../../../src/token/access/api_keys.ts";
import { contractTerminatedDraft } from "../../../src/token/notices/notice_drafts.ts";
import {
  BillingCountWriteError,
  type ContractRecord,
  type NoticeDraft,
} from "../../../src/token/store/records.ts";
import { backendTest } from "../../_helpers/token_env.ts";
import { application, contract, DAY, integrator, T0 } from "./store_fixtures.ts";

backendTest(
  "applications: one pending per integrator; approve supersedes and lifts live keys",
  async (db) => {
    const s = await db.open();
    await s.createIntegrator(integrator("i1", null));
    const live = await createApiKey(s, { mode: "live", integratorId: "i1", now: T0 });
    const dead = await createApiKey(s, { mode: "live", integratorId: "i1", now: T0 - 8 * DAY });
    ok((await s.createApplication(application("a1", "i1"))).ok);
    deepStrictEqual(await s.createApplication(application("a2", "i1")), {
      ok: false,
      reason: "pending_exists",
    });
    const at = T0 + DAY;
    const res = await s.approveApplication(
      "a1",
      contract("c1", "i1", at, at + 365 * DAY),
      at,
      "ok",
    );
    ok(res.ok);
    equal(res.liftedKeys, 1);
    equal((await s.getKey(live.record.id))?.expiresAt, null, "valid key lifted");
    equal((await s.getKey(dead.record.id))?.expiresAt, T0 - DAY, "expired key stays expired");
    equal((await s.getIntegrator("i1"))?.email, "billing@acme.test", "contact e-mail adopted");
    equal((await s.getApplication("a1"))?.status, "approved");
    equal((await s.getApplication("a1"))?.contractId, "c1");
    deepStrictEqual(await s.approveApplication("a1", contract("cX", "i1", at, null), at, null), {
      ok: false,
      reason: "not_pending",
    });
    deepStrictEqual((await s.contractState("i1", at)).active, { id: "c1", startsAt: at });
    // Renewal: a second approval supersedes the contract in force.
    ok((await s.createApplication(application("a3", "i1"))).ok);
    const renew = await s.approveApplication(
      "a3",
      contract("c2", "i1", at + DAY, null),
      at + DAY,
      null,
    );
    ok(renew.ok);
    equal(renew.supersededId, "c1");
    equal((await s.getContract("c1"))?.status, "superseded");
    deepStrictEqual((await s.contractState("i1", at + DAY)).active, {
      id: "c2",
      startsAt: at + DAY,
    });
    const rej = await s.rejectApplication("a2", at, "no");
    deepStrictEqual(rej, { ok: false, reason: "not_found" });
  },
);

backendTest(
  "terminateContract() falls live keys back to 7 days and enqueues its notice atomically",
  async (db) => {
    const s = await db.open();
    await s.createIntegrator(integrator("i1"));
    await s.createApplication(application("a1", "i1"));
    await s.approveApplication("a1", contract("c1", "i1", T0, T0 + 365 * DAY), T0, null);
    const k = await createApiKey(s, { mode: "live", integratorId: "i1", now: T0 + DAY });
    equal(k.record.expiresAt, null, "a live key created under a contract has no expiry");
    const at = T0 + 10 * DAY;
    const draft = (c: ContractRecord): NoticeDraft =>
      contractTerminatedDraft({ ...c, terminatedAt: at }, at + 7 * DAY, {
        integrator: null,
        now: at,
      });
    const res = await s.terminateContract("c1", at, "unpaid", 7 * DAY, draft);
    ok(res.ok);
    equal(res.fallenBackKeys, 1);
    equal((await s.getKey(k.record.id))?.expiresAt, at + 7 * DAY);
    deepStrictEqual(await s.contractState("i1", at), { active: null, lastEndedAt: at });
    const notices = await s.listNotices({ kind: "contract_terminated" });
    equal(notices.length, 1);
    equal(notices[0]!.recipient, "billing@acme.test");
    equal(notices[0]!.dueAt, at);
    deepStrictEqual(await s.terminateContract("c1", at, null, 7 * DAY, draft), {
      ok: false,
      reason: "not_in_force",
    });
    deepStrictEqual(await s.terminateContract("nope", at, null, 7 * DAY, draft), {
      ok: false,
      reason: "not_found",
    });
  },
);

backendTest("expireContracts() is idempotent and falls keys back from the end date", async (db) => {
  const [a, b] = await Promise.all([db.open(), db.open()]);
  await a.createIntegrator(integrator("i1"));
  await a.createApplication(application("a1", "i1"));
  const end = T0 + 30 * DAY;
  await a.approveApplication("a1", contract("c1", "i1", T0, end), T0, null);
  const k = await createApiKey(a, { mode: "live", integratorId: "i1", now: T0 });
  deepStrictEqual((await a.contractsEndingWithin(end - DAY, end)).map((c) => c.id), ["c1"]);
  const late = end + 3 * DAY;
  const [x, y] = await Promise.all([
    a.expireContracts(late, 7 * DAY),
    b.expireContracts(late, 7 * DAY),
  ]);
  equal(x.length + y.length, 1, "exactly one instance expires it");
  equal((await a.getContract("c1"))?.status, "expired");
  equal((await a.getKey(k.record.id))?.expiresAt, end + 7 * DAY);
  deepStrictEqual((await a.keysExpiringWithin(end + 6 * DAY, end + 7 * DAY)).map((r) => r.id), [
    k.record.id,
  ]);
});

backendTest(
  "notices: unique per (kind, subject, dueAt) and each claimed by exactly one instance",
  async (db) => {
    const [a, b] = await Promise.all([db.open(), db.open()]);
    const draft = (i: number): NoticeDraft => ({
      id: `ntc_${i}`,
      kind: "key_expiring",
      subjectId: `key_${i}`,
      dueAt: T0 + i,
      integratorId: "i1",
      recipient: "ops@example.test",
      locale: "bg",
      params: { keyId: `key_${i}`, expiresAt: T0 + DAY + i },
      createdAt: T0,
    });
    for (let i = 0; i < 30; i++) ok(await a.enqueueNotice(draft(i)));
    ok(
      !(await b.enqueueNotice({ ...draft(0), id: "ntc_dup" })),
      "duplicate (kind, subject, dueAt)",
    );
    ok(await b.enqueueNotice({ ...draft(0), id: "ntc_other_due", dueAt: T0 + 99 }));
    ok(
      await b.enqueueNotice({
        ...draft(1),
        id: "ntc_norecipient",
        subjectId: "k",
        recipient: null,
      }),
    );
    const at = T0 + 1000;
    const [ca, cb] = await Promise.all([
      a.claimNotices({ at, owner: "A", leaseMs: 60_000, limit: 100 }),
      b.claimNotices({ at, owner: "B", leaseMs: 60_000, limit: 100 }),
    ]);
    const ids = [...ca, ...cb].map((n) => n.id);
    equal(ids.length, 31, "pending notices claimed once in total; skipped ones never");
    equal(new Set(ids).size, 31);
    equal((await a.claimNotices({ at, owner: "A", leaseMs: 60_000, limit: 100 })).length, 0);
    const first = [...ca, ...cb][0]!;
    const owner = ca.includes(first) ? "A" : "B";
    ok(!(await a.completeNotice(first.id, owner === "A" ? "B" : "A", { status: "sent", at })));
    ok(await a.completeNotice(first.id, owner, { status: "sent", at }));
    // A lapsed lease is claimable again, with the attempt counted.
    const again = await b.claimNotices({
      at: at + 60_000,
      owner: "C",
      leaseMs: 60_000,
      limit: 100,
    });
    equal(again.length, 30);
    ok(again.every((n) => n.attempts === 2 && n.claimedBy === "C"));
    ok(
      await b.completeNotice(again[0]!.id, "C", {
        status: "pending",
        retryAt: at + 200_000,
        error: "451",
      }),
    );
    equal(
      (await a.listNotices({ subjectId: again[0]!.subjectId })).find((n) => n.id === again[0]!.id)
        ?.status,
      "pending",
    );
    equal((await a.listNotices({ subjectId: "k" }))[0]?.status, "skipped");
  },
);

backendTest(
  "usage: addBillingCounts() adds to existing counters; listBillingCounts() filters",
  async (db) => {
    const [a, b] = await Promise.all([db.open(), db.open()]);
    const row = (eik: string, count: number, contractId = "c1") => ({
      month: "2026-11",
      integratorId: "i1",
      contractId,
      keyId: "key_1",
      mode: "live" as const,
      typeId: "vat",
      eik,
      count,
    });
    await Promise.all([
      a.addBillingCounts([row("111111111", 2), row("222222222", 1)]),
      b.addBillingCounts([row("222222222", 5), row("111111111", 1)]),
    ]);
    await a.addBillingCounts([row("", 4, "")]);
    deepStrictEqual(
      (await b.listBillingCounts({ contractId: "c1" })).map((r) => [r.eik, r.count]),
      [
        ["111111111", 3],
        ["222222222", 6],
      ],
    );
    equal((await b.listBillingCounts({ month: "2026-11" })).length, 3);
    equal((await b.listBillingCounts({ month: "2026-12" })).length, 0);
    equal((await b.listBillingCounts({ contractId: "" }))[0]?.count, 4);
  },
);

backendTest(
  "usage: a chunk that fails keeps the chunks before it and names its rows (BillingCountWriteError)",
  async (db) => {
    const s = await db.open();
    const row = (n: number) => ({
      month: "2026-11",
      integratorId: "i1",
      contractId: "c1",
      keyId: "key_1",
      mode: "live" as const,
      typeId: "vat",
      eik: String(100_000_000 + n),
      count: 1,
    });
    // 501 rows in sort order; the last (alone in the second chunk of 500) breaks NOT NULL.
    const rows = Array.from({ length: 501 }, (_, i) => row(i));
    const bad = { ...rows[500]!, mode: null as unknown as "live" };
    const err = await s.addBillingCounts([...rows.slice(0, 500), bad]).then(() => null, (e) => e);
    ok(err instanceof BillingCountWriteError, `a BillingCountWriteError, got ${err}`);
    deepStrictEqual(err.unwritten, [bad]);
    equal(
      (await s.listBillingCounts({ contractId: "c1" })).length,
      500,
      "the first chunk stays added",
    );
  },
);
