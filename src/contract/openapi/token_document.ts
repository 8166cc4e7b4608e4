/**
 * The token service's public OpenAPI 3.0.3 document (`/api/v1/openapi.json` of the service),
 * built from the contract.
 * @module
 */
import { z } from "@hono/zod-openapi";
import {
  AgentVersionResponse,
  AllowedOriginsResponse,
  ApplicationList,
  ApplicationSubmit,
  ApplicationView,
  Jwks,
  TokenHealthResponse,
  TokenIssueRequest,
  TokenIssueResponse,
  TokenServiceError,
} from "../api.ts";
import {
  finishDocument,
  json,
  jsonBody,
  newDocument,
  registerBearer,
  tokenErrorResponses,
} from "./openapi.ts";

/**
 * The token service's OpenAPI 3.0.3 document.
 * @param version the service version
 * @returns the document
 */
export function buildTokenOpenApi(version: string): Record<string, unknown> {
  const { app, r } = newDocument();
  registerBearer(r, "ApiKey", {
    description: "The integrator's secret key, svc_test_… or svc_live_…; server side only",
  });
  const e = tokenErrorResponses(r);
  r.registerPath({
    method: "post",
    path: "/api/v1/tokens/issue",
    operationId: "issueToken",
    summary: "Exchange the secret key for a 5-second JWT bound to one typeId and its EIK(s)",
    tags: ["tokens"],
    security: [{ ApiKey: [] }],
    request: jsonBody(TokenIssueRequest, true),
    responses: {
      200: json(TokenIssueResponse, "The token"),
      400: json(TokenServiceError, "eik/eiks missing, unknown typeId, invalid body"),
      401: json(TokenServiceError, "Secret key invalid, expired or revoked"),
      402: json(TokenServiceError, "The key's company limit is used up"),
      403: json(
        TokenServiceError,
        "An EIK is not on the key's allowed list (rejectedEiks), or the origin is not allowed",
      ),
      413: e.tooLarge,
      415: e.unsupportedMediaType,
      429: e.rateLimited,
      500: e.internal,
      503: e.unavailable,
    },
  });
  r.registerPath({
    method: "post",
    path: "/api/v1/applications",
    operationId: "submitApplication",
    summary: "Apply for a contract (phase 2) with the integrator's own key",
    tags: ["contracts"],
    security: [{ ApiKey: [] }],
    request: jsonBody(ApplicationSubmit, true),
    responses: {
      201: json(ApplicationView, "The application, pending"),
      400: e.invalid,
      401: e.unauthorized,
      409: e.conflict,
      413: e.tooLarge,
      415: e.unsupportedMediaType,
      429: e.rateLimited,
      500: e.internal,
      503: e.unavailable,
    },
  });
  r.registerPath({
    method: "get",
    path: "/api/v1/applications",
    operationId: "listApplications",
    summary: "The integrator's own applications",
    tags: ["contracts"],
    security: [{ ApiKey: [] }],
    responses: {
      200: json(ApplicationList, "Applications, newest first"),
      401: e.unauthorized,
      429: e.rateLimited,
      500: e.internal,
      503: e.unavailable,
    },
  });
  const open = (
    path: string,
    operationId: string,
    summary: string,
    ok: ReturnType<typeof json> | Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) =>
    r.registerPath({
      method: "get",
      path,
      operationId,
      summary,
      tags: ["public"],
      security: [],
      responses: { 200: ok as ReturnType<typeof json>, ...extra, 500: e.internal },
    });
  open(
    "/.well-known/jwks.json",
    "jwks",
    "The public keys (EdDSA, RFC 7517) agents verify tokens with; cached 60 s",
    json(Jwks, "The key set"),
  );
  open(
    "/api/v1/allowed-origins",
    "allowedOrigins",
    "Every page origin integrators registered: the agents' CORS allow-list; cached 30 s",
    json(AllowedOriginsResponse, "The origins"),
    { 503: e.unavailable },
  );
  open(
    "/api/v1/agent-version",
    "agentVersion",
    "The oldest agent version tokens accept and the newest released; cached 60 s",
    json(AgentVersionResponse, "The versions"),
  );
  open(
    "/api/v1/agent-update",
    "agentUpdate",
    "The signed agent update manifest as published (a compact JWS agents verify with their built-in keys)",
    {
      description: "The manifest",
      content: { "application/jose": { schema: { type: "string" } } },
    },
    { 404: e.notFound },
  );
  open(
    "/health",
    "health",
    "Liveness and version; open, cheap, no secrets",
    json(TokenHealthResponse, "The service is running"),
  );
  open(
    "/ready",
    "ready",
    "Readiness for a load balancer: the database answers and its migrations are current (docs/token-service.md § Operations)",
    json(
      z.object({ status: z.literal("ready"), schemaVersion: z.number().int() }),
      "Ready to serve",
    ),
    { 503: json(TokenServiceError, "SERVICE_NOT_READY; `details.reason` says why") },
  );
  open(
    "/api/v1/openapi.json",
    "openApiDocument",
    "This document",
    json(z.record(z.string(), z.unknown()), "The OpenAPI 3.0.3 document"),
  );
  return finishDocument(app, {
    info: {
      title: "Token service",
      version,
    },
    // The document is served by the service it describes: its paths are relative to it.
    servers: [{ url: "/", description: "This token service" }],
    tags: [
      { name: "tokens", description: "Token issuance (server side, with the secret key)" },
      { name: "contracts", description: "The integrator's application for a contract" },
      { name: "public", description: "Open: keys, origins and versions agents read; health" },
    ],
  });
}
