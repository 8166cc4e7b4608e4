/**
 * The portal's protocol of a declaration just filed, read once right after the portal's
 * answer and kept with the filing in the journal (in the agent's data folder), so the
 * console's receipt of the filing shows it without an integrator asking for it
 * (docs/journal.md § Protocols). Where the portal gives none (its answer is not HTML, or it
 * cannot be read now), the receipt says so; the filing's outcome never depends on it.
 * @module
 */
import { errorMessage } from "../../error_message.ts";
import type { SubmissionKind, SubmissionResult } from "../../contract/mod.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import type { PortalAdapter, PortalContext } from "../../portal/mod.ts";
import type { Journal } from "./journal.ts";

/** What {@link keepFiledProtocol} needs of the agent. */
export interface ProtocolDeps {
  readonly journal?: Journal;
  readonly clock: Clock;
  readonly log: Logger;
}

/**
 * Read and keep the protocol of a filed declaration (the portal's `*_result` as HTML).
 * A refused filing, one without a document id, or a portal answer that is not HTML keeps
 * nothing; a failure to read is logged (`warn`) and swallowed.
 * @param deps journal, clock, logger
 * @param portal the adapter that filed it (same mode, same sender session)
 * @param kind the submission kind
 * @param eik the taxpayer
 * @param ctx the sender context the filing used
 * @param result the portal's answer to the filing
 * @returns true when a protocol was kept
 */
export async function keepFiledProtocol(
  deps: ProtocolDeps,
  portal: PortalAdapter,
  kind: SubmissionKind,
  eik: string,
  ctx: PortalContext,
  result: SubmissionResult,
): Promise<boolean> {
  const journal = deps.journal;
  const documentId = result.documentId;
  if (!journal || !result.success || !documentId || journal.protocol(documentId)) return false;
  try {
    const payload = await portal.result(kind, documentId, eik, ctx);
    if (payload.status !== "ok" || !/html/i.test(payload.rawBodyContentType)) return false;
    journal.keepProtocol({
      documentId,
      contentType: payload.rawBodyContentType,
      body: payload.rawBody,
      fetchedAt: new Date(deps.clock.now()).toISOString(),
    });
    return true;
  } catch (e) {
    deps.log("warn", "protocol not read", {
      documentId,
      error: errorMessage(e),
    });
    return false;
  }
}
