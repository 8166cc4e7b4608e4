/**
 * The integrators' and keys' routes of the admin API's OpenAPI document.
 * @module
 */
import { z } from "zod";
import { id, json, NO_STORE, type PathKit } from "./admin_openapi_kit.ts";
import {
  AllowedEiks,
  AllowedOrigins,
  IntegratorCreate,
  IntegratorDetail,
  IntegratorList,
  IntegratorUpdate,
  IntegratorViewSchema,
  KeyCreate,
  KeyCreated,
  KeyList,
  KeyRotate,
  KeyRotated,
  KeyViewSchema,
} from "./admin_schemas.ts";

/**
 * Register `/admin/v1/integrators*` and `/admin/v1/keys*`.
 * @param kit the document's registry and helpers
 */
export function registerIntegratorAndKeyPaths(kit: PathKit): void {
  const { r, e, base, path, body } = kit;
  // Integrators.
  r.registerPath({
    method: "get",
    path: path("/integrators"),
    operationId: "listIntegrators",
    summary: "Every integrator",
    tags: ["integrators"],
    responses: { 200: json(IntegratorList, "The integrators"), ...base },
  });
  r.registerPath({
    method: "post",
    path: path("/integrators"),
    operationId: "createIntegrator",
    summary: "Create an integrator (its id is generated unless given)",
    tags: ["integrators"],
    request: body(IntegratorCreate, true),
    responses: {
      201: json(IntegratorViewSchema, "The integrator"),
      400: e.invalid,
      409: e.conflict,
      413: e.tooLarge,
      ...base,
    },
  });
  r.registerPath({
    method: "get",
    path: path("/integrators/{id}"),
    operationId: "getIntegrator",
    summary: "An integrator with its keys, contracts and applications",
    tags: ["integrators"],
    request: { params: id("integrator") },
    responses: { 200: json(IntegratorDetail, "The integrator"), 404: e.notFound, ...base },
  });
  r.registerPath({
    method: "patch",
    path: path("/integrators/{id}"),
    operationId: "updateIntegrator",
    summary: "Change an integrator's name, e-mail, locale or page origins",
    tags: ["integrators"],
    request: { params: id("integrator"), ...body(IntegratorUpdate, false) },
    responses: {
      200: json(IntegratorViewSchema, "The integrator"),
      400: e.invalid,
      404: e.notFound,
      413: e.tooLarge,
      ...base,
    },
  });

  // Keys.
  r.registerPath({
    method: "get",
    path: path("/keys"),
    operationId: "listKeys",
    summary: "Keys with their status, phase, effective expiry and the EIKs they used",
    tags: ["keys"],
    request: { query: z.object({ integratorId: z.string().optional() }) },
    responses: { 200: json(KeyList, "The keys"), ...base },
  });
  r.registerPath({
    method: "post",
    path: path("/keys"),
    operationId: "createKey",
    summary: "Create a key for an integrator; its secret is answered once",
    tags: ["keys"],
    request: body(KeyCreate, true),
    responses: {
      201: { ...json(KeyCreated, "The secret and the key"), headers: NO_STORE },
      400: e.invalid,
      404: e.notFound,
      413: e.tooLarge,
      ...base,
    },
  });
  r.registerPath({
    method: "get",
    path: path("/keys/{id}"),
    operationId: "getKey",
    summary: "A key",
    tags: ["keys"],
    request: { params: id("key") },
    responses: { 200: json(KeyViewSchema, "The key"), 404: e.notFound, ...base },
  });
  r.registerPath({
    method: "post",
    path: path("/keys/{id}/revoke"),
    operationId: "revokeKey",
    summary: "Revoke a key now (also ends a rotation's grace period early)",
    tags: ["keys"],
    request: { params: id("key") },
    responses: {
      200: json(KeyViewSchema, "The key, revoked"),
      404: e.notFound,
      409: e.conflict,
      ...base,
    },
  });
  r.registerPath({
    method: "post",
    path: path("/keys/{id}/rotate"),
    operationId: "rotateKey",
    summary: "A new secret; the old one keeps working for graceSeconds",
    tags: ["keys"],
    request: { params: id("key"), ...body(KeyRotate, false) },
    responses: {
      201: {
        ...json(KeyRotated, "The new secret, the new key and the old key"),
        headers: NO_STORE,
      },
      400: e.invalid,
      404: e.notFound,
      409: e.conflict,
      413: e.tooLarge,
      ...base,
    },
  });
  for (
    const [p, operationId, schema, summary] of [
      [
        "allowed-eiks",
        "setKeyAllowedEiks",
        AllowedEiks,
        "Set or clear (null) the EIKs a key may be used for",
      ],
      [
        "allowed-origins",
        "setKeyAllowedOrigins",
        AllowedOrigins,
        "Set or clear (null: the integrator's) a key's own page origins, http(s) only",
      ],
    ] as const
  ) {
    r.registerPath({
      method: "put",
      path: path(`/keys/{id}/${p}`),
      operationId,
      summary,
      tags: ["keys"],
      request: { params: id("key"), ...body(schema, true) },
      responses: {
        200: json(KeyViewSchema, "The key"),
        400: e.invalid,
        404: e.notFound,
        413: e.tooLarge,
        ...base,
      },
    });
  }
}
