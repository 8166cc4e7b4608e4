/**
 * The PIN step (docs/confirmation.md § Two steps): a request whose batch was confirmed without
 * the PIN — its files were still to be read — asks for it once they passed their checks. The
 * batch's PIN, once typed, serves its later requests; requests asking while the step waits join
 * it. The step's page shows what was read; while the consent page is open, that page moves on
 * to it (no new tab). Declined or timed out: the batch is refused, as a decline of its first
 * page is.
 * @module
 */
import {
  BATCH_TTL_MS,
  batchKey,
  type BatchState,
  type Confirmed,
  type ConfirmSubject,
  type Dialog,
  type SenderChoice,
} from "./dialog.ts";
import { type ConfirmDeps, gone, refusal } from "./refusals.ts";
import { waitOn } from "./waiting.ts";

/** What the step needs of the manager. */
export interface PinHost {
  readonly deps: ConfirmDeps;
  /** The confirmed two-step page a request waited on. */
  consent(subject: ConfirmSubject): Dialog | undefined;
  batch(key: string): BatchState | undefined;
  /** Open a PIN step's dialog (`tab`: in a new tab, else the consent page moves there). */
  open(
    subject: ConfirmSubject,
    senders: readonly SenderChoice[],
    now: number,
    tab: boolean,
  ): Dialog;
  refuse(subject: ConfirmSubject): void;
  sweep(now: number): void;
}

/**
 * Ask the batch's PIN after a request's files passed their checks.
 * @param host the manager's parts
 * @param subject the request, as it was passed to the manager's `confirm`
 * @param read what its files hold, as the page shows it (files, companies, period, figures)
 * @param sender the batch's sender (the step offers no other)
 * @param signal the request's abort signal
 * @returns the PIN
 * @throws AppError SENDER_NOT_CHOSEN (declined, timed out, the batch was refused, or the request
 *   went away)
 */
export function askPin(
  host: PinHost,
  subject: ConfirmSubject,
  read: Partial<ConfirmSubject>,
  sender: SenderChoice,
  signal: AbortSignal | undefined,
): Promise<string> {
  const consent = host.consent(subject);
  if (consent?.after?.checking.delete(subject)) consent.after.passed++;
  if (signal?.aborted) return Promise.reject(gone());
  const now = host.deps.clock.now();
  host.sweep(now);
  const key = batchKey(subject);
  const batch = key === null ? undefined : host.batch(key);
  if (batch?.state === "refused") return Promise.reject(refusal());
  // non-null: a confirmed batch is stored with its choice (manager.ts)
  const chosen = batch?.state === "confirmed" ? batch.confirmed! : null;
  if (chosen && chosen.pin !== null) return Promise.resolve(chosen.pin);
  const asked: ConfirmSubject = { ...subject, ...read, checkAfterConsent: false };
  // non-null: a dialog opened with needsPin: true resolves only with the PIN entered
  const pinOf = (c: Confirmed) => c.pin!;
  const waiting = batch?.pinStep;
  if (waiting && waiting.state === "pending") {
    waiting.subjects.push(asked);
    waiting.version++;
    if (consent?.after) consent.after.pinStep = waiting.id;
    return waitOn(waiting, asked, signal).then(pinOf);
  }
  const dialog = host.open(asked, [{ ...sender, needsPin: true }], now, !consent?.after);
  if (consent?.after) consent.after.pinStep = dialog.id;
  if (batch && key !== null) {
    batch.pinStep = dialog;
    dialog.done.then((c) => {
      const b = host.batch(key);
      if (b !== batch || b.state !== "confirmed") return;
      // non-null: b is still the confirmed batch (checked on the line above), stored with its
      // choice
      b.confirmed = { senderId: b.confirmed!.senderId, pin: c.pin };
      b.until = host.deps.clock.now() + BATCH_TTL_MS;
      b.pinStep = null;
    }, () => {
      if (dialog.state === "cancelled") {
        if (batch.pinStep === dialog) batch.pinStep = null;
        return;
      }
      if (host.batch(key) === batch) host.refuse(subject);
    });
  }
  return waitOn(dialog, asked, signal).then(pinOf);
}
