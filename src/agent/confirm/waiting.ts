/**
 * A dialog's life apart from the batch: made with its one-time ids and its time-out, and waited
 * on by requests, each with its own promise, which leaves the dialog when the request goes away
 * (its client disconnected); the last request out cancels the dialog (no decision).
 * @module
 */
import type { AppError } from "../../contract/mod.ts";
import {
  type BatchScope,
  type Confirmed,
  type ConfirmSubject,
  DEFAULT_CONFIRM_TIMEOUT_MS,
  type Dialog,
  type SenderChoice,
} from "./dialog.ts";
import { type ConfirmDeps, defaultTimer, gone, refusal, rid } from "./refusals.ts";

/**
 * A new pending dialog, which times out by itself (the manager registers it and opens its page).
 * @param deps clock-free parts of the manager's dependencies: time-out, timer, random ids
 * @param subject the first request
 * @param senders the senders offered
 * @param now epoch ms
 * @param base the scope confirmed so far (an extension), else null
 * @param step "pin" for the PIN step, else null (the consent page)
 * @returns the dialog
 */
export function newDialog(
  deps: ConfirmDeps,
  subject: ConfirmSubject,
  senders: readonly SenderChoice[],
  now: number,
  base: BatchScope | null,
  step: "pin" | null,
): Dialog {
  const timeout = deps.timeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS;
  let resolve!: (c: Confirmed) => void;
  let reject!: (e: AppError) => void;
  const done = new Promise<Confirmed>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  done.catch(() => {}); // observed by callers; avoid unhandled rejections for shared dialogs
  // non-null: senders.length === 1
  const preselected = subject.senderId ?? (senders.length === 1 ? senders[0]!.id : null);
  const random = deps.randomId ?? rid;
  const dialog: Dialog = {
    id: random(),
    nonce: random(),
    integratorId: subject.integratorId,
    createdAt: now,
    expiresAt: now + timeout,
    subjects: [subject],
    version: 1,
    senders,
    preselected,
    base,
    ...(step ? { step } : {}),
    state: "pending",
    nonceUsed: false,
    done,
    resolve,
    reject,
  };
  const cancel = (deps.setTimer ?? defaultTimer)(() => timeOut(dialog), timeout);
  done.then(cancel, cancel);
  return dialog;
}

/** A dialog's time ran out: its requests are refused as by a decline. */
export function timeOut(d: Dialog): void {
  if (d.state !== "pending") return;
  d.state = "timedout";
  d.reject(refusal(d));
}

/**
 * One request's wait on a dialog.
 * @param d the dialog
 * @param subject the request (as it joined `d.subjects`)
 * @param signal the request's abort signal
 * @returns the user's answer
 * @throws AppError SENDER_NOT_CHOSEN (declined, timed out, or the request went away)
 */
export function waitOn(
  d: Dialog,
  subject: ConfirmSubject,
  signal: AbortSignal | undefined,
): Promise<Confirmed> {
  if (!signal) return d.done;
  return new Promise<Confirmed>((resolve, reject) => {
    const onAbort = () => {
      leave(d, subject);
      reject(gone());
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const settle = () => signal.removeEventListener("abort", onAbort);
    d.done.then((c) => {
      settle();
      resolve(c);
    }, (e) => {
      settle();
      reject(e);
    });
  });
}

/** A request went away: it leaves the dialog; the last one out cancels it. */
function leave(d: Dialog, subject: ConfirmSubject): void {
  if (d.state !== "pending") return;
  const i = d.subjects.indexOf(subject);
  if (i < 0) return;
  d.subjects.splice(i, 1);
  d.version++;
  if (d.subjects.length === 0) {
    d.state = "cancelled";
    d.reject(gone());
  }
}
