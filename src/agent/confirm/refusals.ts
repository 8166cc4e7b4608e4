/**
 * The manager's dependencies and the answers of its refusals: a declined or timed-out dialog
 * (the whole batch, or only what a request added to a confirmed batch), a request that went
 * away, too many dialogs waiting for one integrator.
 * @module
 */
import { AppError } from "../../contract/mod.ts";
import type { Clock } from "../../clock.ts";
import type { Dialog } from "./dialog.ts";

/** Dependencies of the manager. */
export interface ConfirmDeps {
  readonly clock: Clock;
  /** Opens the dialog page (default browser); receives the page path `/confirm/<id>`. */
  readonly openPage: (path: string, dialog: Dialog) => void;
  readonly timeoutMs?: number | undefined;
  /** Dialogs pending at once per integrator (default {@link DEFAULT_MAX_PENDING}). */
  readonly maxPending?: number | undefined;
  /** Timer (tests may inject). Returns a cancel function. */
  readonly setTimer?: (fn: () => void, ms: number) => () => void;
  readonly randomId?: () => string;
}

export const defaultTimer = (fn: () => void, ms: number) => {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
};

export const rid = () =>
  crypto.getRandomValues(new Uint8Array(18)).toBase64({ alphabet: "base64url", omitPadding: true });

/**
 * The answer to the requests of a declined or timed-out dialog.
 * @param d the dialog (an extension of a confirmed batch refuses only what it added)
 * @returns SENDER_NOT_CHOSEN
 */
export function refusal(d?: Dialog): AppError {
  if (d?.base) {
    return new AppError(
      "SENDER_NOT_CHOSEN",
      "The user declined what this request added to its batch, or the page timed out; the " +
        "batch's earlier confirmation stands, this request is refused",
      { extension: true },
    );
  }
  if (d?.step === "pin") {
    return new AppError(
      "SENDER_NOT_CHOSEN",
      "The user declined to type the signature's PIN, or the page timed out; the whole batch " +
        "is refused",
    );
  }
  return new AppError(
    "SENDER_NOT_CHOSEN",
    "The user declined the sender confirmation or it timed out; the whole batch is refused",
  );
}

/** Too many of one integrator's dialogs wait. */
export function busy(): AppError {
  return new AppError(
    "CONFIRMATION_BUSY",
    "Too many of this integrator's confirmations are waiting for the user",
  );
}

/** The answer to a request that went away before the user decided (nobody reads it). */
export function gone(): AppError {
  return new AppError(
    "SENDER_NOT_CHOSEN",
    "The request went away before the user decided; its confirmation was cancelled",
  );
}
