/**
 * Builds the OpenAPI 3.0.3 documents from the contract (never written by hand): the agent's
 * (served at `/api/v1/openapi.json`, interface-spec.md § Versioning) and the token service's.
 * @module
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import {
  AgentError,
  AgentFailure,
  AgentUpdateRequired,
  AgentVersionResponse,
  AllowedOriginsResponse,
  ApplicationList,
  ApplicationSubmit,
  ApplicationView,
  ErrorCodeSchema,
  ErrorKindSchema,
  HealthResponse,
  Jwks,
  PickResponse,
  SendersResponse,
  TokenHealthResponse,
  TokenIssueRequest,
  TokenIssueResponse,
  TokenServiceError,
} from "../api.ts";
import { ERROR_CATALOG } from "../errors.ts";
import { OPERATIONS } from "../operations.ts";

const json = (schema: z.ZodTypeAny, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const HEADER_DOCS = [
  { name: "X-Svc-Sender-Id", description: "A sender id from GET /api/senders" },
  {
    name: "X-Svc-File-Path",
    description: "Absolute path of a file or folder for operations with local input",
  },
  {
    name: "X-Svc-Batch-Id",
    description: "GUID generated once per user action; requests sharing it are confirmed once",
  },
  {
    name: "Idempotency-Key",
    description: "Submissions: a retried request with the same key returns the first answer",
  },
] as const;

/**
 * The error catalog as the documents' `x-error-catalog` extension: code → kind, status, meaning.
 * @returns the extension's value
 */
export function errorCatalogExtension(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(ERROR_CATALOG).map(([code, s]) => [code, {
      kind: s.kind,
      status: s.status,
      description: s.description,
    }]),
  );
}

/** The OpenAPI 3.0 schema that admits `null` only (`nullable` needs a sibling `type`). */
const NULL_ONLY = { type: "object", nullable: true, enum: [null] } as const;

/**
 * Express zod's nullable references the way OpenAPI 3.0.3 and its generators read them.
 * zod-to-openapi writes `.nullable()` of a `$ref` as `allOf: [{$ref}, {nullable: true}]` and
 * `z.unknown()` as `{nullable: true}`; OpenAPI 3.0.3 ignores `nullable` without a sibling `type`
 * (and `allOf` of a non-nullable `$ref` rejects null anyway), so generators typed such a field as
 * never null. Rewritten as `oneOf: [{$ref}, {type: "object", nullable: true, enum: [null]}]`
 * (openapi-typescript: `X | null`; JSON Schema validators: the object or null), `z.unknown()` as
 * `{}` (any value, null included), and the null member of a union (`anyOf`/`oneOf` item
 * `{nullable: true}`) as that null-only schema.
 * @param v a document or any part of one
 * @returns the rewritten copy
 */
export function nullableRefsFor30(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(nullableRefsFor30);
  if (v === null || typeof v !== "object") return v;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1 && o.nullable === true) return {};
  const lone = (x: unknown) =>
    typeof x === "object" && x !== null && Object.keys(x).length === 1 &&
    (x as Record<string, unknown>).nullable === true;
  if (Array.isArray(o.allOf) && o.allOf.some(lone)) {
    const { allOf, ...others } = o;
    const rest = (allOf as unknown[]).filter((x) => !lone(x)).map(nullableRefsFor30);
    const value = rest.length === 1 ? rest[0] : { allOf: rest };
    return { ...mapValues(others), oneOf: [value, NULL_ONLY] };
  }
  for (const k of ["anyOf", "oneOf"] as const) {
    const list = o[k];
    if (Array.isArray(list) && list.some(lone)) {
      // A union with z.null(): its null member is the schema that admits null only.
      return mapValues({ ...o, [k]: list.map((x) => lone(x) ? NULL_ONLY : x) });
    }
  }
  return mapValues(o);
}

const mapValues = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).map(([k, x]) => [k, nullableRefsFor30(x)]));

/** `info.license` of every document (the repository's LICENSE). */
export const OPENAPI_LICENSE = { name: "MIT", url: "https://opensource.org/license/mit" } as const;

/** How every document credits its authors (`info.description` ends with it). */
export const OPENAPI_COPYRIGHT = "© svc-filing authors, MIT licence.";

