/**
 * The sender confirmation state machine of docs/confirmation.md § What a confirmed batch covers:
 * no confirmation held → dialog shown → batch confirmed (10 minutes) | batch refused (decline or
 * time-out; later requests of the batch get SENDER_NOT_CHOSEN at once, no new dialog).
 * Concurrent requests of one batch share one dialog. A batch is keyed by the token's
 * integrator, mode and the `X-Svc-Batch-Id`, so one integrator's page cannot ride on
 * another's confirmation. A request that goes away (its client disconnected) leaves its
 * dialog; a dialog left by all its requests is cancelled (no decision: the batch may ask
 * again). Pending dialogs are bounded per integrator, so one integrator cannot lock out another.
 * @module
 */
import { AppError } from "../../contract/mod.ts";
import { bindRead, covers, scopeOf } from "./scope.ts";
import { busy, type ConfirmDeps, gone, refusal } from "./refusals.ts";
import { pageError } from "./check_texts.ts";
import { newDialog, timeOut, waitOn } from "./waiting.ts";
import { askPin, type PinHost } from "./pin_step.ts";
import {
  BATCH_TTL_MS,
  batchKey,
  type BatchScope,
  type BatchState,
  type Confirmed,
  type ConfirmOptions,
  type ConfirmSubject,
  DEFAULT_MAX_PENDING,
  type Dialog,
  type SenderChoice,
  timingSafeEqual,
  twoStep,
} from "./dialog.ts";

/** The confirmation state machine. */
export class ConfirmationManager {
  readonly #deps: ConfirmDeps;
  readonly #batches = new Map<string, BatchState>();
  readonly #dialogs = new Map<string, Dialog>();
  /** The confirmed two-step page each of its requests waited on (their checks report there). */
  readonly #consentOf = new WeakMap<ConfirmSubject, Dialog>();
  /** Dialogs opened so far (tests and metrics). */
  opened = 0;

  readonly #host: PinHost;

