/**
 * The admin API's own OpenAPI 3.0.3 document (issue #17 § 5; docs/token-service.md § OpenAPI
 * documents), generated from the admin routes' zod schemas (admin_schemas.ts): the admin
 * credential as the security scheme of every operation, the token service's shared error answers
 * and `X-Request-Id` on every answer. Served at `GET /admin/v1/openapi.json` behind the admin
 * credential; `deno task openapi --service admin` prints it.
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { ApplicationList, ApplicationView } from "../../contract/mod.ts";
import {
  errorCatalogExtension,
  newDocument,
  nullableRefsFor30,
  OPENAPI_COPYRIGHT,
  OPENAPI_LICENSE,
  withRequestIdHeaders,
} from "../../contract/openapi/mod.ts";
import type {
  applicationView,
  approveApplication,
  ContractView,
  terminateContract,
} from "../contracts.ts";
import type { SigningKeyView } from "../signer.ts";
import type { Statement } from "../statement.ts";
import type { NoticeRecord, UsageRow } from "../store/mod.ts";
import type { createKeyFor, IntegratorView, KeyView, rotateKeyNow } from "./admin_keys.ts";
import {
  ApplicationApprove,
  ApplicationApproved,
  ContractList,
  ContractTerminated,
  ContractViewSchema,
  type IntegratorViewSchema,
  type KeyCreated,
  type KeyRotated,
  type KeyViewSchema,
  Note,
  Notice,
  NoticeList,
  SigningKeys,
  type SigningKeyViewSchema,
  StatementSchema,
  UsageList,
  type UsageRowSchema,
} from "./admin_schemas.ts";
import { CSV, format, id, json, month, pathKit } from "./admin_openapi_kit.ts";
import { registerIntegratorAndKeyPaths } from "./admin_openapi_keys.ts";

/**
 * The admin API's OpenAPI 3.0.3 document.
 * @param version the service version, stamped into `info.version`
 * @returns the document as a plain JSON object
 */
