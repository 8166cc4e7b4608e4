/**
 * The sender confirmation step of the pipeline: pick the usable senders for the token's mode,
 * ask the person at the machine once per batch (src/agent/confirm/), and, in live mode, open
 * the chosen sender's key store with the PIN typed on the page.
 * @module
 */
import type { Context } from "hono";
import { isAppError } from "../../contract/mod.ts";
import type { PortalContext } from "../../portal/mod.ts";
import type { ConfirmationManager, ConfirmSubject } from "../confirm/mod.ts";
import type { AgentDeps } from "../deps.ts";
import type { OperationClaims, TokenVerifier } from "../http/mod.ts";
import {
  checkRequestedSender,
  liveContext,
  needsPin,
  parseKeystoreRef,
  sendersFor,
} from "../senders/mod.ts";

/** What the pipeline needs beyond {@link AgentDeps}. */
export interface PipelineDeps extends AgentDeps {
  readonly verifier: TokenVerifier;
  readonly confirmations: ConfirmationManager;
}

/** What one request asks the user to confirm (the page shows it). */
export type ConfirmWhat = Pick<
  ConfirmSubject,
  "summary" | "eiks" | "period" | "files" | "documents"
>;

/** The request-scoped facts the confirmation needs. */
export interface ConfirmRequest {
  readonly c: Context;
  readonly deps: PipelineDeps;
  readonly claims: OperationClaims;
  readonly batchId: string | null;
  readonly typeId: string;
  /** Receives the key store's close function (run when the request ends). */
  readonly cleanups: (() => void)[];
}

/**
 * Resolve the sender through the confirmation state machine and build the portal context: in
 * live mode the sender's key store is opened with the PIN typed on the page, and a wrong PIN
 * refuses the rest of the batch at once (no second attempt, no token lock-out).
 * @param r the request (context, deps, claims, batch id, typeId, cleanups)
 * @param what what the page shows
 * @returns the portal context (sender, certificate, CMS signer)
 */
export async function confirmSender(
  r: ConfirmRequest,
  what: ConfirmWhat,
): Promise<PortalContext> {
  const { c, deps, claims, batchId, cleanups } = r;
  const usable = sendersFor(deps.senders, claims.mode);
  const requested = c.req.header("x-svc-sender-id") ?? null;
  checkRequestedSender(deps.senders, usable, requested);
  const subject = {
    ...what,
    batchId,
    senderId: requested,
    typeId: r.typeId,
    integratorId: claims.intg ?? claims.sub ?? "unknown",
    integratorName: claims.intgName ?? claims.intg ?? "Unknown integrator",
    origin: claims.origin ?? null,
    mode: claims.mode,
  };
  const refs = new Map(
    usable.map((s) => [s.id, claims.mode === "live" ? parseKeystoreRef(s.keystore) : null]),
  );
  const chosen = await deps.confirmations.confirm(
    subject,
    usable.map((s) => ({
      id: s.id,
      displayName: s.displayName,
      needsPin: needsPin(refs.get(s.id) ?? null),
    })),
  );
  const s = usable.find((x) => x.id === chosen.senderId)!;
  const sender = { id: s.id, displayName: s.displayName };
  if (claims.mode === "test") return { sender };
  const refuseOnPin = (e: unknown) => {
    if (isAppError(e) && (e.code === "PIN_INCORRECT" || e.code === "PIN_LOCKED")) {
      deps.confirmations.refuse(subject);
    }
    throw e;
  };
  const live = await liveContext(sender, refs.get(s.id) ?? null, chosen.pin).catch(refuseOnPin);
  cleanups.push(live.close);
  const sign = live.ctx.sign!;
  return { ...live.ctx, sign: (bytes) => sign(bytes).catch(refuseOnPin) };
}
