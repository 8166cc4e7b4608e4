/**
 * The admin API's own OpenAPI 3.0.3 document (docs/token-service.md § OpenAPI
 * documents), generated from the admin routes' zod schemas (admin_schemas.ts): the admin
 * credential as the security scheme of every operation, the token service's shared error answers
 * and `X-Request-Id` on every answer. Served at `GET /admin/v1/openapi.json` behind the admin
 * credential; `deno task openapi --service admin` prints it.
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { ApplicationList, ApplicationView } from "../../contract/mod.ts";
import { finishDocument, newDocument, registerBearer } from "../../contract/openapi/mod.ts";
import type {
  applicationView,
  approveApplication,
  ContractView,
  Statement,
  terminateContract,
} from "../contracts/mod.ts";
import type { SigningKeyView } from "../issuance/mod.ts";
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
import { format, id, json, jsonOrCsv, month, pathKit } from "./admin_openapi_kit.ts";
import { registerIntegratorAndKeyPaths } from "./admin_openapi_keys.ts";

/**
 * The admin API's OpenAPI 3.0.3 document.
 * @param version the service version, stamped into `info.version`
 * @returns the document as a plain JSON object
 */
export function buildAdminOpenApi(version: string): Record<string, unknown> {
  const { app, r } = newDocument();
  registerBearer(r, "AdminToken", {
    description:
      "`Authorization: Bearer <SVC_ADMIN_TOKEN>` (32+ characters), compared in constant time. " +
      "Integrator keys never open the admin API; without SVC_ADMIN_TOKEN every route answers 401.",
  });
  const kit = pathKit(r);
  const { e, path, body, routes } = kit;

  registerIntegratorAndKeyPaths(kit);

  const application = { params: id("application") };
  const contract = { params: id("contract") };
  const applications = z.object({
    status: z.enum(["pending", "approved", "rejected"]).optional(),
    integratorId: z.string().optional(),
  });
  // deno-fmt-ignore
  routes("contracts", [
    ["get", "/applications", "listAllApplications", "Applications for a contract, newest first", { query: applications }, [200, json(ApplicationList, "The applications")], ["invalid"]],
    ["post", "/applications/{id}/approve", "approveApplication", "Approve a pending application: a contract starting now", { ...application, ...body(ApplicationApprove, false) }, [201, json(ApplicationApproved, "The contract")], ["invalid", "notFound", "conflict", "tooLarge"],
      "A contract in force is superseded; the integrator's live keys still valid lose their expiry and EIK limit."],
    ["post", "/applications/{id}/reject", "rejectApplication", "Reject a pending application (`note`, or `reason`, is shown to the integrator)", { ...application, ...body(Note, false) }, [200, json(ApplicationView, "The application, rejected")], ["invalid", "notFound", "conflict", "tooLarge"]],
    ["get", "/contracts", "listContracts", "Contracts, with their status now", { query: z.object({ integratorId: z.string().optional() }) }, [200, json(ContractList, "The contracts")], []],
    ["get", "/contracts/{id}", "getContract", "A contract", contract, [200, json(ContractViewSchema, "The contract")], ["notFound"]],
    ["post", "/contracts/{id}/terminate", "terminateContract", "Terminate a contract in force now (`reason`, or `note`, goes into the notice)", { ...contract, ...body(Note, false) }, [200, json(ContractTerminated, "The contract, terminated")], ["invalid", "notFound", "conflict", "tooLarge"],
      "The integrator's live keys fall back to the pre-contract rules (7 days from now, 3 EIKs); the termination notice is enqueued."],
  ]);

  const usage = z.object({
    month: month.optional(),
    integratorId: z.string().optional(),
    contractId: z.string().optional().meta({ description: '"" for tokens without a contract' }),
    keyId: z.string().optional(),
    format,
  });
  // deno-fmt-ignore
  routes("billing", [
    ["get", "/contracts/{id}/statement", "contractStatement", "The monthly statement: tokens issued under the contract, per key, typeId and EIK", { ...contract, query: z.object({ month, format }) }, [200, jsonOrCsv(StatementSchema, "The statement (JSON, or CSV with `format=csv`)")], ["invalid", "notFound"]],
    ["get", "/usage", "usage", "Usage counters: tokens issued per month, integrator, contract, key, typeId and EIK", { query: usage }, [200, jsonOrCsv(UsageList, "The counters and their total (JSON, or CSV with `format=csv`)")], ["invalid"]],
  ]);

  const notices = z.object({
    kind: Notice.shape.kind.optional(),
    subjectId: z.string().optional().meta({ description: "A key's or a contract's id" }),
  });
  // deno-fmt-ignore
  routes("notices", [
    ["get", "/notices", "listNotices", "E-mail notices with their delivery status, attempts and last error", { query: notices }, [200, json(NoticeList, "The notices")], []],
  ]);

  const stored = (status: 200 | 201) =>
    [status, json(SigningKeys, "How each signing key is stored (never key material)")] as const;
  // deno-fmt-ignore
  routes("signing-keys", [
    ["get", "/signing-keys", "listSigningKeys", "How each signing key is stored", null, stored(200), []],
    ["post", "/signing-keys/rotate", "rotateSigningKey", "A new signing key; the previous one stays in the JWKS until retired", null, stored(201), []],
    ["post", "/signing-keys/encrypt", "encryptSigningKeys", "Re-encrypt every signing key with the current SVC_SIGNING_KEY_SECRET", null, stored(200), ["conflict"]],
  ]);

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

  return finishDocument(app, {
    info: {
      title: "Token service admin API",
      version,
      description:
        "The operators' API of the token service: integrators, keys, applications, contracts, statements, usage, notices and signing keys. Every route needs the admin credential. Errors: `{error, errorCode, errorKind, details?, requestId}`; every answer carries `X-Request-Id`.",
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
  });
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
