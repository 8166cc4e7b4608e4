/**
 * Test helpers: an in-process token service (issue, applications and admin API, notice
 * scheduler, usage recorder) on a store with a fake clock, and `backendTest()`, which registers
 * one test per storage backend — SQLite (a temp file) and PostgreSQL (a fresh schema; skipped
 * without SVC_TEST_DATABASE_URL, failing instead when CI=true).
 */
import { FakeClock } from "../../src/clock.ts";
import { createApiKey } from "../../src/token/access/api_keys.ts";
import type { Mailer } from "../../src/token/notices/mailer.ts";
import { openTokenStore } from "../../src/token/store/open_store.ts";
import { createTokenService } from "../../src/token/service.ts";
import { sqliteTokenStore } from "../../src/token/store/mod.ts";
import type { KeyMode, TokenStore } from "../../src/token/store/store.ts";
import { freshPgSchema, pgIgnored } from "./postgres.ts";

/** Issuer used by in-process tests. */
export const TEST_ISSUER = "http://127.0.0.1:17480";
/** The admin credential of in-process services. */
export const ADMIN_TOKEN = "test-admin-token-0123456789abcdefghijklmnop";

/** A storage backend. */
export type Backend = "sqlite" | "postgres";

/** A database several service instances can open. */
export interface TestDb {
  readonly backend: Backend;
  /** Open (and migrate) one more store on the same database. */
  open(): Promise<TokenStore>;
  /** Close every store opened here and delete the database. */
  cleanup(): Promise<void>;
}

/**
 * A fresh database of the given backend.
 * @param backend sqlite (temp file) or postgres (fresh schema)
 * @returns the database
 */
export async function testDb(backend: Backend): Promise<TestDb> {
  const opened: TokenStore[] = [];
  const closeAll = () => Promise.all(opened.map((s) => s.close().catch(() => {})));
  if (backend === "postgres") {
    const pg = await freshPgSchema();
    return {
      backend,
      async open() {
        const s = await openTokenStore({ dataDir: "", databaseUrl: pg.url });
        opened.push(s);
        return s;
      },
      async cleanup() {
        await closeAll();
        await pg.drop();
      },
    };
  }
  const dir = await Deno.makeTempDir({ prefix: "svc-token-test-" });
  return {
    backend,
    async open() {
      const s = await openTokenStore({ dataDir: dir });
      opened.push(s);
      return s;
    },
    async cleanup() {
      await closeAll();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/**
 * Register `[token/<backend>] name` for SQLite and PostgreSQL.
 * @param name test name (behaviour)
 * @param fn the test, given a fresh database
 */
export function backendTest(name: string, fn: (db: TestDb) => Promise<void>): void {
  for (const backend of ["sqlite", "postgres"] as const) {
    Deno.test({
      name: `[token/${backend}] ${name}`,
      ignore: backend === "postgres" && pgIgnored(),
      async fn() {
        const db = await testDb(backend);
        try {
          await fn(db);
        } finally {
          await db.cleanup();
        }
      },
    });
  }
}

/** Options of {@link tokenEnv}. */
export interface TokenEnvOptions {
  readonly minAgentVersion?: string | undefined;
  /** Default: a fresh in-memory SQLite store. */
  readonly store?: TokenStore;
  readonly clock?: FakeClock;
  readonly mailer?: Mailer | null;
  readonly instanceId?: string;
}

/**
 * A token service with its store, clock, key ring and request helpers. Timers are not started:
 * tests drive `service.scheduler.tick()` and flush usage themselves.
 * @param opts store, clock, mailer, minimum agent version
 * @returns the environment
 */
export async function tokenEnv(opts: TokenEnvOptions = {}) {
  const clock = opts.clock ?? new FakeClock();
  let store = opts.store;
  if (!store) {
    store = sqliteTokenStore(":memory:");
    await store.migrate();
  }
  const service = await createTokenService({
    store,
    clock,
    config: {
      issuer: TEST_ISSUER,
      audience: "svc-agent",
      minAgentVersion: opts.minAgentVersion ?? null,
    },
    adminToken: ADMIN_TOKEN,
    mailer: opts.mailer ?? null,
    instanceId: opts.instanceId,
  });
  const app = service.app;
  const s = store;
  const newKey = (mode: KeyMode, allowedEiks: string[] | null = null, integratorId?: string) =>
    createApiKey(s, { mode, now: clock.now(), allowedEiks, integratorId });
  const issue = (key: string, body: unknown) =>
    app.request("/api/v1/tokens/issue", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  /** Call the admin API with the admin credential (or `auth`). */
  const admin = (method: string, path: string, body?: unknown, auth = ADMIN_TOKEN) =>
    app.request(`/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${auth}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  /** Call the admin API and return the JSON body, failing on an unexpected status. */
  const adminJson = async (method: string, path: string, body?: unknown, status = 200) => {
    const res = await admin(method, path, body);
    const json = await res.json();
    if (res.status !== status) {
      throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    }
    return json;
  };
  return {
    clock,
    store,
    service,
    app,
    newKey,
    issue,
    admin,
    adminJson,
    ring: () => service.keyRing(),
    reloadRing: () => service.reloadKeyRing(),
  };
}

/** The environment {@link tokenEnv} returns. */
export type TokenEnv = Awaited<ReturnType<typeof tokenEnv>>;
