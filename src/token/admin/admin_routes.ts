/**
 * Admin HTTP API, part 1: integrators and keys under `/admin/v1` (docs/token-service.md
 * § Access phases; § Allowed EIK list, revocation, rotation: only an administrator changes a
 * key's allowed EIKs). The
 * admin credential is checked by `admin_auth.ts` before these routes run; errors use the token
 * service's `{error, errorCode, errorKind}` body.
 * @module
 */
import { type Context, Hono } from "hono";
import { AppError, requireJsonMediaType } from "../../contract/mod.ts";
import {
  type AdminDeps,
  createIntegrator,
  createKeyFor,
  integratorView,
  keyView,
  requireIntegrator,
  requireKey,
  revokeKeyNow,
  rotateKeyNow,
  setKeyAllowedEiks,
  setKeyAllowedOrigins,
  updateIntegrator,
} from "./admin_keys.ts";
import {
  AllowedEiks,
  AllowedOrigins,
  IntegratorCreate,
  IntegratorUpdate,
  KeyCreate,
  KeyRotate,
  parseInput,
} from "./admin_schemas.ts";
import { applicationViews, contractViews } from "../contracts/mod.ts";

/** Largest admin or application body accepted, bytes. */
export const MAX_ADMIN_BODY_BYTES = 1024 * 1024;

/**
 * Read a JSON body; an empty body is `{}`, any other must be sent as `application/json`.
 * @param c Hono context
 * @returns the parsed value
 * @throws AppError INVALID_JSON (400), BODY_TOO_LARGE (413), UNSUPPORTED_MEDIA_TYPE (415)
 */
export async function readJson(c: Context): Promise<unknown> {
  if (Number(c.req.header("content-length") ?? "0") > MAX_ADMIN_BODY_BYTES) {
    throw new AppError("BODY_TOO_LARGE", "The body is too large");
  }
  const text = await c.req.text();
  if (text.trim() === "") return {};
  // A body is read only when declared as JSON (415): never a form or text/plain.
  requireJsonMediaType(c.req.header("content-type"));
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("INVALID_JSON", "The body is not valid JSON");
  }
}

/**
 * Routes for integrators and keys (mount at `/admin/v1`).
 * @param d store, clock, random
 * @returns a Hono app
 */
export function adminKeyRoutes(d: AdminDeps): Hono {
  const r = new Hono();

  r.get("/integrators", async (c) => {
    const items = (await d.store.listIntegrators()).map(integratorView);
    return c.json({ items });
  });
  r.post("/integrators", async (c) => {
    const input = parseInput(IntegratorCreate, await readJson(c));
    return c.json(await createIntegrator(d, input), 201);
  });
  r.get("/integrators/:id", async (c) => {
    const i = await requireIntegrator(d, c.req.param("id"));
    const keys = await Promise.all(
      (await d.store.listKeys({ integratorId: i.id })).map((k) => keyView(d, k)),
    );
    const contracts = await contractViews(d, { integratorId: i.id });
    const applications = await applicationViews(d, { integratorId: i.id });
    return c.json({ integrator: integratorView(i), keys, contracts, applications });
  });
  r.patch("/integrators/:id", async (c) => {
    const patch = parseInput(IntegratorUpdate, await readJson(c));
    return c.json(await updateIntegrator(d, c.req.param("id"), patch));
  });

  r.get("/keys", async (c) => {
    const integratorId = c.req.query("integratorId");
    const keys = await d.store.listKeys(integratorId ? { integratorId } : {});
    return c.json({ items: await Promise.all(keys.map((k) => keyView(d, k))) });
  });
  r.post("/keys", async (c) => {
    const input = parseInput(KeyCreate, await readJson(c));
    return c.json(await createKeyFor(d, input), 201, { "cache-control": "no-store" });
  });
  r.get("/keys/:id", async (c) => c.json(await keyView(d, await requireKey(d, c.req.param("id")))));
  r.post("/keys/:id/revoke", async (c) => c.json(await revokeKeyNow(d, c.req.param("id"))));
  r.post("/keys/:id/rotate", async (c) => {
    const { graceSeconds } = parseInput(KeyRotate, await readJson(c));
    return c.json(await rotateKeyNow(d, c.req.param("id"), graceSeconds), 201, {
      "cache-control": "no-store",
    });
  });
  r.put("/keys/:id/allowed-origins", async (c) => {
    const { allowedOrigins } = parseInput(AllowedOrigins, await readJson(c));
    return c.json(await setKeyAllowedOrigins(d, c.req.param("id"), allowedOrigins));
  });
  r.put("/keys/:id/allowed-eiks", async (c) => {
    const { allowedEiks } = parseInput(AllowedEiks, await readJson(c));
    return c.json(await setKeyAllowedEiks(d, c.req.param("id"), allowedEiks));
  });
  return r;
}
