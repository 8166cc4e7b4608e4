/**
 * The admin side of the token service (docs/token-service.md § Access phases): the admin
 * credential guard, the `/admin/v1` routes, the operations on integrators and keys shared by
 * the admin API and the CLI, the input and answer schemas, and the admin API's OpenAPI document
 * built from them. Everything outside `admin/` imports this file only.
 * @module
 */
export { adminAuth, adminTokenMatches, MIN_ADMIN_TOKEN_LENGTH } from "./admin_auth.ts";
export { type AdminContractDeps, adminContractRoutes } from "./admin_contract_routes.ts";
export * from "./admin_keys.ts";
export { type AdminSigningDeps, adminSigningKeyRoutes } from "./admin_signing_routes.ts";
export { adminKeyRoutes, MAX_ADMIN_BODY_BYTES, readJson } from "./admin_routes.ts";
export * from "./admin_schemas.ts";
export { adminOpenApiRoutes, buildAdminOpenApi } from "./admin_openapi.ts";
