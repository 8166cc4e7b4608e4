/**
 * The shapes of the sender confirmation: what a request asks the user ({@link ConfirmSubject}),
 * the senders offered, the user's answer, and one dialog shared by the requests of a batch
 * ({@link Dialog}), with its bounds (docs/confirmation.md § What a confirmed batch covers).
 * @module
 */
import type { Bilingual, KeyMode } from "../../contract/mod.ts";
import type { AppError, ErrorCode, SubmissionKind } from "../../contract/mod.ts";
import type { CompanyName, FileFigures } from "../local/mod.ts";

export type { CompanyName, FileFigures };

/** Batch memory, ms (docs/confirmation.md § What a confirmed batch covers: 10 minutes). */
export const BATCH_TTL_MS = 10 * 60 * 1000;
/** Default dialog time-out, ms (our choice: 5 minutes; config `confirmTimeoutSeconds`). */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 5 * 60 * 1000;
/** Default bound on dialogs pending at once for one integrator (the token's `intg`); other
 * integrators are not affected. */
export const DEFAULT_MAX_PENDING = 4;

/** What the user is asked to confirm (all from the verified token and the validated body). */
export interface ConfirmSubject {
  readonly batchId: string | null;
  /** X-Svc-Sender-Id, if given (preselects the sender). */
  readonly senderId: string | null;
  readonly typeId: string;
  /** The declaration kind the request files (its registry entry's `kind`, for a submission or
   * a folder-wide batch), or null for a read: the request carries it from the pipeline. */
  readonly filing: SubmissionKind | null;
  readonly summary: string;
  readonly eiks: readonly string[];
  readonly period: string | null;
  /** Files already read (inline input: the caller's own bytes), as display names. */
  readonly files: readonly string[];
  /** SHA-256 (hex) of each file already read (inline input): what a confirmed batch covers. */
  readonly digests?: readonly string[];
  /** Local paths the agent reads only after the user confirms, never looked at before the
   * decision. */
  readonly paths?: readonly ShownPath[];
  /** The request's other parameters (its body without the inline files, canonical JSON): part
   * of the item a confirmed batch covers (src/agent/confirm/scope.ts). */
  readonly params?: string;
  readonly documents: number | null;
  /** The companies' names by EIK: from files already read, else from the portal of the
   * token's mode (the test portal's profile); an EIK without a name is shown alone. */
  readonly companies?: readonly CompanyName[];
  /** What the files already read declare (VAT payable or refundable and the ledgers' records;
   * D1/D6 insured persons and contributions); never from a path on the disk (not read yet). */
  readonly figures?: FileFigures;
  /** Findings of the checks of files already read (e.g. DEKLAR ↔ VIES), shown before the user
   * confirms; they do not stop the filing. */
  readonly warnings?: readonly Bilingual[];
  /** Integrator id and display name from the token. */
  readonly integratorId: string;
  readonly integratorName: string;
  /** Legal name and EIK when the token service's administrator verified them (the token's
   * `intgVerified`); absent or null = the name is self-declared (docs/confirmation.md § Who
   * asks). */
  readonly integratorVerified?: { readonly legalName: string; readonly eik: string } | null;
  /** The calling page's origin, from the token's `origin` claim (null when not bound). */
  readonly origin: string | null;
  readonly mode: KeyMode;
  /** The request reads paths on the disk after the consent and checks them there
   * (docs/confirmation.md § Two steps): its page asks no PIN; the PIN, if the sender needs one,
   * is asked on a second step once the files passed, and a file that fails is shown on the page. */
  readonly checkAfterConsent?: boolean;
}

/** What a confirmed batch covers (src/agent/confirm/scope.ts): the items its pages showed. */
export interface BatchScope {
  /** The items the pages showed and the user confirmed, by their key (`itemKey`); an item
   * naming disk paths is added again with the SHA-256 of the files read there (`bindRead`). */
  readonly items: Set<string>;
  /** The items naming disk paths whose files were read once (their bytes are then in `items`). */
  readonly bound: Set<string>;
  /** The declaration kinds those items file (the page's summary of the earlier scope). */
  readonly filings: ReadonlySet<SubmissionKind>;
  /** The companies (EIKs) those items name (the page's summary; a new one is marked). */
  readonly eiks: ReadonlySet<string>;
}

/** A batch's state in the manager (src/agent/confirm/manager.ts). */
export interface BatchState {
  state: "pending" | "confirmed" | "refused";
  until: number;
  confirmed: Confirmed | null;
  dialog: Dialog | null;
  /** What the user confirmed (state confirmed). */
  scope?: BatchScope;
  /** The dialog asking for what a request of the confirmed batch adds, while it waits. */
  extension?: Dialog | null;
  /** The PIN step waiting for the user (docs/confirmation.md § Two steps). */
  pinStep?: Dialog | null;
}

