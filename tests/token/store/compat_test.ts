/**
 * Databases made before the one query layer still open: a SQLite file and a PostgreSQL schema
 * created by the release that had one store per database (fixtures/, see the header of
 * v3_postgres.sql) are opened by `openTokenStore()`, read, and written; and the migrations of
 * today create exactly the schema those databases have (columns, types, defaults, keys,
 * indexes), so a database made now and one made then are the same.
 */
import { deepStrictEqual, equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { openTokenStore } from "../../../src/token/store/mod.ts";
import type { TokenStore } from "../../../src/token/store/mod.ts";
import { freshPgSchema, pgIgnored, requirePgUrl } from "../../_helpers/postgres.ts";

const FIXTURES = new URL("./fixtures/", import.meta.url);
const T0 = Date.UTC(2026, 10, 1, 8);

/** What the fixtures hold, read through today's store; then one write of each kind. */
async function readAndWrite(s: TokenStore) {
  const [key] = await s.listKeys();
  equal(key?.label, "Ключ");
  deepStrictEqual(await s.keyEiks(key.id), ["121212121", "131313131"]);
  const found = await s.findKeyForIssue(key.secretHash, T0 + 20);
  equal(found?.key.integratorName, "ACME Ltd");
  equal(found?.contract.active?.id, "ctr_1");
  equal((await s.getApplication("app_1"))?.status, "approved");
  equal((await s.listNotices())[0]?.kind, "contract_expiring");
  equal((await s.listSigningKeys())[0]?.kid, "ed-1");
  const usage = { ...(await s.listBillingCounts({ month: "2026-11" }))[0]!, count: 2 };
  await s.addBillingCounts([usage]);
  equal((await s.listBillingCounts({ month: "2026-11" }))[0]?.count, 7);
  deepStrictEqual(await s.claimEiks(key.id, ["141414141", "151515151"], 3, T0), {
    ok: false,
    used: 2,
    limit: 3,
  });
  equal(
    (await s.terminateContract("ctr_1", T0 + 30, null, 1000, (c) => ({
      id: "ntc_2",
      kind: "contract_terminated",
      subjectId: c.id,
      dueAt: T0 + 30,
      integratorId: c.integratorId,
      recipient: null,
      locale: "bg",
      params: {},
      createdAt: T0 + 30,
    }))).ok,
    true,
  );
}

/** Columns, keys and indexes of a SQLite file. */
function sqliteSchema(path: string) {
  const db = new DatabaseSync(path, { readOnly: true });
  const q = (text: string, ...p: string[]) =>
    JSON.parse(JSON.stringify(db.prepare(text).all(...p)));
  const out: Record<string, unknown> = {};
  for (const { name } of q("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")) {
    out[name] = {
      columns: q(`PRAGMA table_info(${name})`),
      foreignKeys: q(`PRAGMA foreign_key_list(${name})`),
      indexes: q(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? ORDER BY name",
        name,
      ).map((i: { name: string; sql: string | null }) => ({
        name: i.name,
        sql: i.sql?.replace(/\s+/g, " ") ?? null,
      })),
    };
  }
  db.close();
  return out;
}

/** Columns, constraints and indexes of a PostgreSQL schema. */
async function pgSchema(base: string, schema: string) {
  const sql = postgres(base, { max: 1, onnotice: () => {} });
  try {
    const columns = await sql`SELECT table_name, column_name, data_type, is_nullable,
      column_default, ordinal_position FROM information_schema.columns
      WHERE table_schema = ${schema} ORDER BY table_name, ordinal_position`;
    const indexes = await sql`SELECT tablename, indexname,
      replace(indexdef, ${schema + "."}, '') AS def FROM pg_indexes
      WHERE schemaname = ${schema} ORDER BY tablename, indexname`;
    const constraints = await sql`SELECT conrelid::regclass::text AS tbl, conname,
      pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE connamespace = ${schema}::regnamespace ORDER BY 1, 2`;
    return JSON.parse(JSON.stringify({ columns, indexes, constraints }).replaceAll(schema, "S"));
  } finally {
    await sql.end();
  }
}

Deno.test("[token/sqlite] a database file made before the one query layer opens, reads and writes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-token-compat-" });
  try {
    await Deno.copyFile(new URL("v3.sqlite", FIXTURES), `${dir}/token-service.sqlite`);
    const s = await openTokenStore({ dataDir: dir });
    try {
      await readAndWrite(s);
    } finally {
      await s.close();
    }
    const fresh = `${dir}/fresh`;
    await (await openTokenStore({ dataDir: fresh })).close();
    deepStrictEqual(
      sqliteSchema(`${fresh}/token-service.sqlite`),
      sqliteSchema(`${dir}/token-service.sqlite`),
      "today's migrations create the schema of the old file",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "[token/postgres] a schema made before the one query layer opens, reads and writes",
  ignore: pgIgnored(),
  async fn() {
    const [old, fresh] = [await freshPgSchema(), await freshPgSchema()];
    const base = requirePgUrl();
    try {
      const dump = await Deno.readTextFile(new URL("v3_postgres.sql", FIXTURES));
      const admin = postgres(base, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(dump.replaceAll("svc_schema", old.schema));
      } finally {
        await admin.end();
      }
      const s = await openTokenStore({ dataDir: "", databaseUrl: old.url });
      try {
        await readAndWrite(s);
      } finally {
        await s.close();
      }
      await (await openTokenStore({ dataDir: "", databaseUrl: fresh.url })).close();
      deepStrictEqual(
        await pgSchema(base, fresh.schema),
        await pgSchema(base, old.schema),
        "today's migrations create the schema of the old database",
      );
    } finally {
      await old.drop();
      await fresh.drop();
    }
  },
});
