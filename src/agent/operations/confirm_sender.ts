/**
 * The sender confirmation step of the pipeline: first refuse what would be refused anyway —
 * an operation the portal does not offer or credentials it would refuse (the portal's
 * `check`), a sender whose certificate, read without the PIN, is not valid (docs/live-portal.md) —
 * then pick the usable senders for the token's mode, ask the person at the machine once per
 * batch (src/agent/confirm/), and, in live mode, open the chosen sender's key store: with the
 * PIN typed on the page to sign, for its certificate only (no PIN) for a result.
 * @module
 */
import type { Context } from "hono";
import { AppError, type Family, isAppError, type OperationSpec } from "../../contract/mod.ts";
import type { PortalAdapter, PortalContext } from "../../portal/mod.ts";
import type {
  CompanyName,
  ConfirmationManager,
  Confirmed,
  ConfirmSubject,
  RemoteApprovals,
} from "../confirm/mod.ts";
import type { CscClient } from "../../signing/mod.ts";
import type { AgentDeps } from "../deps.ts";
import type { BatchBoard } from "../filing/mod.ts";
import { type OperationClaims, type TokenVerifier, verifiedIdentity } from "../http/mod.ts";
import {
  checkRequestedSender,
  liveContext,
  needsPin,
  parseKeyStoreRef,
  precheckSenders,
  type SenderPrecheck,
  sendersFor,
} from "../senders/mod.ts";

/** What the pipeline needs beyond {@link AgentDeps}. */
export interface PipelineDeps extends AgentDeps {
  readonly verifier: TokenVerifier;
  readonly confirmations: ConfirmationManager;
  /** The progress of folder-wide filings (absent: not tracked). */
  readonly batches?: BatchBoard;
  /** Approvals of cloud signatures at their provider (absent: `oauth2code` cannot sign). */
  readonly remoteApprovals?: RemoteApprovals;
}

/** What one request asks the user to confirm (the page shows it). */
export type ConfirmWhat = Pick<
  ConfirmSubject,
  | "summary"
  | "eiks"
  | "period"
  | "files"
  | "paths"
  | "documents"
  | "warnings"
  | "companies"
  | "figures"
  | "digests"
  | "params"
>;

/** The request-scoped facts the confirmation needs: the request carries its operation. */
export interface ConfirmRequest {
  readonly c: Context;
  readonly deps: PipelineDeps;
  readonly claims: OperationClaims;
  readonly batchId: string | null;
  /** The registry entry of the path's typeId (looked up once, by the app). */
  readonly op: OperationSpec;
  /** Receives the key store's close function (run when the request ends). */
  readonly cleanups: (() => void)[];
  /** The portal of the token's mode (chosen once, by the pipeline). */
  readonly portal: PortalAdapter;
}

/** The subject each request asked the user about (what the confirmation page follows). */
const subjects = new WeakMap<Context, ConfirmSubject>();

/**
 * The subject a request's confirmation listed, or null when it asked nothing.
 * @param c the request
 */
export const subjectOf = (c: Context): ConfirmSubject | null => subjects.get(c) ?? null;

/** What an operation does with the sender's key: nothing (local reads), read its certificate
 * (results and reports sign nothing), or sign (submissions, folder-wide batches). */
type KeyUse = "none" | "certificate" | "sign";

function keyUseOf(family: Family): KeyUse {
  if (family === "submission" || family === "batch") return "sign";
  return family === "local" ? "none" : "certificate";
}

/** The senders to offer: a requested sender with an invalid certificate, or no sender left,
 * is refused before the page (CERTIFICATE_INVALID); the others are dropped with a warning. */
function offerable(r: ConfirmRequest, checked: SenderPrecheck[], requested: string | null) {
  const asked = checked.find((p) => p.sender.id === requested);
  if (asked?.problem) throw asked.problem;
  const ok = checked.filter((p) => !p.problem);
  for (const p of checked) {
    if (p.problem) {
      r.deps.log("warn", "sender not offered: its certificate is not valid", {
        ...p.problem.details,
      });
    }
  }
  if (ok.length > 0) return ok;
  // non-null: checked.length === 1
  if (checked.length === 1) throw checked[0]!.problem;
  throw new AppError(
    "CERTIFICATE_INVALID",
    // non-null: ok is empty here, so every checked sender has its problem
    "No sender has a valid certificate: " + checked.map((p) => p.problem!.message).join("; "),
    // non-null: ok is empty here, so every checked sender has its problem
    { senders: checked.map((p) => p.problem!.details) },
  );
}

