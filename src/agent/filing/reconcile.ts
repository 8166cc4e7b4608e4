/**
 * The journal's reconciliation at start (docs/journal.md): a crashed run's "pending" rows were
 * never sent and become "not_filed"; its "unknown" rows are asked of the portal's `reconcile`
 * (the test portal recomputes the answer; the live portal cannot, and such rows stay "unknown"
 * until a person resolves them with `journal resolve`, docs/journal.md).
 * @module
 */
import type { SubmissionInput } from "../../portal/mod.ts";
import type { PortalAdapter } from "../../portal/mod.ts";
import type { Logger } from "../../log.ts";
import type { Journal } from "./journal.ts";

/**
 * Reconcile the journal after a start.
 * @param journal the journal
 * @param portals adapters by mode
 * @param log logger
 * @param now the clock
 * @returns counts: rows found not sent, answers recovered, rows still unknown
 * @throws nothing (a portal that cannot answer leaves the row unknown)
 */
export async function reconcileJournal(
  journal: Journal,
  portals: { test: PortalAdapter; live?: PortalAdapter },
  log: Logger,
  now: () => Date,
): Promise<{ notSent: number; reconciled: number; unknown: number }> {
  let notSent = 0, reconciled = 0, unknown = 0;
  for (const r of journal.inState("pending")) {
    journal.notFiled(r.id, "NOT_SENT", "The agent stopped before sending this filing", now());
    notSent++;
  }
  for (const r of journal.inState("unknown")) {
    const portal = r.mode === "live" ? portals.live : portals.test;
    const res = portal?.reconcile
      ? await portal.reconcile({
        kind: r.kind as SubmissionInput["kind"],
        eik: r.eik,
        request: r.request,
        // The journal keeps the kinds the agent sent (SubmissionFile["kind"]), as text.
        files: r.files.map((f) => ({
          ...f,
          kind: f.kind as SubmissionInput["files"][number]["kind"],
          bytes: new Uint8Array(),
        })),
        clientRef: r.id,
        // non-null: a filing in state "unknown" was sent, so it has sentAt (docs/journal.md §
        // States)
        at: new Date(r.sentAt!),
      }, { sender: r.senderId ? { id: r.senderId, displayName: r.senderId } : null }).catch(() =>
        null
      )
      : null;
    if (res) {
      journal.answer(r.id, res, now());
      reconciled++;
    } else {
      unknown++;
    }
  }
  if (notSent + reconciled + unknown > 0) {
    log("info", "journal reconciled", { notSent, reconciled, unknown });
  }
  if (unknown > 0) {
    log(
      "warn",
      "filings with an unknown outcome: check them on the NRA portal, then run " +
        "`journal resolve <id> --filed|--not-filed` (journal list --state unknown)",
      { unknown },
    );
  }
  return { notSent, reconciled, unknown };
}
