/**
 * PostgreSQL for tests: `SVC_TEST_DATABASE_URL` (set by `eval "$(bash scripts/ci_postgres.sh)"`)
 * names a database; every test gets its own schema (`?search_path=t_…` on the URL), so tests
 * run in parallel and leave nothing behind. Without the variable PostgreSQL tests are skipped
 * with a message — and fail instead when `CI=true`.
 * @module
 */
import postgres from "postgres";

/** The base URL, or undefined when PostgreSQL tests cannot run. */
export const PG_URL: string | undefined = Deno.env.get("SVC_TEST_DATABASE_URL") || undefined;

/** Why PostgreSQL tests are skipped, printed once. */
export const PG_SKIP_MESSAGE =
  'SKIP PostgreSQL tests: SVC_TEST_DATABASE_URL is not set (run: eval "$(bash scripts/ci_postgres.sh)")';

let warned = false;

/**
 * Whether to register PostgreSQL tests as ignored. Prints the skip message once. With CI=true
 * the tests are registered and fail (see {@link requirePgUrl}).
 * @returns true when the tests should be ignored
 */
export function pgIgnored(): boolean {
  if (PG_URL || Deno.env.get("CI") === "true") return false;
  if (!warned) console.log(PG_SKIP_MESSAGE);
  warned = true;
  return true;
}

/**
 * The base URL or a failure explaining how to get one (CI=true without a database).
 * @returns the URL
 * @throws Error when SVC_TEST_DATABASE_URL is not set
 */
export function requirePgUrl(): string {
  if (!PG_URL) {
    throw new Error(
      "CI=true and SVC_TEST_DATABASE_URL is not set: PostgreSQL tests must run on CI " +
        '(eval "$(bash scripts/ci_postgres.sh)")',
    );
  }
  return PG_URL;
}

/** A throw-away schema. */
export interface PgSchema {
  /** URL selecting the schema (search_path) with a small pool. */
  readonly url: string;
  readonly schema: string;
  /** Drop the schema and everything in it. */
  drop(): Promise<void>;
}

/**
 * Create a fresh schema for one test.
 * @returns its URL and a disposer
 * @throws Error when the database cannot be reached
 */
export async function freshPgSchema(): Promise<PgSchema> {
  const base = requirePgUrl();
  const schema = `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  const u = new URL(base);
  u.searchParams.set("search_path", schema);
  if (!u.searchParams.has("max")) u.searchParams.set("max", "4");
  return {
    url: u.toString(),
    schema,
    async drop() {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await a.end();
      }
    },
  };
}