/**
 * The names of the page's companies: as the files state them, else as the portal of the
 * token's mode knows them without a sender (the test portal's profile; the live portal has no
 * such list), else none (the page shows the EIK alone).
 */
function companiesOf(what: ConfirmWhat, portal: PortalAdapter | undefined): CompanyName[] {
  const byEik = new Map<string, CompanyName>();
  for (const c of what.companies ?? []) if (!byEik.has(c.eik)) byEik.set(c.eik, c);
  for (const eik of what.eiks) {
    if (byEik.has(eik)) continue;
    const name = portal?.companyName?.(eik) ?? null;
    if (name) byEik.set(eik, { eik, name, source: "portal" });
  }
  return [...byEik.values()];
}

/**
 * Resolve the sender through the confirmation state machine and build the portal context.
 * Before any page: the portal's `check` of the operation (unsupported operation, credentials
 * known to be refused) and, in live mode, each sender's certificate read without the PIN
 * (expired or not yet valid: not offered; the requested or only sender: refused). In live
 * mode the chosen sender's key store is then opened with the PIN typed on the page to sign
 * (a wrong PIN refuses the rest of the batch at once: no second attempt, no token lock-out),
 * or for its certificate only, without a PIN, for operations that sign nothing.
 * @param r the request (context, deps, claims, batch id, operation, cleanups, portal)
 * @param what what the page shows
 * @param signal the request's abort signal: a request that goes away leaves the dialog
 * @param afterConsent run once the user confirmed and before the sender's key store is opened
 *   (a disk path's files are read and checked there, and it returns what they hold): its page
 *   asked no PIN; a file that fails is refused and the page says why, and only files that
 *   passed lead to the PIN step, which shows what was read (docs/confirmation.md § Two steps)
 * @returns the portal context (sender; live: certificate, and the CMS signer to sign)
 * @throws AppError PORTAL_OPERATION_UNSUPPORTED, PORTAL_NOT_CONFIGURED, PORTAL_AUTH_FAILED,
 *   CERTIFICATE_INVALID (all before the page); NO_SENDER_CONFIGURED, SENDER_NOT_FOUND,
 *   SENDER_INACTIVE, SENDER_NOT_CHOSEN, CONFIRMATION_BUSY, KEYSTORE_UNAVAILABLE, PIN_INCORRECT,
 *   PIN_LOCKED
 */
export async function confirmSender(
  r: ConfirmRequest,
  what: ConfirmWhat,
  signal?: AbortSignal,
  afterConsent?: () => Promise<Partial<ConfirmWhat> | null>,
): Promise<PortalContext> {
  const { c, deps, claims, op, portal } = r;
  const use = keyUseOf(op.family);
  // Before anything is asked or read: what the portal of the token's mode would refuse anyway.
  portal.check?.(op);
  const usable = sendersFor(deps.senders, claims.mode);
  const requested = c.req.header("x-svc-sender-id") ?? null;
  checkRequestedSender(deps.senders, usable, requested);
  const subject = subjectFor(r, what, requested, afterConsent !== undefined);
  subjects.set(c, subject);
  const keyed = claims.mode === "live" && use !== "none";
  const checked = keyed
    ? await precheckSenders(
      usable.map((s) => ({ sender: s, ref: parseKeyStoreRef(s.keystore) })),
      deps.clock.now(),
    )
    : usable.map((s) => ({ sender: s, ref: null, certificate: null, problem: null }));
  const offered = offerable(r, checked, requested);
  const choices = offered.map((p) => ({
    id: p.sender.id,
    displayName: p.sender.displayName,
    needsPin: use !== "none" && needsPin(p.ref, use, p.certificate !== null),
    ...(p.sender.qualified === false ? { qualified: false } : {}),
  }));
  let chosen = await deps.confirmations.confirm(subject, choices, { signal });
  // non-null: the confirmation answers one of the choices, built from checked
  const p = checked.find((x) => x.sender.id === chosen.senderId)!;
  const sender = { id: p.sender.id, displayName: p.sender.displayName };
  // A two-step page shows how the checks after its consent went; the PIN comes after them.
  let read: Partial<ConfirmWhat> | null | undefined;
  try {
    if (p.problem) throw p.problem;
    read = await afterConsent?.();
  } catch (e) {
    deps.confirmations.checked(subject, e);
    throw e;
  }
  // A path of the batch read again: bytes other than those its item covers ask again, showing
  // what was read (docs/confirmation.md § What a confirmed batch covers); nothing is signed first.
  if (read?.digests && !deps.confirmations.sameRead(subject, read)) {
    const again: ConfirmSubject = { ...subject, ...read, checkAfterConsent: false };
    subjects.set(c, again);
    chosen = await deps.confirmations.confirm(again, choices, { signal });
  }
  const signs = keyed && use === "sign" && needsPin(p.ref) && chosen.pin === null;
  if (!signs || read === null) deps.confirmations.checked(subject, null);
  // Nothing to sign (no listed company's files passed): no key store, no PIN.
  if (!keyed || read === null) return { sender };
  const pin = signs ? await pinOnPage(r, subject, chosen, read ?? {}, sender, signal) : chosen.pin;
  return await openSender(r, subject, sender, p.ref, pin, use);
}

