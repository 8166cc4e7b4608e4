/**
 * The notice scheduler inside the token service (docs/token-service.md § Access phases: a notice
 * 24 hours before a key expires, 7 days before a contract expires, and when a contract is
 * terminated). Every `intervalMs` (injectable clock) each instance:
 *
 * 1. expires contracts whose end passed (their live keys fall back to the pre-contract rules);
 * 2. enqueues due notices: INSERT … ON CONFLICT DO NOTHING on unique (kind, subject, due_at),
 *    so any number of instances enqueue each notice once;
 * 3. claims due notices in one transaction with a lease (`sending`, owner, lease end), checks
 *    the notice is still true, sends it, and marks it `sent` (only the lease owner can).
 *
 * Exactly once across instances and restarts. If a process dies between the claim and the
 * `sent` update, the lease lapses and another instance retries (at-least-once in that window;
 * the Message-ID is stable so a duplicate is recognisable). A failed send is retried with
 * backoff up to `maxAttempts`, then marked `failed`.
 * @module
 */
import { errorMessage } from "../../error_message.ts";
import { isApplicationNotice } from "./application_notices.ts";
import type { Clock } from "../../clock.ts";
import {
  keyPolicy,
  LIVE_KEY_LIFETIME_MS,
  newId,
  type RandomBytes,
  systemRandom,
} from "../access/mod.ts";
import type { AppLog } from "../deps.ts";
import type { Mailer } from "./mailer.ts";
import {
  CONTRACT_NOTICE_LEAD_MS,
  contractExpiringDraft,
  KEY_NOTICE_LEAD_MS,
  keyExpiringDraft,
} from "./notice_drafts.ts";
import { renderNotice } from "./notice_templates.ts";
import type { Integrator, NoticeDraft, NoticeRecord, TokenStore } from "../store/mod.ts";

/** Options of {@link NoticeScheduler}. */
export interface NoticeSchedulerOptions {
  readonly store: TokenStore;
  /** null = notices stay pending until a mailer is configured. */
  readonly mailer: Mailer | null;
  readonly clock: Clock;
  /** Lease owner name (unique per process); default random. */
  readonly instanceId?: string | undefined;
  /** Tick interval, ms (default 60 s). */
  readonly intervalMs?: number | undefined;
  /** Lease, ms (default 5 min; far above the SMTP timeouts). */
  readonly leaseMs?: number;
  /** Attempts before a notice is marked failed (default 8). */
  readonly maxAttempts?: number;
  readonly random?: RandomBytes | undefined;
  readonly log?: AppLog;
}

/** What one tick did. */
export interface TickReport {
  expiredContracts: number;
  enqueued: number;
  sent: number;
  cancelled: number;
  retried: number;
  failed: number;
}

const BATCH = 20;
const retryDelay = (attempt: number) => Math.min(60_000 * 2 ** (attempt - 1), 3_600_000);

/** Runs the notice ticks of one service instance. */
export class NoticeScheduler {
  readonly #o: NoticeSchedulerOptions;
  readonly #owner: string;
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<unknown> = Promise.resolve();

  /** @param o store, mailer, clock, interval, lease */
  constructor(o: NoticeSchedulerOptions) {
    this.#o = o;
    this.#owner = o.instanceId ?? newId("inst", o.random ?? systemRandom);
  }

  /** The lease owner name of this instance. @returns the id */
  get instanceId(): string {
    return this.#owner;
  }

