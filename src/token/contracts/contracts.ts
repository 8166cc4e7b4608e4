/**
 * Applications and contracts (docs/token-service.md § Access phases, phases 2 and 3): an integrator
 * applies (company, contact e-mail, intended use); an administrator approves — the approval
 * date becomes the contract date — or rejects; a contract ends on its end date or when an
 * administrator terminates it. At the start, the integrator's live keys still valid lose their
 * expiry and EIK limit; at the end they fall back to the pre-contract rules (7 days from that
 * moment, 3 EIKs per key). Termination enqueues its notice in the same transaction.
 * @module
 */
import { AppError } from "../../contract/mod.ts";
import type { AdminDeps } from "../deps.ts";
import { LIVE_KEY_LIFETIME_MS, newId } from "../access/mod.ts";
import {
  applicationNoticeDraft,
  type ApplicationNoticeKind,
  contractTerminatedDraft,
} from "../notices/mod.ts";
import {
  type ApplicationRecord,
  type ContractFailure,
  type ContractRecord,
  inForce,
} from "../store/mod.ts";

/** A contract as administrators see it. */
export interface ContractView {
  readonly id: string;
  readonly integratorId: string;
  readonly applicationId: string | null;
  readonly company: string;
  readonly contactEmail: string;
  /** `active` only while in force; an end date that passed shows `expired`. */
  readonly status: ContractRecord["status"];
  readonly startsAt: string;
  readonly endsAt: string | null;
  readonly terminatedAt: string | null;
  readonly terminationReason: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Present a contract with its status at `now`.
 * @param c the record
 * @param now epoch ms
 * @returns the view
 */
export function contractView(c: ContractRecord, now: number): ContractView {
  const status = c.status === "active" && !inForce(c, now) && c.startsAt <= now
    ? "expired"
    : c.status;
  return {
    id: c.id,
    integratorId: c.integratorId,
    applicationId: c.applicationId,
    company: c.company,
    contactEmail: c.contactEmail,
    status,
    startsAt: new Date(c.startsAt).toISOString(),
    endsAt: iso(c.endsAt),
    terminatedAt: iso(c.terminatedAt),
    terminationReason: c.terminationReason,
  };
}

/**
 * Present an application (ISO dates).
 * @param a the record
 * @returns the view
 */
export function applicationView(a: ApplicationRecord) {
  return {
    id: a.id,
    integratorId: a.integratorId,
    company: a.company,
    contactEmail: a.contactEmail,
    intendedUse: a.intendedUse,
    status: a.status,
    submittedAt: new Date(a.submittedAt).toISOString(),
    decidedAt: iso(a.decidedAt),
    decisionNote: a.decisionNote,
    contractId: a.contractId,
  };
}

/** A list filter of the admin API and the CLI: `{ integratorId }`, or `{}` for every integrator. */
export type IntegratorFilter = { integratorId?: string };

/**
 * The applications, oldest first, as administrators see them (the admin API's lists, the
 * integrator's page of the admin API and `admin applications list`).
 * @param d store
 * @param filter status and integrator, each optional
 * @returns the views ({@link applicationView})
 */
export async function applicationViews(
  d: Pick<AdminDeps, "store">,
  filter: IntegratorFilter & { status?: ApplicationRecord["status"] } = {},
): Promise<ReturnType<typeof applicationView>[]> {
  return (await d.store.listApplications(filter)).map(applicationView);
}

/**
 * The contracts, oldest first, as seen now (the admin API's lists and `admin contracts list`).
 * @param d store, clock
 * @param filter the integrator, optional
 * @returns the views ({@link contractView})
 */
export async function contractViews(
  d: AdminDeps,
  filter: IntegratorFilter = {},
): Promise<ContractView[]> {
  const now = d.clock.now();
  return (await d.store.listContracts(filter)).map((c) => contractView(c, now));
}

/**
 * One contract as seen now (`GET /admin/v1/contracts/{id}`, `admin contracts show`).
 * @param d store, clock
 * @param contractId the contract
 * @returns its view
 * @throws AppError NOT_FOUND (404) for an unknown contract
 */
export async function contractNow(d: AdminDeps, contractId: string): Promise<ContractView> {
  const c = await d.store.getContract(contractId);
  if (!c) fail("not_found", `contract "${contractId}"`);
  return contractView(c, d.clock.now());
}

function fail(reason: ContractFailure, what: string): never {
  if (reason === "not_found") throw new AppError("NOT_FOUND", `No ${what}`);
  const text = {
    not_pending: `The ${what} was already decided`,
    not_in_force: `The ${what} is not in force`,
    pending_exists: "An application of this integrator is already pending",
  }[reason];
  throw new AppError("CONFLICT", text, { reason });
}

/**
 * An integrator applies for a contract.
 * @param d store, clock, random
 * @param integratorId the applicant
 * @param input company, contact e-mail, intended use (validated)
 * @returns the pending application
 * @throws AppError CONFLICT (409) when one is already pending
 */
export async function submitApplication(
  d: AdminDeps,
  integratorId: string,
  input: { company: string; contactEmail: string; intendedUse: string },
): Promise<ApplicationRecord> {
  const app: ApplicationRecord = {
    id: newId("app", d.random),
    integratorId,
    company: input.company,
    contactEmail: input.contactEmail,
    intendedUse: input.intendedUse,
    status: "pending",
    submittedAt: d.clock.now(),
    decidedAt: null,
    decisionNote: null,
    contractId: null,
  };
  const res = await d.store.createApplication(app);
  if (!res.ok) fail(res.reason, "application");
  await notifyApplication(d, "application_received", app, null);
  return app;
}

/**
 * Queue an application's mail (docs/token-service.md § Mails to the integrator), sent by the
 * notice scheduler like the expiry notices, in the integrator's language. Queued after the
 * decision is stored: a decision never waits for, or fails because of, a mail.
 * @param d store, clock, random
 * @param kind received, approved or rejected
 * @param a the application as it is now
 * @param contract the contract an approval made
 */
async function notifyApplication(
  d: AdminDeps,
  kind: ApplicationNoticeKind,
  a: ApplicationRecord,
  contract: ContractRecord | null,
): Promise<void> {
  const integrator = await d.store.getIntegrator(a.integratorId);
  await d.store.enqueueNotice(
    applicationNoticeDraft(kind, a, contract, { integrator, now: d.clock.now(), rnd: d.random }),
  );
}

/**
 * The default contract end: one calendar year after the start (UTC).
 * @param startsAt epoch ms
 * @returns epoch ms
 */
export function defaultContractEnd(startsAt: number): number {
  const t = new Date(startsAt);
  t.setUTCFullYear(t.getUTCFullYear() + 1);
  return t.getTime();
}

/**
 * Approve an application: a contract starting now (the approval date is the contract date).
 * A contract in force is superseded; live keys still valid lose expiry and EIK limit.
 * @param d store, clock, random
 * @param applicationId the pending application
 * @param o end date (`undefined` → one year, null → open-ended) and note
 * @returns the contract view, the superseded contract id and how many keys were lifted
 * @throws AppError NOT_FOUND (404), CONFLICT (409) when already decided, VALIDATION_FAILED
 *   (400) for an end date not after now
 */
export async function approveApplication(
  d: AdminDeps,
  applicationId: string,
  o: { endsAt?: number | null | undefined; note?: string | null | undefined },
): Promise<{ contract: ContractView; supersededId: string | null; liftedKeys: number }> {
  const now = d.clock.now();
  const app = await d.store.getApplication(applicationId);
  if (!app) fail("not_found", `application "${applicationId}"`);
  const endsAt = o.endsAt === undefined ? defaultContractEnd(now) : o.endsAt;
  if (endsAt !== null && endsAt <= now) {
    throw new AppError("VALIDATION_FAILED", 'Field "endsAt" must lie in the future', {
      field: "endsAt",
    });
  }
  const contract: ContractRecord = {
    id: newId("ctr", d.random),
    integratorId: app.integratorId,
    applicationId: app.id,
    company: app.company,
    contactEmail: app.contactEmail,
    status: "active",
    startsAt: now,
    endsAt,
    terminatedAt: null,
    terminationReason: null,
    createdAt: now,
  };
  const res = await d.store.approveApplication(applicationId, contract, now, o.note ?? null);
  if (!res.ok) fail(res.reason, `application "${applicationId}"`);
  await notifyApplication(d, "application_approved", {
    ...app,
    status: "approved",
    decidedAt: now,
    decisionNote: o.note ?? null,
    contractId: res.contract.id,
  }, res.contract);
  return {
    contract: contractView(res.contract, now),
    supersededId: res.supersededId,
    liftedKeys: res.liftedKeys,
  };
}

/**
 * Reject a pending application.
 * @param d store, clock
 * @param applicationId the application
 * @param note the reason shown to the integrator
 * @returns the rejected application
 * @throws AppError NOT_FOUND (404), CONFLICT (409) when already decided
 */
export async function rejectApplication(
  d: AdminDeps,
  applicationId: string,
  note: string | null,
): Promise<ApplicationRecord> {
  const res = await d.store.rejectApplication(applicationId, d.clock.now(), note);
  if (!res.ok) fail(res.reason, `application "${applicationId}"`);
  await notifyApplication(d, "application_rejected", res.application, null);
  return res.application;
}

/**
 * Terminate a contract in force now; live keys get 7 days and 3 EIKs again, and the
 * termination notice is enqueued in the same transaction.
 * @param d store, clock, random
 * @param contractId the contract
 * @param reason shown in the notice
 * @returns the contract view and how many keys fell back
 * @throws AppError NOT_FOUND (404), CONFLICT (409) when not in force
 */
export async function terminateContract(
  d: AdminDeps,
  contractId: string,
  reason: string | null,
): Promise<{ contract: ContractView; fallenBackKeys: number }> {
  const now = d.clock.now();
  const c = await d.store.getContract(contractId);
  if (!c) fail("not_found", `contract "${contractId}"`);
  const integrator = await d.store.getIntegrator(c.integratorId);
  const res = await d.store.terminateContract(
    contractId,
    now,
    reason,
    LIVE_KEY_LIFETIME_MS,
    (ended) =>
      contractTerminatedDraft(
        { ...ended, terminatedAt: now },
        now + LIVE_KEY_LIFETIME_MS,
        { integrator, now, rnd: d.random },
      ),
  );
  if (!res.ok) fail(res.reason, `contract "${contractId}"`);
  return { contract: contractView(res.contract, now), fallenBackKeys: res.fallenBackKeys };
}
