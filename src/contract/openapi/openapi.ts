/**
 * What every OpenAPI 3.0.3 document of the product shares (agent_document.ts,
 * token_document.ts, the admin API's): the registry with the error enums, the error responses,
 * the X-Request-Id / Retry-After headers, the error catalog extension, the licence, and the
 * rewriting of nullable references for OpenAPI 3.0.
 * @module
 */
import { OpenAPIHono, type z } from "@hono/zod-openapi";
import { ErrorCodeSchema, ErrorKindSchema, TokenServiceError } from "../api.ts";
import { ERROR_CATALOG, ERROR_CODES, type ErrorSpec } from "../errors.ts";

/** A JSON answer of a zod schema, with its description (an OpenAPI response object). */
export const json = (schema: z.ZodTypeAny, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** The request headers of the agent's operations, with their descriptions. */
export const HEADER_DOCS = [
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
 * The error catalog as the documents' `x-error-catalog` extension: code → kind, status, meaning
 * (the codes an API answers with; a journal-only code is not one).
 * @returns the extension's value
 */
export function errorCatalogExtension(): Record<string, unknown> {
  return Object.fromEntries(
    ERROR_CODES.map((code) => {
      const s: ErrorSpec = ERROR_CATALOG[code];
      return [code, { kind: s.kind, status: s.status, description: s.description }];
    }),
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
export function registerHeaders(r: OpenAPIHono["openAPIRegistry"], requestId: string): void {
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

/** The token service's error answers by meaning: [component name, description, Retry-After]. */
const TOKEN_ERRORS = {
  invalid: ["Invalid", "VALIDATION_FAILED or INVALID_JSON (`details.field`)"],
  unauthorized: ["Unauthorized", "The key or credential is missing, invalid, expired or revoked"],
  notFound: ["NotFound", "NOT_FOUND or UPDATE_NOT_PUBLISHED"],
  conflict: ["Conflict", "CONFLICT: the resource is not in a state that allows this change"],
  tooLarge: ["BodyTooLarge", "BODY_TOO_LARGE"],
  unsupportedMediaType: [
    "UnsupportedMediaType",
    "UNSUPPORTED_MEDIA_TYPE: the body was not sent as `Content-Type: application/json` (with or without `charset=utf-8`)",
  ],
  rateLimited: [
    "RateLimited",
    "RATE_LIMITED: over a key's or integrator's budget; retry after `Retry-After` seconds",
    true,
  ],
  internal: ["InternalError", "SERVICE_INTERNAL_ERROR (a bug; quote the requestId)"],
  unavailable: [
    "DatabaseUnavailable",
    "DATABASE_UNAVAILABLE: the service's database cannot be reached; retry after `Retry-After` seconds",
    true,
  ],
} as const satisfies Record<string, readonly [string, string, boolean?]>;

/**
 * The token service's reusable error answers (`components.responses`), each a
 * `TokenServiceError` with `X-Request-Id`. Shared by the public and the admin document; each
 * component is registered when first used, so that neither document carries one it never uses.
 * @param r the registry
 * @returns references by meaning
 */
export function tokenErrorResponses(
  r: OpenAPIHono["openAPIRegistry"],
): { readonly [K in keyof typeof TOKEN_ERRORS]: { $ref: string } } {
  registerHeaders(
    r,
    "The service's id of this request; an error body repeats it as `requestId`",
  );
  const body = "TokenServiceError";
  r.register("TokenServiceError", TokenServiceError.clone());
  const refs = {} as { [K in keyof typeof TOKEN_ERRORS]: { $ref: string } };
  for (const [meaning, [name, description, retryAfter]] of Object.entries(TOKEN_ERRORS)) {
    let ref: { $ref: string } | undefined;
    Object.defineProperty(refs, meaning, {
      enumerable: true,
      get: () => ref ??= errorResponseComponent(r, name, body, description, retryAfter),
    });
  }
  return refs;
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
 * Register a bearer credential as a security scheme (`components.securitySchemes`).
 * @param r the registry
 * @param name the scheme's name, as the documents' `security` say it
 * @param scheme its description (and the format of the bearer, e.g. `JWT`)
 */
export function registerBearer(
  r: OpenAPIHono["openAPIRegistry"],
  name: string,
  scheme: { bearerFormat?: string; description: string },
): void {
  r.registerComponent("securitySchemes", name, { type: "http", scheme: "bearer", ...scheme });
}

/**
 * A request's JSON body (the `request` of a route, or part of it).
 * @param schema the body's schema
 * @param required whether the body must be sent
 * @returns `{ body }`
 */
export const jsonBody = (schema: z.ZodTypeAny, required: boolean) => ({
  body: { required, content: { "application/json": { schema } } },
});

/**
 * The finished document: generated from the registry as OpenAPI 3.0.3, its `info` crediting
 * the authors (OPENAPI_COPYRIGHT ends the description) under OPENAPI_LICENSE, nullable
 * references rewritten for OpenAPI 3.0, `X-Request-Id` on every answer and the error catalog
 * as `x-error-catalog`.
 * @param app the Hono app holding the registry (see {@link newDocument})
 * @param config the document's `info` (title, version and description), `servers` and so on
 * @returns the document as a plain JSON object
 */
export function finishDocument(
  app: OpenAPIHono,
  { info, ...config }: Omit<DocumentConfig, "openapi" | "info"> & {
    info: { title: string; version: string; description?: string };
  },
): Record<string, unknown> {
  const description = info.description === undefined
    ? OPENAPI_COPYRIGHT
    : `${info.description} ${OPENAPI_COPYRIGHT}`;
  const doc = app.getOpenAPIDocument({
    openapi: "3.0.3",
    info: { ...info, description, license: OPENAPI_LICENSE },
    ...config,
  }) as unknown as Record<string, unknown>;
  return {
    ...withRequestIdHeaders(nullableRefsFor30(doc) as Record<string, unknown>),
    "x-error-catalog": errorCatalogExtension(),
  };
}

type DocumentConfig = Parameters<OpenAPIHono["getOpenAPIDocument"]>[0];