export function buildAdminOpenApi(version: string): Record<string, unknown> {
  const { app, r } = newDocument();
  r.registerComponent("securitySchemes", "AdminToken", {
    type: "http",
    scheme: "bearer",
    description:
      "`Authorization: Bearer <SVC_ADMIN_TOKEN>` (32+ characters), compared in constant time. " +
      "Integrator keys never open the admin API; without SVC_ADMIN_TOKEN every route answers 401.",
  });
  const kit = pathKit(r);
  const { e, base, path, body } = kit;

  registerIntegratorAndKeyPaths(kit);

  // Applications and contracts.
  r.registerPath({
    method: "get",
    path: path("/applications"),
    operationId: "listAllApplications",
    summary: "Applications for a contract, newest first",
    tags: ["contracts"],
    request: {
      query: z.object({
        status: z.enum(["pending", "approved", "rejected"]).optional(),
        integratorId: z.string().optional(),
      }),
    },
    responses: { 200: json(ApplicationList, "The applications"), 400: e.invalid, ...base },
  });
  r.registerPath({
    method: "post",
    path: path("/applications/{id}/approve"),
    operationId: "approveApplication",
    summary: "Approve a pending application: a contract starting now",
    description:
      "A contract in force is superseded; the integrator's live keys still valid lose their expiry and EIK limit.",
    tags: ["contracts"],
    request: { params: id("application"), ...body(ApplicationApprove, false) },
    responses: {
      201: json(ApplicationApproved, "The contract"),
      400: e.invalid,
      404: e.notFound,
      409: e.conflict,
      413: e.tooLarge,
      ...base,
    },
  });
  r.registerPath({
    method: "post",
    path: path("/applications/{id}/reject"),
    operationId: "rejectApplication",
    summary: "Reject a pending application (`note`, or `reason`, is shown to the integrator)",
    tags: ["contracts"],
    request: { params: id("application"), ...body(Note, false) },
    responses: {
      200: json(ApplicationView, "The application, rejected"),
      400: e.invalid,
      404: e.notFound,
      409: e.conflict,
      413: e.tooLarge,
      ...base,
    },
  });
  r.registerPath({
    method: "get",
    path: path("/contracts"),
    operationId: "listContracts",
    summary: "Contracts, with their status now",
    tags: ["contracts"],
    request: { query: z.object({ integratorId: z.string().optional() }) },
    responses: { 200: json(ContractList, "The contracts"), ...base },
  });
  r.registerPath({
    method: "get",
    path: path("/contracts/{id}"),
    operationId: "getContract",
    summary: "A contract",
    tags: ["contracts"],
    request: { params: id("contract") },
    responses: { 200: json(ContractViewSchema, "The contract"), 404: e.notFound, ...base },
  });
  r.registerPath({
    method: "post",
    path: path("/contracts/{id}/terminate"),
    operationId: "terminateContract",
    summary: "Terminate a contract in force now (`reason`, or `note`, goes into the notice)",
    description:
      "The integrator's live keys fall back to the pre-contract rules (7 days from now, 3 EIKs); the termination notice is enqueued.",
    tags: ["contracts"],
    request: { params: id("contract"), ...body(Note, false) },
    responses: {
      200: json(ContractTerminated, "The contract, terminated"),
      400: e.invalid,
      404: e.notFound,
      409: e.conflict,
      413: e.tooLarge,
      ...base,
    },
  });
  r.registerPath({
    method: "get",
    path: path("/contracts/{id}/statement"),
    operationId: "contractStatement",
    summary: "The monthly statement: tokens issued under the contract, per key, typeId and EIK",
    tags: ["billing"],
    request: { params: id("contract"), query: z.object({ month, format }) },
    responses: {
      200: {
        description: "The statement (JSON, or CSV with `format=csv`)",
        content: { "application/json": { schema: StatementSchema }, ...CSV },
      },
      400: e.invalid,
      404: e.notFound,
      ...base,
    },
  });

  // Usage and notices.
  r.registerPath({
    method: "get",
    path: path("/usage"),
    operationId: "usage",
    summary: "Usage counters: tokens issued per month, integrator, contract, key, typeId and EIK",
    tags: ["billing"],
    request: {
      query: z.object({
        month: month.optional(),
        integratorId: z.string().optional(),
        contractId: z.string().optional().meta({ description: '"" for tokens without a contract' }),
        keyId: z.string().optional(),
        format,
      }),
    },
    responses: {
      200: {
        description: "The counters and their total (JSON, or CSV with `format=csv`)",
        content: { "application/json": { schema: UsageList }, ...CSV },
      },
      400: e.invalid,
      ...base,
    },
  });
  r.registerPath({
    method: "get",
    path: path("/notices"),
    operationId: "listNotices",
    summary: "E-mail notices with their delivery status, attempts and last error",
    tags: ["notices"],
    request: {
      query: z.object({
        kind: Notice.shape.kind.optional(),
        subjectId: z.string().optional().meta({ description: "A key's or a contract's id" }),
      }),
    },
    responses: { 200: json(NoticeList, "The notices"), ...base },
  });

  // Signing keys.
  const signing = (
    method: "get" | "post",
    p: string,
    operationId: string,
    summary: string,
    status: 200 | 201,
    extra: Record<number, { $ref: string }> = {},
  ) =>
    r.registerPath({
      method,
      path: path(p),
      operationId,
      summary,
      tags: ["signing-keys"],
      responses: {
        [status]: json(SigningKeys, "How each signing key is stored (never key material)"),
        ...extra,
        ...base,
      },
    });
  signing("get", "/signing-keys", "listSigningKeys", "How each signing key is stored", 200);
  signing(
    "post",
    "/signing-keys/rotate",
    "rotateSigningKey",
    "A new signing key; the previous one stays in the JWKS until retired",
    201,
  );
  signing(
    "post",
    "/signing-keys/encrypt",
    "encryptSigningKeys",
    "Re-encrypt every signing key with the current SVC_SIGNING_KEY_SECRET",
    200,
    { 409: e.conflict },
  );

  r.registerPath({
    method: "get",
    path: path("/openapi.json"),
    operationId: "adminOpenApiDocument",
    summary: "This document",
    tags: ["document"],
    responses: {
      200: json(z.record(z.string(), z.unknown()), "The OpenAPI 3.0.3 document"),
      401: e.unauthorized,
      500: e.internal,
    },
  });

  const doc = app.getOpenAPIDocument({
    openapi: "3.0.3",
    info: {
      title: "Token service admin API",
      version,
      description:
        "The operators' API of the token service: integrators, keys, applications, contracts, statements, usage, notices and signing keys. Every route needs the admin credential. Errors: `{error, errorCode, errorKind, details?, requestId}`; every answer carries `X-Request-Id`. " +
        OPENAPI_COPYRIGHT,
      license: OPENAPI_LICENSE,
    },
    // Served by the service it describes: its paths are relative to it.
    servers: [{ url: "/", description: "This token service" }],
    security: [{ AdminToken: [] }],
    tags: [
      { name: "integrators", description: "Integrators (phase 1: the first keys)" },
      { name: "keys", description: "Integrators' API keys: secrets, rotation, EIKs, origins" },
      { name: "contracts", description: "Applications for a contract and contracts (phases 2–3)" },
      { name: "billing", description: "Monthly statements and usage counters" },
      { name: "notices", description: "E-mail notices to integrators" },
      { name: "signing-keys", description: "The keys tokens are signed with, at rest" },
      { name: "document", description: "This OpenAPI document" },
    ],
  }) as unknown as Record<string, unknown>;
  return {
    ...withRequestIdHeaders(nullableRefsFor30(doc) as Record<string, unknown>),
    "x-error-catalog": errorCatalogExtension(),
  };
}

