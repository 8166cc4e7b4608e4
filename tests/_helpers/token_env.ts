/**
 * Test helpers: an in-process token service on an in-memory SQLite store with a fake clock.
 */
import { FakeClock } from "../../src/clock.ts";
import { createTokenApp } from "../../src/token/app.ts";
import { createApiKey } from "../../src/token/api_keys.ts";
import { type KeyRing, loadKeyRing } from "../../src/token/signer.ts";
import { SqliteTokenStore } from "../../src/token/sqlite_store.ts";
import type { KeyMode } from "../../src/token/store.ts";

/** Issuer used by in-process tests. */
export const TEST_ISSUER = "http://127.0.0.1:17480";

/** A token service with its store, clock and key ring. */
export async function tokenEnv(opts: { minAgentVersion?: string } = {}) {
  const clock = new FakeClock();
  const store = new SqliteTokenStore(":memory:");
  await store.migrate();
  let ring: KeyRing = await loadKeyRing(store, clock.now());
  const app = createTokenApp({
    store,
    keyRing: () => ring,
    clock,
    config: { issuer: TEST_ISSUER, audience: "svc-agent", minAgentVersion: opts.minAgentVersion ?? null },
  });
  const newKey = (mode: KeyMode, allowedEiks: string[] | null = null, integratorId?: string) =>
    createApiKey(store, { mode, now: clock.now(), allowedEiks, integratorId });
  const issue = (key: string, body: unknown) =>
    app.request("/api/v1/tokens/issue", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  return {
    clock,
    store,
    app,
    newKey,
    issue,
    ring: () => ring,
    reloadRing: async () => {
      ring = await loadKeyRing(store, clock.now());
    },
  };
}
