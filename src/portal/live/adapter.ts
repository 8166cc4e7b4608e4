/**
 * The live portal: a {@link PortalAdapter} in mode "live" over the NRA public API. It files
 * D1/D6 (`DEC_1_6`), ETZ art. 62 (`DEC_ETZ62`) and, unverified, high-fiscal-risk notifications
 * (`DEC_HIGH_FISC_RISK`) signed with the sender's QES, and fetches their results; everything
 * else is PORTAL_OPERATION_UNSUPPORTED. Refusals of a declaration by the NRA are results
 * (success=false / status "error"); transport and credential failures are thrown AppErrors.
 * Every error `submit` throws says in `details.outcome` whether the declaration never reached
 * the NRA ("not_filed"), was refused by it ("refused") or may have been filed ("unknown"), so
 * the journal records the filing accordingly (http.ts CallOutcome; docs/journal.md).
 * Implements docs/nra-api.md §1–§9, as docs/live-portal.md describes.
 * @module
 */
import type {
  SubmissionKind,
  SubmissionResult,
  SubmissionResultPayload,
} from "../../contract/mod.ts";
import { silentLogger } from "../../log.ts";
import type {
  PortalAdapter,
  PortalContext,
  PortalOperationRef,
  SubmissionInput,
} from "../adapter.ts";
import { type CaFetch, caFetchFromFile } from "./ca_fetch.ts";
import { assertLiveKind, checkLiveOperation, unsupportedReport } from "./capabilities.ts";
import { withOutcome } from "./http.ts";
import { type ApiClient, callApi } from "./api_call.ts";
import { certificateOf, identityOf } from "./identity.ts";
import { createTokenSource, type TokenSource } from "./oauth.ts";
import { notAnNraDocumentId, resultPayloadOf, resultRefusalOf } from "./result_payload.ts";
import {
  type LiveEndpoints,
  liveEndpoints,
  type LivePortalDeps,
  type LivePortalSettings,
} from "./settings.ts";
import { buildSubmitBody } from "./submit_body.ts";
import { acceptedSubmission, refusedSubmission } from "./submission_answer.ts";

/** The live portal: a PortalAdapter plus its endpoints and a closer for its HTTP client. */
export interface LivePortal extends PortalAdapter {
  readonly mode: "live";
  /** The URLs it calls (no secrets). */
  readonly endpoints: LiveEndpoints;
  /** Release the HTTP client made for `settings.caFile` (idempotent). */
  close(): Promise<void>;
}

/**
 * Create the live portal.
 *
 * docs/live-portal.md; docs/nra-api.md §1 (endpoints), §2 (OAuth2 client credentials with
 * a token cached until `expires_in − 60 s` and renewed once on a 401/MALFORMED_TOKEN, or a
 * pre-issued JWT), §3 (submit body), §4 (result), §5 (signatures), §7 (errors), §9 (coverage).
 * @param settings agent.json `portal` (baseUrl, environment, tokenUrl, clientId, clientSecret,
 *   accessToken, timeoutSeconds, caFile)
 * @param deps `fetch` (default: global fetch, or one trusting `settings.caFile`), `clock`, `log`
 * @returns a PortalAdapter with mode "live"
 * @throws nothing (missing credentials surface per call as PORTAL_NOT_CONFIGURED; the methods
 *   throw as documented on them)
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { systemClock } from "../../clock.ts";
 * // agent.json's `portal` section; no call is made until a filing or a report
 * const settings = {
 *   baseUrl: "https://public-api.nra.bg",
 *   environment: "test" as const,
 *   clientId: "my-client-id",
 *   clientSecret: "my-client-secret",
 *   timeoutSeconds: 30,
 * };
 * const portal = createLivePortal(settings, { clock: systemClock });
 * equal(portal.mode, "live");
 * console.log(portal.endpoints.submit); // filings: portal.submit(input, { sender, sign, certificate })
 * await portal.close();
 * ```
 */
