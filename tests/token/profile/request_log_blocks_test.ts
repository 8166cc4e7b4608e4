/**
 * The request log stored in blocks (src/token/store/request_log_blocks.ts, request_log_queries.ts;
 * docs/token-service.md § The request log), on SQLite and PostgreSQL: a block per API key and
 * flush, split when it would cover more than a minute (a damaged body reads as empty); listing
 * many blocks gives exactly the newest entries a plain sort of every entry gives, with each
 * filter; the age prune rewrites a block that began before its bound; and a database of the
 * release that kept a row per request keeps its rows through the migrations to blocks of JSON and
 * to packed bodies.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { openTokenStore, SQLITE_FILE } from "../../../src/token/store/open_store.ts";
import {
  BLOCK_SPAN_MS,
  BlockBuilder,
  requestLogBlocks,
} from "../../../src/token/store/request_log_blocks.ts";
import { blockBody, blockEntries } from "../../../src/token/store/request_log_block_body.ts";
import type { RequestLogEntry, RequestLogFilter } from "../../../src/token/store/mod.ts";
import { freshPgSchema, pgIgnored } from "../../_helpers/postgres.ts";
import { backendTest } from "../../_helpers/token_env.ts";

const NOW = Date.UTC(2026, 11, 28, 12);

const entry = (
  at: number,
  keyId: string,
  requestId: string,
  status = 200,
  integratorId = "int_a",
): RequestLogEntry => ({
  at,
  integratorId,
  keyId,
  typeId: status === 200 ? "vat" : "nope",
  eiks: "121212121",
  status,
  errorCode: status === 200 ? null : status === 429 ? "RATE_LIMITED" : "EIK_NOT_ALLOWED",
  requestId,
  origin: null,
  latencyMs: null,
});

Deno.test("request log blocks: one per key, split beyond the span, errors counted, read back", () => {
  const es = [
    entry(NOW, "key_a", "a1"),
    entry(NOW + 10, "key_b", "b1", 403),
    entry(NOW + 20, "key_a", "a2", 429),
    entry(NOW + BLOCK_SPAN_MS + 1, "key_a", "a3"), // a minute after a1: a new block
  ];
  const blocks = requestLogBlocks(es, BLOCK_SPAN_MS);
  deepStrictEqual(
    blocks.map((b) => [b.integratorId, b.keyId, b.firstAt, b.lastAt, b.entries, b.errors]),
    [
      ["int_a", "key_a", NOW, NOW + 20, 2, 1], // closed when a3 came
      ["int_a", "key_a", NOW + BLOCK_SPAN_MS + 1, NOW + BLOCK_SPAN_MS + 1, 1, 0],
      ["int_a", "key_b", NOW + 10, NOW + 10, 1, 1],
    ],
  );
  const read = blocks.flatMap((b) => blockEntries(b.integratorId, b.keyId, blockBody(b)));
  deepStrictEqual(
    read.sort((x, y) => x.at - y.at),
    es,
    "every field comes back",
  );
  // A body damaged by hand reads as no entries, never as an error of the page.
  deepStrictEqual(blockEntries("int_a", "key_a", "not json"), []);
  deepStrictEqual(blockEntries("int_a", "key_a", '{"at":1}'), []);
});

Deno.test("request log blocks: built entry by entry, taken between entries, every entry once", () => {
  // Answers end out of order by a few ms (a block's first and last are its extremes), keys
  // interleave, and the builder is taken at arbitrary points, as the recorder's flushes do.
  const es: RequestLogEntry[] = [];
  for (let i = 0; i < 2000; i++) {
    const at = NOW + i * 50 - (i % 7) * 3;
    es.push(entry(at, `key_${i % 3}`, `r${i}`, i % 13 === 0 ? 403 : 200));
  }
  const b = new BlockBuilder(BLOCK_SPAN_MS);
  const blocks = [];
  for (const [i, e] of es.entries()) {
    b.add(e.integratorId, e.keyId, e.at, e.typeId, e.eiks, e.status, e.errorCode, e.requestId);
    if (i % 347 === 0) blocks.push(...b.take());
    equal(b.size, i % 347 === 0 ? 0 : (i % 347), "size counts the entries held");
  }
  blocks.push(...b.take());
  equal(b.size, 0);
  for (const block of blocks) {
    const read = blockEntries(block.integratorId, block.keyId, blockBody(block));
    equal(read.length, block.entries);
    equal(read.filter((e) => e.status >= 400).length, block.errors);
    equal(Math.min(...read.map((e) => e.at)), block.firstAt);
    equal(Math.max(...read.map((e) => e.at)), block.lastAt);
    ok(block.lastAt - block.firstAt <= BLOCK_SPAN_MS, "a block covers at most the span");
    ok(read.every((e) => e.keyId === block.keyId));
  }
  const read = blocks.flatMap((x) => blockEntries(x.integratorId, x.keyId, blockBody(x)));
  deepStrictEqual(
    read.sort((x, y) => Number(x.requestId.slice(1)) - Number(y.requestId.slice(1))),
    es,
    "every entry once, every field as added",
  );
  // A typeId or EIKs as sent (quotes, backslashes, Cyrillic, control characters) come back.
  // So does a request id that is not ASCII (the edge never gives one; the store takes any).
  const odd = { ...entry(NOW, "key_a", "q-ид"), typeId: 'a"b\\c\u0001д', eiks: "12,\n" };
  const around = [entry(NOW - 1, "key_a", "before"), odd, entry(NOW + 1, "key_a", "after")];
  deepStrictEqual(
    requestLogBlocks(around).flatMap((x) => blockEntries(x.integratorId, x.keyId, blockBody(x))),
    around,
  );
});

/** What the store must answer: every entry, filtered and sorted newest first. */
function expected(all: readonly RequestLogEntry[], f: RequestLogFilter): string[] {
  return all
    .filter((e) =>
      e.integratorId === f.integratorId && e.at >= f.since &&
      (f.keyId === undefined || e.keyId === f.keyId) &&
      (f.status === undefined ||
        (f.status === "errors" ? e.status >= 400 : e.status === f.status))
    )
    .sort((a, b) => b.at - a.at)
    .slice(0, f.limit)
    .map((e) => e.requestId);
}