/**
 * The route `GET /openapi.json` (mount at `/admin/v1`, behind the admin credential): the
 * document, built on the first request.
 * @param version the service version
 * @returns a Hono app
 */
export function adminOpenApiRoutes(version: string): Hono {
  const r = new Hono();
  let doc: Record<string, unknown> | null = null;
  r.get("/openapi.json", (c) => c.json(doc ??= buildAdminOpenApi(version)));
  return r;
}

// Compile-time: each answer schema describes exactly what its route returns.
type DeepReadonly<T> = T extends readonly (infer U)[] ? readonly DeepReadonly<U>[]
  : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
  : T;
type Same<A, B> = [DeepReadonly<A>] extends [DeepReadonly<B>]
  ? [DeepReadonly<B>] extends [DeepReadonly<A>] ? true : false
  : false;
type Answer<F extends (...a: never[]) => unknown> = Awaited<ReturnType<F>>;
const _answersMatchTheirSchemas: [
  Same<z.output<typeof IntegratorViewSchema>, IntegratorView>,
  Same<z.output<typeof KeyViewSchema>, KeyView>,
  Same<z.output<typeof ContractViewSchema>, ContractView>,
  Same<z.output<typeof ApplicationView>, ReturnType<typeof applicationView>>,
  Same<z.output<typeof KeyCreated>, Answer<typeof createKeyFor>>,
  Same<z.output<typeof KeyRotated>, Answer<typeof rotateKeyNow>>,
  Same<z.output<typeof ApplicationApproved>, Answer<typeof approveApplication>>,
  Same<z.output<typeof ContractTerminated>, Answer<typeof terminateContract>>,
  Same<z.output<typeof StatementSchema>, Statement>,
  Same<z.output<typeof UsageRowSchema>, UsageRow>,
  Same<z.output<typeof Notice>, NoticeRecord>,
  Same<z.output<typeof SigningKeyViewSchema>, SigningKeyView>,
] = [true, true, true, true, true, true, true, true, true, true, true, true];
