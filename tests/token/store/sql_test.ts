/**
 * The token store's query layer (src/token/store/sql.ts): one query text rendered for each
 * database, optional filters, multi-row VALUES, and transactions that commit or roll back
 * alike on SQLite and PostgreSQL.
 */
import { deepStrictEqual, equal, rejects, throws } from "node:assert/strict";
import { openPgDb } from "../../../src/token/store/pg_db.ts";
import { type Db, render, sql, tuples, where } from "../../../src/token/store/sql.ts";
import { SqliteDb } from "../../../src/token/store/sqlite_db.ts";
import { freshPgSchema, pgIgnored } from "../../_helpers/postgres.ts";

const id = "key_1", at = 1000;
const cases = [
  {
    name: "placeholders",
    q: sql`SELECT * FROM api_keys WHERE id = ${id} AND revoked_at > ${at}`,
    sqlite: "SELECT * FROM api_keys WHERE id = ? AND revoked_at > ?",
    postgres: "SELECT * FROM api_keys WHERE id = $1 AND revoked_at > $2",
    values: [id, at],
  },
  {
    name: "row locks only for PostgreSQL",
    q: sql`SELECT id FROM notices WHERE due_at <= ${at} LIMIT ${5} FOR UPDATE SKIP LOCKED`,
    sqlite: "SELECT id FROM notices WHERE due_at <= ? LIMIT ?",
    postgres: "SELECT id FROM notices WHERE due_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED",
    values: [at, 5],
  },
  {
    name: "optional filters, leaving out those not set",
    q: sql`SELECT * FROM contracts${where({ integrator_id: "acme", status: undefined })}`,
    sqlite: "SELECT * FROM contracts WHERE integrator_id = ?",
    postgres: "SELECT * FROM contracts WHERE integrator_id = $1",
    values: ["acme"],
  },
  {
    name: "no WHERE when no filter is set",
    q: sql`SELECT * FROM contracts${where({ integrator_id: null })} ORDER BY id`,
    sqlite: "SELECT * FROM contracts ORDER BY id",
    postgres: "SELECT * FROM contracts ORDER BY id",
    values: [],
  },
  {
    name: "multi-row VALUES",
    q: sql`INSERT INTO key_eiks VALUES ${
      tuples([[id, "1", at], [id, "2", at]])
    } ON CONFLICT DO NOTHING`,
    sqlite: "INSERT INTO key_eiks VALUES (?, ?, ?), (?, ?, ?) ON CONFLICT DO NOTHING",
    postgres: "INSERT INTO key_eiks VALUES ($1, $2, $3), ($4, $5, $6) ON CONFLICT DO NOTHING",
    values: [id, "1", at, id, "2", at],
  },
];

for (const c of cases) {
  Deno.test(`sql\`\` renders for SQLite and PostgreSQL: ${c.name}`, () => {
    equal(render(c.q, "sqlite"), c.sqlite);
    equal(render(c.q, "postgres"), c.postgres);
    deepStrictEqual(c.q.values, c.values);
  });
}

Deno.test("where() takes column names from code only", () => {
  throws(() => where({ "id; DROP TABLE x": 1 }), /Not a column name/);
});

async function withDb(backend: "sqlite" | "postgres", fn: (db: Db) => Promise<void>) {
  if (backend === "sqlite") {
    const db = new SqliteDb(":memory:");
    try {
      await fn(db);
    } finally {
      await db.close();
    }
    return;
  }
  const pg = await freshPgSchema();
  const db = openPgDb(pg.url);
  try {
    await fn(db);
  } finally {
    await db.close();
    await pg.drop();
  }
}

for (const backend of ["sqlite", "postgres"] as const) {
  Deno.test({
    name: `[token/${backend}] Db.tx() commits a body that returns and rolls back one that throws`,
    ignore: backend === "postgres" && pgIgnored(),
    async fn() {
      await withDb(backend, async (db) => {
        await db.tx(function* (tx) {
          yield* tx.exec("CREATE TABLE t (id TEXT PRIMARY KEY, n BIGINT NOT NULL)");
        });
        equal(
          await db.tx(function* (tx) {
            yield* tx.lock(sql`SELECT 1 FROM t FOR UPDATE`);
            return yield* tx.run(sql`INSERT INTO t VALUES ${tuples([["a", 1], ["b", 2]])}`);
          }),
          2,
        );
        await rejects(
          db.tx(function* (tx) {
            yield* tx.run(sql`UPDATE t SET n = n + 10`);
            throw new Error("boom");
          }),
          /boom/,
        );
        await rejects(
          db.tx(function* (tx) {
            yield* tx.run(sql`UPDATE t SET n = n + 10`);
            yield* tx.run(sql`INSERT INTO t VALUES (${"a"}, ${3})`); // duplicate key
          }),
        );
        const rows = await db.all(sql`SELECT id, n FROM t ORDER BY id`);
        deepStrictEqual(rows.map((r) => [r.id, Number(r.n)]), [["a", 1], ["b", 2]]);
        equal(await db.get(sql`SELECT n FROM t WHERE id = ${"zz"}`), undefined);
        equal(await db.run(sql`UPDATE t SET n = 5 WHERE id = ${"b"}`), 1);
      });
    },
  });
}