backendTest(
  "listing 3,000 entries in many blocks gives the newest, with each filter",
  async (db) => {
    const store = await db.open();
    // Three keys of one integrator and one of another, ten flushes over ~8 minutes; each entry a
    // distinct time (so "newest first" has one answer), written out of order within a flush.
    const all: RequestLogEntry[] = [];
    let n = 0;
    for (let flush = 0; flush < 10; flush++) {
      const batch: RequestLogEntry[] = [];
      for (let i = 0; i < 300; i++) {
        const at = NOW + flush * 50_000 + ((i * 7919) % 300) * 97 + flush;
        const key = ["key_a", "key_b", "key_c", "key_x"][i % 4]!;
        const status = i % 23 === 0 ? 429 : i % 11 === 0 ? 403 : 200;
        batch.push(entry(at, key, `r${n++}`, status, key === "key_x" ? "int_b" : "int_a"));
      }
      await store.addRequestLog(requestLogBlocks(batch), []);
      all.push(...batch);
    }
    const filters: RequestLogFilter[] = [
      // Limits reached inside a flush, whose three keys' blocks overlap in time.
      { integratorId: "int_a", since: 0, limit: 100 },
      { integratorId: "int_a", since: 0, status: 200, limit: 120 },
      { integratorId: "int_a", since: 0, limit: 200 },
      { integratorId: "int_a", since: 0, limit: 5000 },
      { integratorId: "int_a", since: NOW + 200_000, limit: 5000 },
      { integratorId: "int_a", since: 0, keyId: "key_b", limit: 50 },
      { integratorId: "int_a", since: 0, status: "errors", limit: 30 },
      { integratorId: "int_a", since: 0, status: 429, limit: 1000 },
      { integratorId: "int_a", since: 0, status: 200, keyId: "key_c", limit: 70 },
      { integratorId: "int_b", since: 0, limit: 100 },
      { integratorId: "int_c", since: 0, limit: 100 },
    ];
    for (const f of filters) {
      const got = (await store.listRequestLog(f)).map((e) => e.requestId);
      deepStrictEqual(got, expected(all, f), JSON.stringify(f));
    }
  },
);

backendTest("the age prune rewrites a block that began before its bound", async (db) => {
  const store = await db.open();
  const before = NOW;
  await store.addRequestLog(
    requestLogBlocks([
      entry(before - 90_000, "key_a", "gone-whole"), // its own block (90 s before the next)
      entry(before - 30_000, "key_a", "gone-part"),
      entry(before - 20_000, "key_a", "gone-part-2", 403),
      entry(before + 10_000, "key_a", "kept"),
      entry(before + 20_000, "key_a", "kept-error", 403),
    ]),
    [],
  );
  equal(await store.pruneRequestLog(before, 1_000_000, "2000-01-01"), 3);
  deepStrictEqual(
    (await store.listRequestLog({ integratorId: "int_a", since: 0, limit: 9 })).map((e) =>
      e.requestId
    ),
    ["kept-error", "kept"],
  );
  deepStrictEqual(
    (await store.listRequestLog({ integratorId: "int_a", since: 0, status: "errors", limit: 9 }))
      .map((e) => e.requestId),
    ["kept-error"],
    "the rewritten block still counts its errors",
  );
  equal(await store.pruneRequestLog(before, 1_000_000, "2000-01-01"), 0, "nothing twice");
});

