/**
 * Admin HTTP API, signing keys, under `/admin/v1` (docs/token-service.md § Signing keys at
 * rest): list how each key is stored, rotate, and re-encrypt every key with the current secret
 * (SVC_SIGNING_KEY_SECRET). No key material is ever answered, only ids, dates, how a key is
 * stored and the fingerprint of the secret that encrypts it.
 * @module
 */
import { Hono } from "hono";
import { AppError } from "../../contract/mod.ts";
import {
  encryptSigningKeys,
  rotateSigningKey,
  type SigningKeyCipher,
  signingKeyViews,
} from "../issuance/mod.ts";
import type { AdminDeps } from "./admin_keys.ts";

/** Dependencies of the signing-key routes. */
export interface AdminSigningDeps extends AdminDeps {
  /** Reload the key ring after a rotation or re-encryption. */
  readonly reloadKeyRing?: (() => Promise<void>) | undefined;
  /** The configured secret's cipher; null = keys are kept in plain text. */
  readonly keyCipher?: SigningKeyCipher | null | undefined;
}

/**
 * Routes `GET /signing-keys`, `POST /signing-keys/rotate` and `POST /signing-keys/encrypt`
 * (mount at `/admin/v1`). Answers `{ items: SigningKeyView[], secretFingerprint }`.
 * @param d store, clock, random, key-ring reload, cipher
 * @returns a Hono app
 * @throws AppError CONFLICT (409) from `/signing-keys/encrypt` when no secret is configured
 */
export function adminSigningKeyRoutes(d: AdminSigningDeps): Hono {
  const r = new Hono();
  const cipher = d.keyCipher ?? null;
  const answer = async () => ({
    items: signingKeyViews(await d.store.listSigningKeys(), cipher),
    secretFingerprint: cipher?.fingerprint ?? null,
  });
  r.get("/signing-keys", async (c) => c.json(await answer()));
  r.post("/signing-keys/rotate", async (c) => {
    await rotateSigningKey({ store: d.store, rnd: d.random, cipher }, d.clock.now());
    await d.reloadKeyRing?.();
    return c.json(await answer(), 201);
  });
  r.post("/signing-keys/encrypt", async (c) => {
    if (!cipher) {
      throw new AppError(
        "CONFLICT",
        "No signing key secret is configured: set SVC_SIGNING_KEY_SECRET on every instance first",
      );
    }
    await encryptSigningKeys(d.store, cipher);
    await d.reloadKeyRing?.();
    return c.json(await answer());
  });
  return r;
}
