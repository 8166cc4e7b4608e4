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
  // Functions, not objects: an error response is registered as a component when first read,
  // and the components keep that order in the document.
  /** What every keyed route may answer besides its own: rate limit, failure, database down. */
  const busy = () => ({ 429: e.rateLimited, 500: e.internal, 503: e.unavailable });
  /** … and a route with a JSON body: too large, not JSON, then the above. */
  const withBody = () => ({ 413: e.tooLarge, 415: e.unsupportedMediaType, ...busy() });
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
      ...withBody(),
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
      ...withBody(),
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
      ...busy(),
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
  webPasskeyPaths(r, e);
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
      {
        name: "web",
        description:
          "The JSON routes of the profile (/profile) and the desk (/admin) pages: passkey ceremonies (docs/token-service.md § The profile); the pages themselves are HTML",
      },
    ],
  });
}

/** A WebAuthn options or credential object, as `@simplewebauthn` writes and reads it. */
const WebAuthnJson = z.record(z.string(), z.unknown()).meta({
  id: "WebAuthnJSON",
  description:
    "PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON (answers) or the browser's RegistrationResponseJSON / AuthenticationResponseJSON (bodies), as in the WebAuthn Level 3 JSON serialisation",
});

/** A failed page request's JSON answer. */
const WebError = z.object({
  error: z.string(),
  errorCode: z.string(),
  requestId: z.string().optional(),
}).meta({ id: "WebError" });

/** The passkey ceremonies of the profile and the desk (their pages' JSON routes). */
function webPasskeyPaths(
  r: Parameters<typeof registerBearer>[0],
  e: ReturnType<typeof tokenErrorResponses>,
): void {
  r.registerComponent("securitySchemes", "WebSession", {
    type: "apiKey",
    in: "cookie",
    name: "svc_profile",
    description:
      "The page's session cookie (svc_profile for /profile, svc_desk for /admin), with the session's CSRF token in X-CSRF-Token; same-origin requests only",
  });
  const err = (d: string) => json(WebError, d);
  for (const [base, who] of [["/profile", "integrator"], ["/admin", "administrator"]] as const) {
    const id = base === "/profile" ? "Profile" : "Desk";
    r.registerPath({
      method: "post",
      path: `${base}/passkeys/options`,
      operationId: `passkeyRegistrationOptions${id}`,
      summary: `Options to register a passkey for the signed-in ${who} (challenge kept 5 minutes)`,
      tags: ["web"],
      security: [{ WebSession: [] }],
      responses: {
        200: json(WebAuthnJson, "Creation options"),
        403: err("No session, CSRF or cross-site"),
      },
    });
    r.registerPath({
      method: "post",
      path: `${base}/passkeys`,
      operationId: `passkeyRegister${id}`,
      summary: `Register the passkey the browser created (its public key is stored)`,
      tags: ["web"],
      security: [{ WebSession: [] }],
      request: jsonBody(WebAuthnJson, true),
      responses: {
        201: json(z.object({ ok: z.literal(true) }), "Registered"),
        400: err("The passkey was not accepted"),
        403: err("No session, CSRF or cross-site"),
        409: err("Registered already"),
      },
    });
    r.registerPath({
      method: "post",
      path: `${base}/passkey/options`,
      operationId: `passkeySignInOptions${id}`,
      summary:
        `Options to sign in with a passkey (discoverable credentials; rate-limited per address)`,
      tags: ["web"],
      security: [],
      responses: {
        200: json(WebAuthnJson, "Request options"),
        403: err("Cross-site"),
        429: e.rateLimited,
      },
    });
    r.registerPath({
      method: "post",
      path: `${base}/passkey/verify`,
      operationId: `passkeySignIn${id}`,
      summary: `Sign in with the passkey's assertion: sets a new session cookie`,
      tags: ["web"],
      security: [],
      request: jsonBody(WebAuthnJson, true),
      responses: {
        200: json(z.object({ ok: z.literal(true), redirect: z.string() }), "Signed in"),
        400: err("The passkey was not accepted"),
        403: err("Cross-site"),
        429: e.rateLimited,
      },
    });
  }
}