  /** Start ticking every `intervalMs` (first tick at once). */
  start(): void {
    if (this.#timer !== undefined) return;
    const run = () => {
      this.#running = this.tick().catch((e) =>
        this.#o.log?.("error", "notice tick failed", { error: String(e) })
      );
    };
    const timer = setInterval(run, this.#o.intervalMs ?? 60_000);
    Deno.unrefTimer(timer);
    this.#timer = timer;
    run();
  }

  /** Stop ticking and wait for a running tick. @returns when idle */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /**
   * One pass: expire contracts, enqueue due notices, send what this instance claims.
   * @returns counts of what happened
   * @throws Error from the store (the mail errors are recorded on the notice instead)
   */
  async tick(): Promise<TickReport> {
    const { store, clock } = this.#o;
    const now = clock.now();
    const r: TickReport = {
      expiredContracts: 0,
      enqueued: 0,
      sent: 0,
      cancelled: 0,
      retried: 0,
      failed: 0,
    };
    r.expiredContracts = (await store.expireContracts(now, LIVE_KEY_LIFETIME_MS)).length;
    r.enqueued = await this.#enqueueDue(now);
    if (!this.#o.mailer) return r;
    for (let round = 0; round < 50; round++) {
      const claimed = await store.claimNotices({
        at: now,
        owner: this.#owner,
        leaseMs: this.#o.leaseMs ?? 5 * 60_000,
        limit: BATCH,
      });
      for (const n of claimed) await this.#deliver(n, now, r);
      if (claimed.length < BATCH) break;
    }
    return r;
  }

  async #enqueueDue(now: number): Promise<number> {
    const { store } = this.#o;
    const rnd = this.#o.random ?? systemRandom;
    const integrators = new Map<string, Integrator | null>();
    const integrator = async (id: string) => {
      if (!integrators.has(id)) integrators.set(id, await store.getIntegrator(id));
      // non-null: set on the line above when it was missing
      return integrators.get(id)!;
    };
    // Keys expiring within 24 hours, contracts ending within 7 days: one draft each.
    type Due = readonly [string, (i: Integrator | null) => NoticeDraft];
    const due: Due[] = [
      ...(await store.keysExpiringWithin(now, now + KEY_NOTICE_LEAD_MS)).map((k): Due => [
        k.integratorId,
        // non-null: keysExpiringWithin answers keys with an expiry only
        (i) => keyExpiringDraft({ ...k, expiresAt: k.expiresAt! }, { integrator: i, now, rnd }),
      ]),
      ...(await store.contractsEndingWithin(now, now + CONTRACT_NOTICE_LEAD_MS)).map((c): Due => [
        c.integratorId,
        // non-null: contractsEndingWithin answers contracts with an end only
        (i) => contractExpiringDraft({ ...c, endsAt: c.endsAt! }, { integrator: i, now, rnd }),
      ]),
    ];
    let n = 0;
    for (const [integratorId, draft] of due) {
      if (await store.enqueueNotice(draft(await integrator(integratorId)))) n++;
    }
    return n;
  }

  /** Why a claimed notice is no longer true, or null when it should go out. */
  async #staleReason(n: NoticeRecord, now: number): Promise<string | null> {
    const { store } = this.#o;
    // An application's mail tells what happened; it stays true.
    if (isApplicationNotice(n.kind)) return null;
    if (n.kind === "key_expiring") {
      const key = await store.getKey(n.subjectId);
      if (!key) return "key not found";
      if (key.revokedAt !== null && key.revokedAt <= Number(n.params.expiresAt)) {
        return "key revoked";
      }
      const state = key.mode === "live" ? await store.contractState(key.integratorId, now) : null;
      const expiresAt = keyPolicy(key, state).expiresAt;
      if (expiresAt !== Number(n.params.expiresAt)) return "expiry changed";
      if (expiresAt <= now) return "already expired";
      return null;
    }
    const c = await store.getContract(n.subjectId);
    if (!c) return "contract not found";
    if (n.kind === "contract_expiring") {
      if (c.status !== "active" || c.endsAt !== Number(n.params.endsAt)) return "contract changed";
      if (c.endsAt <= now) return "already expired";
    }
    return null;
  }

  async #deliver(n: NoticeRecord, now: number, r: TickReport): Promise<void> {
    const { store } = this.#o;
    const max = this.#o.maxAttempts ?? 8;
    if (n.attempts > max) {
      await store.completeNotice(n.id, this.#owner, {
        status: "failed",
        at: now,
        error: "too many attempts",
      });
      r.failed++;
      return;
    }
    const stale = await this.#staleReason(n, now);
    if (stale) {
      await store.completeNotice(n.id, this.#owner, { status: "cancelled", at: now, error: stale });
      r.cancelled++;
      return;
    }
    const { subject, text } = renderNotice(n.kind, n.locale, n.params);
    try {
      // non-null: tick() returns before delivering when there is no mailer
      await this.#o.mailer!.send({
        // non-null: a notice without recipient is stored as skipped, never delivered
        // (notice_queries.ts)
        to: n.recipient!,
        subject,
        text,
        messageId: `<${n.id}@svc-token-service>`,
        headers: {
          "X-Svc-Notice": `${n.kind}; subject=${n.subjectId}; due=${
            new Date(n.dueAt).toISOString()
          }`,
        },
      });
    } catch (e) {
      const error = errorMessage(e);
      this.#o.log?.("warn", "notice not sent", {
        notice: n.id,
        kind: n.kind,
        attempt: n.attempts,
        error,
      });
      if (n.attempts >= max) {
        await store.completeNotice(n.id, this.#owner, { status: "failed", at: now, error });
        r.failed++;
      } else {
        await store.completeNotice(n.id, this.#owner, {
          status: "pending",
          retryAt: now + retryDelay(n.attempts),
          error,
        });
        r.retried++;
      }
      return;
    }
    const recorded = await store.completeNotice(n.id, this.#owner, { status: "sent", at: now });
    if (!recorded) this.#o.log?.("warn", "notice sent after its lease lapsed", { notice: n.id });
    r.sent++;
    this.#o.log?.("info", "notice sent", { notice: n.id, kind: n.kind, subject: n.subjectId });
  }
}