/** The `X-Request-Id` response header, by reference. */
export const REQUEST_ID_HEADER = { $ref: "#/components/headers/X-Request-Id" } as const;

/** The `Retry-After` response header, by reference. */
export const RETRY_AFTER_HEADER = { $ref: "#/components/headers/Retry-After" } as const;

/** `components.headers` shared by the documents: `X-Request-Id` (`Retry-After` comes with the
 * first response that uses it, so that a document without one has no unused component). */
function registerHeaders(r: OpenAPIHono["openAPIRegistry"], requestId: string): void {
  r.registerComponent("headers", "X-Request-Id", {
    description: requestId,
    schema: { type: "string" },
  });
}

function registerRetryAfter(r: OpenAPIHono["openAPIRegistry"]): void {
  const known = r.definitions.some((d) =>
    d.type === "component" && d.componentType === "headers" && d.name === "Retry-After"
  );
  if (known) return;
  r.registerComponent("headers", "Retry-After", {
    description: "Seconds to wait before trying again",
    schema: { type: "integer", minimum: 0 },
  });
}

/**
 * Add the `X-Request-Id` header to every response of every operation that does not declare it
 * (responses given by `$ref` carry it in `components.responses`).
 * @param doc a generated document (changed in place)
 * @returns the document
 */
export function withRequestIdHeaders(doc: Record<string, unknown>): Record<string, unknown> {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, unknown>>;
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      const responses = (op as { responses?: Record<string, Record<string, unknown>> }).responses;
      for (const res of Object.values(responses ?? {})) {
        if ("$ref" in res) continue;
        res.headers = { "X-Request-Id": REQUEST_ID_HEADER, ...(res.headers as object ?? {}) };
      }
    }
  }
  return doc;
}

/**
 * A reusable error response (`components.responses`), with `X-Request-Id` (and `Retry-After`).
 * @param r the registry
 * @param name the component's name
 * @param schema the error body's component name
 * @param description what it means (its error codes)
 * @param retryAfter whether `Retry-After` comes with it
 * @returns a reference to it
 */
export function errorResponseComponent(
  r: OpenAPIHono["openAPIRegistry"],
  name: string,
  schema: string,
  description: string,
  retryAfter = false,
): { $ref: string } {
  if (retryAfter) registerRetryAfter(r);
  r.registerComponent("responses", name, {
    description,
    headers: {
      "X-Request-Id": REQUEST_ID_HEADER,
      ...(retryAfter ? { "Retry-After": RETRY_AFTER_HEADER } : {}),
    },
    content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } },
  });
  return { $ref: `#/components/responses/${name}` };
}

/**
 * The token service's reusable error answers (`components.responses`), each a
 * `TokenServiceError` with `X-Request-Id`. Shared by the public and the admin document; each
 * component is registered when first used, so that neither document carries one it never uses.
 * @param r the registry
 * @returns references by meaning
 */
export function tokenErrorResponses(r: OpenAPIHono["openAPIRegistry"]) {
  registerHeaders(
    r,
    "The service's id of this request; an error body repeats it as `requestId`",
  );
  const body = "TokenServiceError";
  r.register("TokenServiceError", TokenServiceError.clone());
  const made = new Map<string, { $ref: string }>();
  const once = (name: string, description: string, retryAfter = false) => {
    let ref = made.get(name);
    if (!ref) {
      ref = errorResponseComponent(r, name, body, description, retryAfter);
      made.set(name, ref);
    }
    return ref;
  };
  return {
    get invalid() {
      return once("Invalid", "VALIDATION_FAILED or INVALID_JSON (`details.field`)");
    },
    get unauthorized() {
      return once("Unauthorized", "The key or credential is missing, invalid, expired or revoked");
    },
    get notFound() {
      return once("NotFound", "NOT_FOUND or UPDATE_NOT_PUBLISHED");
    },
    get conflict() {
      return once("Conflict", "CONFLICT: the resource is not in a state that allows this change");
    },
    get tooLarge() {
      return once("BodyTooLarge", "BODY_TOO_LARGE");
    },
    get rateLimited() {
      return once(
        "RateLimited",
        "RATE_LIMITED: over a key's or integrator's budget; retry after `Retry-After` seconds",
        true,
      );
    },
    get internal() {
      return once("InternalError", "SERVICE_INTERNAL_ERROR (a bug; quote the requestId)");
    },
    get unavailable() {
      return once(
        "DatabaseUnavailable",
        "DATABASE_UNAVAILABLE: the service's database cannot be reached; retry after `Retry-After` seconds",
        true,
      );
    },
  };
}