/** A local path as the page shows it. */
export interface ShownPath {
  /** What the agent will read: normalised and absolute (no `.` or `..` segments). */
  readonly resolved: string;
  /** The path as the caller sent it. */
  readonly sent: string;
}

/** A sender choice shown in the dialog. */
export interface SenderChoice {
  readonly id: string;
  readonly displayName: string;
  /** The sender's key store needs a PIN (live filing): the page asks for it. */
  readonly needsPin?: boolean;
  /** false: its certificate is not qualified (no QES); the page marks it. */
  readonly qualified?: boolean;
}

/** The user's answer: the sender, and the PIN typed on the page (kept in memory only, for the
 * batch's 10 minutes, never written or logged). */
export interface Confirmed {
  readonly senderId: string;
  readonly pin: string | null;
  /** The consent was given without the PIN because files were still to be read and checked:
   * the PIN is asked on the PIN step (the manager's `pin`) when one is needed. */
  readonly pinLater?: boolean;
}

/** A request's check that failed after the consent, as the page shows it: Bulgarian, with the
 * English beside it, and what to do. */
export interface PageError {
  readonly typeId: string;
  /** The answer's `errorCode`. */
  readonly code: ErrorCode;
  readonly bg: string;
  readonly en: string;
  /** What to do, in Bulgarian and English. */
  readonly todo: Bilingual;
  /** The agent's own words (the answer's `error`: which file, what was found), for support. */
  readonly detail: string;
}

/** How the requests of a confirmed page that read the disk went (the page shows it). */
export interface AfterConsent {
  /** Requests still reading and checking their files. */
  readonly checking: Set<ConfirmSubject>;
  /** Checks that failed (those requests were answered with the error; nothing was signed). */
  readonly failed: PageError[];
  /** Requests whose files passed. */
  passed: number;
  /** The PIN step's dialog id, once a request that passed needs the PIN. */
  pinStep: string | null;
}

/** How one request waits for the user. */
export interface ConfirmOptions {
  /** The request's abort signal (`c.req.raw.signal`): when every request waiting on a dialog
   * has gone (client disconnected), the dialog is cancelled. */
  readonly signal?: AbortSignal | undefined;
}

/** Where a dialog is: waiting for the user, or how it ended (`cancelled`: every request
 * waiting on it went away before the user decided). */
export type DialogState = "pending" | "confirmed" | "declined" | "timedout" | "cancelled";

/** One dialog, possibly shared by several requests of a batch. */
export interface Dialog {
  readonly id: string;
  readonly nonce: string;
  /** The integrator whose requests wait on it (the per-integrator bound counts these). */
  readonly integratorId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** The requests waiting on it, in arrival order (a request that went away is removed). */
  readonly subjects: ConfirmSubject[];
  /** Bumped whenever a request joins or leaves: the page sends the version it showed (`seen`)
   * and a confirmation of another version is refused (CONFIRMATION_CHANGED). */
  version: number;
  readonly senders: readonly SenderChoice[];
  readonly preselected: string | null;
  /** For a batch already confirmed whose request asks more (docs/confirmation.md § What a
   * confirmed batch covers): the scope confirmed so far; the page shows only what is new, and a
   * decline refuses only that. Null for a batch's first dialog. */
  readonly base?: BatchScope | null;
  /** `consent` (default): the batch's page; `pin`: the PIN step, asked once the files that the
   * consent let the agent read passed their checks (docs/confirmation.md § Two steps). */
  readonly step?: "consent" | "pin";
  /** Set when a page whose requests read the disk after the consent was confirmed: how their
   * checks went, and the PIN step it moves on to. */
  after?: AfterConsent;
  state: DialogState;
  nonceUsed: boolean;
  readonly done: Promise<Confirmed>;
  resolve(c: Confirmed): void;
  reject(e: AppError): void;
}

/**
 * Whether a dialog asks in two steps: consent to read first, the PIN after the checks.
 * @param d the dialog (a PIN step is never itself two-step)
 * @returns true when one of its requests reads the disk after the consent
 */
export function twoStep(d: Pick<Dialog, "subjects" | "step">): boolean {
  return d.step !== "pin" && d.subjects.some((s) => s.checkAfterConsent === true);
}

/** Constant-time string comparison (the page's nonce). */
export function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let r = 0;
  for (let i = 0; i < a.length; i++) r |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return r === 0;
}

/** The key of a batch: mode, integrator, bound origin and `X-Svc-Batch-Id` (null: no batch). */
export function batchKey(
  s: Pick<ConfirmSubject, "batchId" | "mode" | "integratorId" | "origin">,
): string | null {
  return s.batchId === null ? null : `${s.mode}|${s.integratorId}|${s.origin ?? ""}|${s.batchId}`;
}
