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
  const { body, routes } = kit;
  const integrator = { params: id("integrator") };
  const key = { params: id("key") };
  // deno-fmt-ignore
  routes("integrators", [
    ["get", "/integrators", "listIntegrators", "Every integrator", null, [200, json(IntegratorList, "The integrators")], []],
    ["post", "/integrators", "createIntegrator", "Create an integrator (its id is generated unless given)", body(IntegratorCreate, true), [201, json(IntegratorViewSchema, "The integrator")], ["invalid", "conflict", "tooLarge"]],
    ["get", "/integrators/{id}", "getIntegrator", "An integrator with its keys, contracts and applications", integrator, [200, json(IntegratorDetail, "The integrator")], ["notFound"]],
    ["patch", "/integrators/{id}", "updateIntegrator", "Change an integrator's name, e-mail, locale or page origins", { ...integrator, ...body(IntegratorUpdate, false) }, [200, json(IntegratorViewSchema, "The integrator")], ["invalid", "notFound", "tooLarge"]],
  ]);
  const secret = (schema: z.ZodType, description: string) => ({
    ...json(schema, description),
    headers: NO_STORE,
  });
  // deno-fmt-ignore
  routes("keys", [
    ["get", "/keys", "listKeys", "Keys with their status, phase, effective expiry and the EIKs they used", { query: z.object({ integratorId: z.string().optional() }) }, [200, json(KeyList, "The keys")], []],
    ["post", "/keys", "createKey", "Create a key for an integrator; its secret is answered once", body(KeyCreate, true), [201, secret(KeyCreated, "The secret and the key")], ["invalid", "notFound", "tooLarge"]],
    ["get", "/keys/{id}", "getKey", "A key", key, [200, json(KeyViewSchema, "The key")], ["notFound"]],
    ["post", "/keys/{id}/revoke", "revokeKey", "Revoke a key now (also ends a rotation's grace period early)", key, [200, json(KeyViewSchema, "The key, revoked")], ["notFound", "conflict"]],
    ["post", "/keys/{id}/rotate", "rotateKey", "A new secret; the old one keeps working for graceSeconds", { ...key, ...body(KeyRotate, false) }, [201, secret(KeyRotated, "The new secret, the new key and the old key")], ["invalid", "notFound", "conflict", "tooLarge"]],
    ["put", "/keys/{id}/allowed-eiks", "setKeyAllowedEiks", "Set or clear (null) the EIKs a key may be used for", { ...key, ...body(AllowedEiks, true) }, [200, json(KeyViewSchema, "The key")], ["invalid", "notFound", "tooLarge"]],
    ["put", "/keys/{id}/allowed-origins", "setKeyAllowedOrigins", "Set or clear (null: the integrator's) a key's own page origins, http(s) only", { ...key, ...body(AllowedOrigins, true) }, [200, json(KeyViewSchema, "The key")], ["invalid", "notFound", "tooLarge"]],
  ]);
}