/**
 * A registry with the error enums every document shares.
 * @returns the Hono app holding the registry, and the registry
 */
export function newDocument(): { app: OpenAPIHono; r: OpenAPIHono["openAPIRegistry"] } {
  const app = new OpenAPIHono();
  const r = app.openAPIRegistry;
  // The contract's schemas carry zod's own `.meta({ id })` (so the agent runs without
  // zod-to-openapi); `register` needs the `.openapi` method, which zod copies onto instances made
  // after @hono/zod-openapi loaded, hence a clone.
  r.register("ErrorCode", ErrorCodeSchema.clone());
  r.register("ErrorKind", ErrorKindSchema.clone());
  return { app, r };
}

/**
 * The agent's OpenAPI 3.0.3 document.
 * @param version the agent version, stamped into `info.version`
 * @param serverUrl optional `servers[0].url` (the agent's base URL)
 * @returns the document as a plain JSON object
 */
export function buildAgentOpenApi(version: string, serverUrl?: string): Record<string, unknown> {
  const { app, r } = newDocument();
  r.registerComponent("securitySchemes", "OperationToken", {
    type: "http",
    scheme: "bearer",
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
        body: { required: true, content: { "application/json": { schema: o.request } } },
      },
      responses: {
        200: json(o.result, "The operation's result (metadata.errorCode = NO_DATA when empty)"),
        401: json(
          AgentFailure,
          "Token missing, invalid, expired, replayed or for another typeId/EIK",
        ),
        403: forbidden,
        413: tooLarge,
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
  const doc = app.getOpenAPIDocument({
    openapi: "3.0.3",
    info: {
      title: "Local filing agent",
      version,
      description:
        "Files Bulgarian NRA declarations and reads tax reports with the sender's QES. Errors: 502 `{error, errorCode, errorKind, requestId}`; see components.schemas.ErrorCode. Every answer carries `X-Request-Id`. " +
        OPENAPI_COPYRIGHT,
      license: OPENAPI_LICENSE,
    },
    servers: serverUrl
      ? [{ url: serverUrl }]
      : [{ url: "http://127.0.0.1:{port}", variables: { port: { default: "17470" } } }],
  }) as unknown as Record<string, unknown>;
  return {
    ...withRequestIdHeaders(nullableRefsFor30(doc) as Record<string, unknown>),
    "x-error-catalog": errorCatalogExtension(),
  };
}

/**
 * The token service's OpenAPI 3.0.3 document.
 * @param version the service version
 * @returns the document
 */
export function buildTokenOpenApi(version: string): Record<string, unknown> {
  const { app, r } = newDocument();
  r.registerComponent("securitySchemes", "ApiKey", {
    type: "http",
    scheme: "bearer",
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
    request: {
      body: { required: true, content: { "application/json": { schema: TokenIssueRequest } } },
    },
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
    request: {
      body: { required: true, content: { "application/json": { schema: ApplicationSubmit } } },
    },
    responses: {
      201: json(ApplicationView, "The application, pending"),
      400: e.invalid,
      401: e.unauthorized,
      409: e.conflict,
      413: e.tooLarge,
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
  const doc = app.getOpenAPIDocument({
    openapi: "3.0.3",
    info: {
      title: "Token service",
      version,
      description: OPENAPI_COPYRIGHT,
      license: OPENAPI_LICENSE,
    },
    // The document is served by the service it describes: its paths are relative to it.
    servers: [{ url: "/", description: "This token service" }],
    tags: [
      { name: "tokens", description: "Token issuance (server side, with the secret key)" },
      { name: "contracts", description: "The integrator's application for a contract" },
      { name: "public", description: "Open: keys, origins and versions agents read; health" },
    ],
  }) as unknown as Record<string, unknown>;
  return {
    ...withRequestIdHeaders(nullableRefsFor30(doc) as Record<string, unknown>),
    "x-error-catalog": errorCatalogExtension(),
  };
}