/** The request log table of schema version 7, a row per request (as that release made it). */
const V7_LOG = `CREATE TABLE request_log (
    at BIGINT NOT NULL, integrator_id TEXT NOT NULL, key_id TEXT NOT NULL,
    type_id TEXT NOT NULL, eiks TEXT NOT NULL, status INTEGER NOT NULL,
    error_code TEXT, request_id TEXT NOT NULL
  );
  CREATE INDEX request_log_integrator ON request_log (integrator_id, at);
  CREATE INDEX request_log_at ON request_log (at);
  DROP TABLE request_log_blocks;
  DELETE FROM schema_migrations WHERE version IN (8, 9);
  INSERT INTO request_log VALUES
    (${NOW - 2000}, 'int_a', 'key_a', 'vat', '121212121', 200, NULL, 'old-1'),
    (${NOW - 1000}, 'int_a', 'key_a', 'nope', '121212121', 400, 'UNKNOWN_TYPE_ID', 'old-2'),
    (${NOW - 500}, 'int_b', 'key_b', 'vat', '131313131,141414141', 200, NULL, 'old-3');`;

/** A block as the release before packed bodies writes it (during a rolling deploy). */
const PREVIOUS_RELEASE_BLOCK = `INSERT INTO request_log_blocks (integrator_id, key_id, first_at,
  last_at, entries, errors, body) VALUES ('int_a', 'key_a', ${NOW - 1600}, ${NOW - 600}, 2, 0,
  '[[${NOW - 1600},"vat","121212121",200,null,"prev-0"],
    [${NOW - 600},"vat","121212121",200,null,"prev-1"]]')`;

/** After the migrations: the old rows, each field as it was, and new blocks beside them, packed
 * or written by an instance of the previous release. */
async function assertMigrated(
  open: () => ReturnType<typeof openTokenStore>,
  asPreviousRelease: (q: string) => Promise<void>,
) {
  const store = await open();
  try {
    deepStrictEqual(
      await store.listRequestLog({ integratorId: "int_a", since: 0, limit: 9 }),
      [
        entry(NOW - 1000, "key_a", "old-2", 400),
        entry(NOW - 2000, "key_a", "old-1"),
      ].map((e, i) => i === 0 ? { ...e, errorCode: "UNKNOWN_TYPE_ID" } : e),
    );
    deepStrictEqual(
      (await store.listRequestLog({ integratorId: "int_b", since: 0, limit: 9 }))[0]?.eiks,
      "131313131,141414141",
    );
    deepStrictEqual(
      (await store.listRequestLog({ integratorId: "int_a", since: 0, status: "errors", limit: 9 }))
        .map((e) => e.requestId),
      ["old-2"],
    );
    // A block written now (packed) is read beside the migrated ones (JSON), and so is one an
    // instance of the previous release writes meanwhile (JSON, no packed column).
    const fresh = entry(NOW - 700, "key_a", crypto.randomUUID(), 403);
    await store.addRequestLog(requestLogBlocks([fresh]), []);
    await asPreviousRelease(PREVIOUS_RELEASE_BLOCK);
    deepStrictEqual(
      (await store.listRequestLog({ integratorId: "int_a", since: 0, limit: 9 }))
        .map((e) => e.requestId),
      ["prev-1", fresh.requestId, "old-2", "prev-0", "old-1"],
    );
    // The age prune deletes old-1's block and rewrites the JSON block without prev-0, packed.
    equal(await store.pruneRequestLog(NOW - 1500, 1_000_000, "2000-01-01"), 2);
    deepStrictEqual(
      (await store.listRequestLog({ integratorId: "int_a", since: 0, limit: 9 }))
        .map((e) => e.requestId),
      ["prev-1", fresh.requestId, "old-2"],
    );
  } finally {
    await store.close();
  }
}

Deno.test("[token/sqlite] a request log of a row per request is kept by the migration to blocks", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-log-v7-" });
  try {
    await (await openTokenStore({ dataDir: dir })).close();
    const file = new DatabaseSync(join(dir, SQLITE_FILE));
    try {
      file.exec(V7_LOG.replaceAll("BIGINT", "INTEGER"));
    } finally {
      file.close();
    }
    await assertMigrated(() => openTokenStore({ dataDir: dir }), (q) => {
      const other = new DatabaseSync(join(dir, SQLITE_FILE));
      try {
        other.exec(q);
      } finally {
        other.close();
      }
      return Promise.resolve();
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "[token/postgres] a request log of a row per request is kept by the migration to blocks",
  ignore: pgIgnored(),
  async fn() {
    const pg = await freshPgSchema();
    try {
      await (await openTokenStore({ dataDir: "", databaseUrl: pg.url })).close();
      const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(V7_LOG);
      } finally {
        await sql.end();
      }
      await assertMigrated(
        () => openTokenStore({ dataDir: "", databaseUrl: pg.url }),
        async (q) => {
          const other = postgres(pg.url, { max: 1, onnotice: () => {} });
          try {
            await other.unsafe(q);
          } finally {
            await other.end();
          }
        },
      );
    } finally {
      await pg.drop();
    }
  },
});