export function createLivePortal(settings: LivePortalSettings, deps: LivePortalDeps): LivePortal {
  const endpoints = liveEndpoints(settings);
  const log = deps.log ?? silentLogger;
  const { getFetch, closeFetch } = portalFetch(settings, deps);
  let tokens: TokenSource | null = null;
  const tokenSource = () =>
    tokens ??= createTokenSource(settings, endpoints, { getFetch, clock: deps.clock, log });
  const client: ApiClient = {
    tokenSource,
    getFetch,
    timeoutMs: settings.timeoutSeconds * 1000,
    clock: deps.clock,
    log,
  };

  return {
    mode: "live",
    endpoints,

    /**
     * Before any confirmation page or PIN: the operation is one the public API offers (VAT
     * only with `experimentalVatService`), and the credentials are not already known to be
     * refused (settings present, a pre-issued JWT not past its `exp`). No network call.
     * @throws AppError PORTAL_OPERATION_UNSUPPORTED, PORTAL_NOT_CONFIGURED, PORTAL_AUTH_FAILED
     */
    check(op: PortalOperationRef): void {
      checkLiveOperation(op, settings);
      if (op.family !== "local") tokenSource().check();
    },

    /**
     * File one declaration: sign each file, send the body, map the answer.
     * @throws AppError PORTAL_OPERATION_UNSUPPORTED (vat, dec731, dec736, etz123, odit),
     *   SIGNING_FAILED (no certificate or signer; signing failure), CERTIFICATE_INVALID,
     *   PORTAL_NOT_CONFIGURED, PORTAL_AUTH_FAILED, PORTAL_UNREACHABLE, PORTAL_TIMEOUT,
     *   PORTAL_SERVER_ERROR, PORTAL_BAD_RESPONSE, PORTAL_REJECTED, CERTIFICATE_NOT_RECOGNISED,
     *   NO_POWER_OF_ATTORNEY, DOCUMENT_SIGNATURE_MISMATCH, the signer's PIN/key store codes;
     *   each with `details.outcome` (not_filed, refused or unknown)
     */
    submit(input: SubmissionInput, ctx: PortalContext): Promise<SubmissionResult> {
      return submitLive(client, settings, input, ctx);
    },

    /**
     * The result (protocol) of a submission by its documentId.
     * @throws AppError PORTAL_OPERATION_UNSUPPORTED, SIGNING_FAILED (no certificate),
     *   CERTIFICATE_INVALID and the transport/credential codes of submit
     */
    result(
      kind: SubmissionKind,
      documentId: string,
      eik: string,
      ctx: PortalContext,
    ): Promise<SubmissionResultPayload> {
      return resultLive(client, settings, { kind, documentId, eik }, ctx);
    },

    /**
     * Reports are not offered by the NRA public API.
     * @throws AppError PORTAL_OPERATION_UNSUPPORTED naming the typeId
     */
    report(op: { readonly typeId: string }): Promise<never> {
      return Promise.reject(unsupportedReport(op.typeId));
    },

    close: closeFetch,
  };
}

/** The fetch of the portal's calls: the injected one, the global one, or one trusting
 * `settings.caFile` (made on first use, closed by `closeFetch`, idempotent). */
function portalFetch(settings: LivePortalSettings, deps: LivePortalDeps) {
  let ca: Promise<CaFetch> | null = null;
  let closed = false;
  const getFetch = async (): Promise<typeof fetch> => {
    if (deps.fetch) return deps.fetch;
    if (!settings.caFile) return fetch;
    ca ??= caFetchFromFile(settings.caFile).catch((e) => {
      ca = null;
      throw e;
    });
    return (await ca).fetch;
  };
  const closeFetch = async (): Promise<void> => {
    if (closed || !ca) return;
    closed = true;
    try {
      (await ca).close();
    } catch { /* the CA file never loaded */ }
  };
  return { getFetch, closeFetch };
}

/**
 * File one declaration live: sign each file, send the body, map the answer (the adapter's
 * `submit`; its errors are documented there).
 */
async function submitLive(
  client: ApiClient,
  settings: LivePortalSettings,
  input: SubmissionInput,
  ctx: PortalContext,
): Promise<SubmissionResult> {
  let body: Awaited<ReturnType<typeof buildSubmitBody>>;
  try {
    assertLiveKind(input.kind, "submit", settings);
    const certificate = certificateOf(ctx, true);
    const identity = identityOf(input.eik, certificate);
    // Credentials first: no PIN is asked for when the API client itself is refused.
    await client.tokenSource().bearer(ctx.signal);
    await ctx.prepareSignatures?.(input.files.map((f) => f.bytes));
    // non-null: certificateOf(ctx, true) above refuses a context without sign
    body = await buildSubmitBody(input.kind, input, identity, ctx.sign!);
  } catch (e) {
    throw withOutcome(e, "not_filed", true); // nothing left the machine
  }
  input.onSend?.();
  const out = await callApi(
    client,
    "submit",
    liveEndpoints(settings).submit,
    body,
    input.eik,
    ctx.signal,
  );
  if (out.kind === "refused") {
    client.log("warn", "portal refused the declaration", {
      kind: input.kind,
      environment: settings.environment,
      errorCode: out.envelope.errorCode,
      httpStatus: out.envelope.httpStatus,
    });
    return refusedSubmission(out.envelope);
  }
  const result = acceptedSubmission(out.body, client.clock.now());
  client.log("info", "portal accepted the declaration", {
    kind: input.kind,
    environment: settings.environment,
    files: body.files.length,
    documentId: result.documentId,
  });
  return result;
}

/** The result (protocol) of a submission live (the adapter's `result`; its errors are
 * documented there). */
async function resultLive(
  client: ApiClient,
  settings: LivePortalSettings,
  q: { readonly kind: SubmissionKind; readonly documentId: string; readonly eik: string },
  ctx: PortalContext,
): Promise<SubmissionResultPayload> {
  assertLiveKind(q.kind, "result", settings);
  const url = liveEndpoints(settings).result;
  const id = q.documentId.trim();
  if (!/^\d{1,15}$/.test(id)) return notAnNraDocumentId(q.documentId, url);
  const body = { ...identityOf(q.eik, certificateOf(ctx, false)), documentId: Number(id) };
  const out = await callApi(client, "result", url, body, q.eik, ctx.signal);
  if (out.kind === "refused") return resultRefusalOf(out.envelope, out.text, url);
  return resultPayloadOf(out.body, id, url);
}