  constructor(deps: ConfirmDeps) {
    this.#deps = deps;
    this.#host = {
      deps,
      consent: (s) => this.#consentOf.get(s),
      batch: (key) => this.#batches.get(key),
      open: (s, senders, now, tab) => this.#open(s, senders, now, null, { step: "pin", tab }),
      refuse: (s) => this.refuse(s),
      sweep: (now) => this.#sweep(now),
    };
  }

  /** Dialogs waiting for the user. */
  get pending(): number {
    return this.pendingFor(null);
  }

  /**
   * Dialogs waiting for the user on behalf of one integrator.
   * @param integratorId the token's `intg` (null: every integrator)
   * @returns the number of pending dialogs
   */
  pendingFor(integratorId: string | null): number {
    let n = 0;
    for (const d of this.#dialogs.values()) {
      if (d.state === "pending" && (integratorId === null || d.integratorId === integratorId)) n++;
    }
    return n;
  }

  /**
   * Ask (or reuse a batch's answer) which sender acts.
   * @param subject what is asked, from the verified token and body
   * @param senders the senders the user may choose from (non-empty)
   * @param opts the request's abort signal: when it aborts, the request leaves the dialog
   * @returns the chosen sender id
   * @throws AppError SENDER_NOT_CHOSEN (declined, timed out, the batch was refused, or the
   *   request went away), CONFIRMATION_BUSY (the integrator has too many pending dialogs)
   */
  confirm(
    subject: ConfirmSubject,
    senders: readonly SenderChoice[],
    opts: ConfirmOptions = {},
  ): Promise<Confirmed> {
    if (opts.signal?.aborted) return Promise.reject(gone());
    const now = this.#deps.clock.now();
    this.#sweep(now);
    const key = batchKey(subject);
    const batch = key === null ? undefined : this.#batches.get(key);
    if (key !== null && batch && batch.until > now) {
      if (batch.state === "confirmed") {
        // non-null: a confirmed batch is stored with its choice and scope (done handler below)
        if (subject.senderId !== null && subject.senderId !== batch.confirmed!.senderId) {
          return Promise.reject(
            new AppError(
              "SENDER_NOT_CHOSEN",
              "This batch was confirmed for another sender; start a new batch to change the sender",
            ),
          );
        }
        // non-null: as above. A retry of an item the user confirmed: silently; else ask again.
        if (covers(batch.scope!, subject)) return Promise.resolve(batch.confirmed!);
        return this.#extend(key, batch, subject, senders, now, opts.signal);
      }
      if (batch.state === "refused") return Promise.reject(refusal());
      const d = batch.dialog;
      if (d && d.state === "pending") {
        d.subjects.push(subject);
        d.version++;
        return waitOn(d, subject, opts.signal);
      }
      // The dialog was just decided; the batch state catches up in a microtask.
      if (d && (d.state === "declined" || d.state === "timedout")) {
        return Promise.reject(refusal());
      }
      // Just confirmed: ask again once the batch records its scope (a microtask later).
      if (d && d.state === "confirmed") {
        return d.done.then(() => this.confirm(subject, senders, opts));
      }
    }
    if (this.pendingFor(subject.integratorId) >= (this.#deps.maxPending ?? DEFAULT_MAX_PENDING)) {
      return Promise.reject(busy());
    }
    const dialog = this.#open(subject, senders, now, null);
    if (key !== null) {
      const state: BatchState = {
        state: "pending",
        until: dialog.expiresAt,
        confirmed: null,
        dialog,
      };
      this.#batches.set(key, state);
      dialog.done.then((confirmed) => {
        const t = this.#deps.clock.now();
        this.#batches.set(key, {
          state: "confirmed",
          until: t + BATCH_TTL_MS,
          confirmed,
          dialog: null,
          scope: scopeOf(dialog.subjects),
          extension: null,
        });
      }, () => {
        // Cancelled (every request went away): no decision was taken, the batch may ask again.
        if (dialog.state === "cancelled") {
          if (this.#batches.get(key)?.dialog === dialog) this.#batches.delete(key);
          return;
        }
        const t = this.#deps.clock.now();
        this.#batches.set(key, {
          state: "refused",
          until: t + BATCH_TTL_MS,
          confirmed: null,
          dialog: null,
        });
      });
    }
    return waitOn(dialog, subject, opts.signal);
  }

  /**
   * A request of a confirmed batch asks beyond what the user confirmed: it joins the batch's
   * waiting extension dialog or opens one, which shows only what is new and offers only the
   * batch's sender. Confirmed: the scope grows and the batch's 10 minutes start again (a PIN
   * typed there, when the batch had none, becomes the batch's; a batch with its PIN is not asked
   * for it again). Declined or timed out: only the requests waiting on it are refused; the batch
   * keeps its earlier scope.
   */
  #extend(
    key: string,
    batch: BatchState,
    subject: ConfirmSubject,
    senders: readonly SenderChoice[],
    now: number,
    signal: AbortSignal | undefined,
  ): Promise<Confirmed> {
    const before = batch.confirmed!; // non-null: only a confirmed batch is extended
    const merged = (c: Confirmed): Confirmed => {
      const pin = c.pin ?? before.pin;
      const later = pin === null && (c.pinLater === true || before.pinLater === true);
      return { senderId: before.senderId, pin, ...(later ? { pinLater: true } : {}) };
    };
    const waiting = batch.extension;
    if (waiting && waiting.state === "pending") {
      waiting.subjects.push(subject);
      waiting.version++;
      return waitOn(waiting, subject, signal).then(merged);
    }
    if (this.pendingFor(subject.integratorId) >= (this.#deps.maxPending ?? DEFAULT_MAX_PENDING)) {
      return Promise.reject(busy());
    }
    // Only the batch's sender is offered (preselected): a batch keeps its sender, and its PIN
    // (the PIN field only when the batch has none yet).
    const own = senders.filter((s) => s.id === before.senderId).map((s) => ({
      ...s,
      needsPin: s.needsPin === true && before.pin === null,
    }));
    if (own.length === 0) {
      return Promise.reject(
        new AppError(
          "SENDER_NOT_CHOSEN",
          "This batch's sender can no longer be offered; start a new batch",
        ),
      );
    }
    const dialog = this.#open(subject, own, now, batch.scope!); // non-null: a confirmed batch
    batch.extension = dialog;
    dialog.done.then((c) => {
      const b = this.#batches.get(key);
      if (b?.state !== "confirmed" || b.extension !== dialog) return;
      b.scope = scopeOf(dialog.subjects, b.scope);
      b.confirmed = merged(c);
      b.until = this.#deps.clock.now() + BATCH_TTL_MS;
      b.extension = null;
    }, () => {
      const b = this.#batches.get(key);
      if (b?.extension === dialog) b.extension = null;
    });
    return waitOn(dialog, subject, signal).then(merged);
  }

  /**
   * The dialog behind a page id (for rendering).
   * @param id dialog id from the page path
   * @returns the dialog or undefined
   */
  get(id: string): Dialog | undefined {
    this.#sweep(this.#deps.clock.now());
    return this.#dialogs.get(id);
  }

  /**
   * Apply the user's decision from the page.
   * @param id dialog id
   * @param nonce the page's one-time nonce
   * @param decision confirm or decline
   * @param senderId the chosen sender (confirm)
   * @param pin the PIN typed on the page, when the sender's key store needs one
   * @param seen the dialog version the page showed (a confirm must have seen every request)
   * @throws AppError CONFIRMATION_NOT_FOUND, CONFIRMATION_NONCE_INVALID, CONFIRMATION_CHANGED,
   *   SENDER_NOT_FOUND
   */
  decide(
    id: string,
    nonce: string,
    decision: "confirm" | "decline",
    senderId: string | null,
    pin: string | null = null,
    seen: number | null = null,
  ): void {
    const d = this.get(id);
    if (!d || d.state !== "pending") {
      throw new AppError("CONFIRMATION_NOT_FOUND", "This confirmation is no longer waiting");
    }
    if (d.nonceUsed || !timingSafeEqual(nonce, d.nonce)) {
      throw new AppError(
        "CONFIRMATION_NONCE_INVALID",
        "The decision lacks the page's one-time nonce",
      );
    }
    // The user decides on what the page showed: requests that joined later must be seen first.
    if (decision === "confirm" && seen !== d.version) {
      throw new AppError("CONFIRMATION_CHANGED", "More requests joined; review the page again", {
        requests: d.subjects.length,
      });
    }
    if (decision === "decline") {
      d.nonceUsed = true;
      d.state = "declined";
      d.reject(refusal(d));
      return;
    }
    const chosen = senderId ?? d.preselected;
    if (!chosen || !d.senders.some((s) => s.id === chosen)) {
      throw new AppError("SENDER_NOT_FOUND", "Choose one of the listed senders");
    }
    const choice = d.senders.find((s) => s.id === chosen)!; // non-null: checked just above
    // Files still to be read and checked: the PIN is asked only once they passed (never here).
    const later = twoStep(d);
    if (choice.needsPin && !pin && !later) {
      throw new AppError("VALIDATION_FAILED", "Enter the PIN of the sender's signature", {
        field: "pin",
      });
    }
    d.nonceUsed = true;
    d.state = "confirmed";
    if (later) {
      d.after = {
        checking: new Set(d.subjects.filter((s) => s.checkAfterConsent)),
        failed: [],
        passed: 0,
        pinStep: null,
      };
      for (const s of d.subjects) this.#consentOf.set(s, d);
      d.resolve({ senderId: chosen, pin: null, pinLater: true });
      return;
    }
    d.resolve({ senderId: chosen, pin: choice.needsPin ? pin : null });
  }

  /**
   * A request of a two-step page (its files read and checked after the consent) reports how its
   * check went; the page shows it. A request that waited on no such page reports nothing.
   * @param subject the request, as it was passed to {@link confirm}
   * @param error what the check threw (null: the files passed and nothing more is asked)
   */
  checked(subject: ConfirmSubject, error: unknown): void {
    const d = this.#consentOf.get(subject);
    if (!d?.after?.checking.delete(subject)) return;
    if (error === null) d.after.passed++;
    else d.after.failed.push(pageError(subject.typeId, error));
  }

  /** Whether what a request read at its disk paths is covered by its batch (scope.ts `bindRead`). */
  sameRead(subject: ConfirmSubject, read: Partial<ConfirmSubject>): boolean {
    const b = this.#batches.get(batchKey(subject) ?? "");
    return b?.state !== "confirmed" || !b.scope || bindRead(b.scope, subject, read);
  }

  /**
   * The PIN step (docs/confirmation.md § Two steps): a request whose batch was confirmed without
   * the PIN, because its files were still to be read, asks for it once they passed their checks.
   * The batch's PIN, once typed, serves its later requests; requests asking while the step waits
   * join it. The step's page shows what was read; when the consent page is still open, that page
   * moves on to it (no new tab). Declined or timed out: the batch is refused, as a decline is.
   * @param subject the request, as it was passed to {@link confirm}
   * @param read what its files hold, as the page shows it (files, companies, period, figures)
   * @param sender the batch's sender (the step offers no other)
   * @param opts the request's abort signal
   * @returns the PIN
   * @throws AppError SENDER_NOT_CHOSEN (declined, timed out, the batch was refused, or the request
   *   went away)
   */
  pin(
    subject: ConfirmSubject,
    read: Partial<ConfirmSubject>,
    sender: SenderChoice,
    opts: ConfirmOptions = {},
  ): Promise<string> {
    return askPin(this.#host, subject, read, sender, opts.signal);
  }

  /**
   * Decline every dialog still waiting (the agent is shutting down): their requests answer
   * SENDER_NOT_CHOSEN at once instead of holding the shutdown for the dialog's time-out.
   */
  declineAllPending(): void {
    for (const d of this.#dialogs.values()) {
      if (d.state === "pending") {
        d.state = "declined";
        d.reject(refusal(d));
      }
    }
  }

  /**
   * Refuse a confirmed batch (e.g. after a wrong PIN): its PIN is forgotten and later requests
   * of the batch get SENDER_NOT_CHOSEN until the 10 minutes pass.
   * @param subject identifies the batch (mode, integrator, origin, batch id)
   */
  refuse(subject: Pick<ConfirmSubject, "batchId" | "mode" | "integratorId" | "origin">): void {
    const key = batchKey(subject);
    if (key === null) return;
    this.#batches.set(key, {
      state: "refused",
      until: this.#deps.clock.now() + BATCH_TTL_MS,
      confirmed: null,
      dialog: null,
    });
  }

  #open(
    subject: ConfirmSubject,
    senders: readonly SenderChoice[],
    now: number,
    base: BatchScope | null,
    step: { readonly step: "pin"; readonly tab: boolean } | null = null,
  ): Dialog {
    const dialog = newDialog(this.#deps, subject, senders, now, base, step?.step ?? null);
    this.#dialogs.set(dialog.id, dialog);
    this.opened++;
    // A PIN step whose consent page is open moves there; otherwise it opens a tab of its own.
    if (step?.tab !== false) this.#deps.openPage(`/confirm/${dialog.id}`, dialog);
    return dialog;
  }

  #sweep(now: number): void {
    for (const [k, b] of this.#batches) {
      if (b.state !== "pending" && b.until <= now) this.#batches.delete(k);
    }
    for (const [id, d] of this.#dialogs) {
      if (d.state === "pending" && d.expiresAt <= now) timeOut(d);
      if (d.state !== "pending" && d.expiresAt + BATCH_TTL_MS <= now) this.#dialogs.delete(id);
    }
  }
}