/** The subject the page shows: what the request files, for whom, asked by which integrator. */
function subjectFor(
  r: ConfirmRequest,
  what: ConfirmWhat,
  requested: string | null,
  checkAfterConsent: boolean,
): ConfirmSubject {
  const { claims, batchId, op, portal } = r;
  return {
    ...what,
    companies: companiesOf(what, portal),
    batchId,
    senderId: requested,
    typeId: op.typeId,
    filing: op.family === "submission" || op.family === "batch" ? op.kind : null,
    integratorId: claims.intg ?? claims.sub ?? "unknown",
    integratorName: claims.intgName ?? claims.intg ?? "Unknown integrator",
    integratorVerified: verifiedIdentity(claims),
    origin: claims.origin ?? null,
    mode: claims.mode,
    ...(checkAfterConsent ? { checkAfterConsent: true } : {}),
  };
}

/** The PIN step after the checks (a batch confirmed without a PIN cannot sign: refused). */
async function pinOnPage(
  r: ConfirmRequest,
  subject: ConfirmSubject,
  chosen: Confirmed,
  read: Partial<ConfirmWhat>,
  sender: { id: string; displayName: string },
  signal: AbortSignal | undefined,
): Promise<string | null> {
  const { confirmations } = r.deps;
  if (!chosen.pinLater) {
    const e = new AppError(
      "SENDER_NOT_CHOSEN",
      "This batch was confirmed without a PIN (to read results only); file with a new " +
        "X-Svc-Batch-Id so that the page asks for the signature's PIN",
    );
    confirmations.checked(subject, e);
    throw e;
  }
  return await confirmations.pin(subject, read, { ...sender, needsPin: true }, { signal });
}

/** Open the chosen sender's key store; a wrong or locked PIN refuses the rest of the batch. */
async function openSender(
  r: ConfirmRequest,
  subject: ConfirmSubject,
  sender: { id: string; displayName: string },
  ref: SenderPrecheck["ref"],
  pin: string | null,
  use: "certificate" | "sign",
): Promise<PortalContext> {
  const refuseOnPin = (e: unknown) => {
    const wrong = ["PIN_INCORRECT", "PIN_LOCKED", "OTP_INCORRECT"];
    if (isAppError(e) && wrong.includes(e.code)) {
      r.deps.confirmations.refuse(subject);
    }
    throw e;
  };
  const remote = r.deps.remoteApprovals;
  const stepsFor = remote ? (client: CscClient) => remote.stepsFor(client) : undefined;
  const live = await liveContext(sender, ref, pin, use, stepsFor).catch(refuseOnPin);
  r.cleanups.push(live.close);
  if (use === "certificate") return live.ctx;
  // non-null: use is "sign" here, and a key store opened to sign has sign
  const sign = live.ctx.sign!;
  return { ...live.ctx, sign: (bytes) => sign(bytes).catch(refuseOnPin) };
}
