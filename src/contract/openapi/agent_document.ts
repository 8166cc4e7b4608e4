/**
 * The agent's OpenAPI 3.0.3 document (served at `/api/v1/openapi.json`, docs/integrators.md
 * § 8. OpenAPI documents and their lint), built from the contract, never written by hand.
 * @module
 */
import { z } from "@hono/zod-openapi";
import {
  AgentError,
  AgentFailure,
  AgentUpdateRequired,
  BatchProgress,
  HealthResponse,
  PickResponse,
  SendersResponse,
} from "../api.ts";
import { OPERATIONS } from "../operations.ts";
import {
  errorResponseComponent,
  finishDocument,
  HEADER_DOCS,
  json,
  jsonBody,
  newDocument,
  registerBearer,
  registerHeaders,
} from "./openapi.ts";

/**
 * The agent's OpenAPI 3.0.3 document.
 * @param version the agent version, stamped into `info.version`
 * @param serverUrl optional `servers[0].url` (the agent's base URL)
 * @returns the document as a plain JSON object
 */
export function buildAgentOpenApi(version: string, serverUrl?: string): Record<string, unknown> {
  const { app, r } = newDocument();
  registerBearer(r, "OperationToken", {
    bearerFormat: "JWT",
    description: "A 5-second JWT from the token service, issued for exactly this typeId",
  });
  registerHeaders(
    r,
    "The agent's id of this request; an error body repeats it as `requestId`, and the agent's log names it",
  );
  const forbidden = errorResponseComponent(
    r,
    "OriginNotAllowed",
    "AgentFailure",
    "ORIGIN_NOT_ALLOWED: the calling page's origin may not call this agent",
  );
  const tooLarge = errorResponseComponent(
    r,
    "BodyTooLarge",
    "AgentFailure",
    "BODY_TOO_LARGE: the request body exceeds the size limit",
  );
  const unsupported = errorResponseComponent(
    r,
    "UnsupportedMediaType",
    "AgentFailure",
    "UNSUPPORTED_MEDIA_TYPE: the body was not sent as `Content-Type: application/json` (with or without `charset=utf-8`); text/plain, forms, XML and a missing Content-Type are refused",
  );
  const misdirected = errorResponseComponent(
    r,
    "HostNotAllowed",
    "AgentFailure",
    "HOST_NOT_ALLOWED: the Host header is not 127.0.0.1:<port> or localhost:<port>",
  );
  const rateLimited = errorResponseComponent(
    r,
    "RateLimited",
    "AgentFailure",
    "RATE_LIMITED: too many requests from this origin; retry after `Retry-After` seconds",
    true,
  );
  for (const o of OPERATIONS) {
    r.registerPath({
      method: "post",
      path: `/api/v1/operations/${o.typeId}`,
      operationId: o.typeId,
      summary: o.summary,
      description: [
        `Token scope: ${o.scope}.`,
        `Local input: ${o.localInput}${
          o.localInput === "none"
            ? ""
            : " (body path, `X-Svc-File-Path`, or inline `_inlineFile` / `_inlineDir`)"
        }.`,
        o.needsSender
          ? "Acts on the portal in a sender's name: the user confirms the sender (batched by X-Svc-Batch-Id)."
          : o.family === "local"
          ? "Reading a folder on the user's disk asks the user's consent once per X-Svc-Batch-Id; inline input does not."
          : "Needs no sender confirmation.",
      ].join(" "),
      tags: [o.family],
      security: [{ OperationToken: [] }],
      request: {
        headers: z.object(
          Object.fromEntries(
            HEADER_DOCS.map((
              h,
            ) => [h.name, z.string().optional().openapi({ description: h.description })]),
          ),
        ),
        ...jsonBody(o.request, true),
      },
      responses: {
        200: json(o.result, "The operation's result (metadata.errorCode = NO_DATA when empty)"),
        401: json(
          AgentFailure,
          "Token missing, invalid, expired, replayed or for another typeId/EIK",
        ),
        403: forbidden,
        413: tooLarge,
        415: unsupported,
        421: misdirected,
        426: json(AgentUpdateRequired, "The token service requires a newer agent"),
        429: rateLimited,
        502: json(AgentFailure, "Every error other than an empty result"),
        default: json(AgentError, "Generic error"),
      },
    });
  }
  r.registerPath({
    method: "get",
    path: "/api/v1/batches/{batchId}",
    operationId: "batchProgress",
    summary: "Progress of a folder-wide filing (counts and EIKs only)",
    description: "Answers the integrator and page origin that started the batch: send the " +
      "token of one of the batch's requests (its 5 seconds may have passed; it is not used " +
      "again) and the same Origin. Kept 10 minutes after the batch ends; 404 BATCH_NOT_FOUND " +
      "to anyone else. Poll it (e.g. once a second) while the batch's POST runs.",
    tags: ["batch"],
    security: [{ OperationToken: [] }],
    request: {
      params: z.object({
        batchId: z.string().openapi({ description: "The batch's X-Svc-Batch-Id (a GUID)" }),
      }),
    },
    responses: {
      200: json(BatchProgress, "The batch's progress"),
      403: forbidden,
      404: json(AgentFailure, "BATCH_NOT_FOUND"),
      421: misdirected,
      429: rateLimited,
    },
  });
  r.registerPath({
    method: "get",
    path: "/api/senders",
    operationId: "listSenders",
    summary: "Configured senders (no certificates, personal ids or keys)",
    security: [],
    responses: { 200: json(SendersResponse, "Senders"), 403: forbidden, 421: misdirected },
  });
  for (const kind of ["file", "folder"] as const) {
    r.registerPath({
      method: "post",
      path: `/api/pick-${kind}`,
      operationId: `pick${kind === "file" ? "File" : "Folder"}`,
      summary: `Open the native ${kind} dialog (600 s time-out; one dialog at a time)`,
      security: [],
      responses: {
        200: json(PickResponse, "The chosen path, or cancelled"),
        403: forbidden,
        413: tooLarge,
        421: misdirected,
        429: rateLimited,
        502: json(AgentFailure, "PICKER_UNAVAILABLE, PICKER_BUSY or PICKER_TIMEOUT"),
      },
    });
  }
  r.registerPath({
    method: "get",
    path: "/health",
    operationId: "health",
    summary: "Liveness and version; open, cheap, no secrets",
    security: [],
    responses: { 200: json(HealthResponse, "The agent is running"), 421: misdirected },
  });
  return finishDocument(app, {
    info: {
      title: "Local filing agent",
      version,
      description:
        "Files Bulgarian NRA declarations and reads tax reports with the sender's QES. Errors: 502 `{error, errorCode, errorKind, requestId}`; see components.schemas.ErrorCode. Every answer carries `X-Request-Id`.",
    },
    servers: serverUrl
      ? [{ url: serverUrl }]
      : [{ url: "http://127.0.0.1:{port}", variables: { port: { default: "17470" } } }],
  });
}
