/**
 * The request log's cost per entry in each thread (BENCHMARKS.md § The profile, the request log
 * in blocks), timed in one process on a SQLite file of the token store's schema, against
 * baselines measured in the same run.
 *
 * 1. The writer thread (storing): a batch written as a row per request into a table with the two
 *    indexes the log had (`(integrator_id, at)` and `(at)`), against the same batch as the
 *    blocks the recorder hands over (`request_log_blocks`, src/token/store/request_log_blocks.ts), each
 *    block's body packed from its columns (src/token/store/request_log_block_body.ts) and inserted, and
 *    as the same blocks with the JSON bodies they had before (`[at, typeId, eiks, status,
 *    errorCode, requestId]` an entry); all in one transaction a batch, `synchronous=NORMAL` as
 *    the writer thread commits.
 * 2. The request thread (noting): each entry added to a `BlockBuilder` and the blocks taken
 *    once a batch, as the recorder does, against the cheapest hand-over of the same batch as
 *    text, `JSON.stringify` of the entries' objects.
 *
 * 64,000 entries of 50 keys, in batches of `--batch` (default BATCH_ROWS, 5,000, as the service
 * sends them); prints µs per entry.
 *
 *   deno run -A scripts/bench_request_log.ts [--batch 5000]
 * @module
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import {
  BLOCK_SPAN_MS,
  BlockBuilder,
  blockValues,
  requestLogBlocks,
} from "../src/token/store/request_log_blocks.ts";
import { SQLITE_BLOCK_INSERT } from "../src/token/store/request_log_writer.ts";
import { BATCH_ROWS } from "../src/token/request_log/recorder.ts";
import { openTokenStore, SQLITE_FILE } from "../src/token/store/open_store.ts";
import type { LogBlock, RequestLogEntry } from "../src/token/store/mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { batch: { type: "string", default: String(BATCH_ROWS) } },
});
const BATCH = Number(values.batch);
const N = 64_000;
const t0 = Date.now();
const entries: RequestLogEntry[] = Array.from({ length: N }, (_, i) => ({
  at: t0 + Math.floor(i / 16),
  integratorId: `int_${i % 50}`,
  keyId: `key_${i % 50}_0123456789`,
  typeId: "vat",
  eiks: "121212121",
  status: i % 10 === 0 ? 403 : 200,
  errorCode: i % 10 === 0 ? "EIK_NOT_ALLOWED" : null,
  requestId: crypto.randomUUID(),
  // As the service writes them since the body's format 2: the page origin the body named (one
  // in three requests names none) and the latency in µs.
  origin: i % 3 === 0 ? null : `https://app${i % 50}.example.com`,
  latencyMs: (40 + (i % 200)) / 1000,
}));
const batches: RequestLogEntry[][] = [];
for (let i = 0; i < N; i += BATCH) batches.push(entries.slice(i, i + BATCH));
const blockBatches: LogBlock[][] = batches.map((b) => requestLogBlocks(b, BLOCK_SPAN_MS));

/** A fresh store file (every migration applied) and a connection as the writer thread opens it. */
async function freshFile(): Promise<{ db: DatabaseSync; done: () => Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "svc-bench-log-" });
  await (await openTokenStore({ dataDir: dir })).close();
  const db = new DatabaseSync(join(dir, SQLITE_FILE));
  db.exec("PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;");
  return { db, done: () => (db.close(), Deno.remove(dir, { recursive: true })) };
}

/** µs per entry of `fn` over every batch. */
function perEntry<T>(all: readonly T[], fn: (batch: T) => void): number {
  const t = performance.now();
  for (const b of all) fn(b);
  return ((performance.now() - t) * 1000) / N;
}

async function rowsPerRequest(): Promise<number> {
  const { db, done } = await freshFile();
  db.exec(`CREATE TABLE request_log_rows (at INTEGER NOT NULL, integrator_id TEXT NOT NULL,
    key_id TEXT NOT NULL, type_id TEXT NOT NULL, eiks TEXT NOT NULL, status INTEGER NOT NULL,
    error_code TEXT, request_id TEXT NOT NULL);
    CREATE INDEX rows_integrator ON request_log_rows (integrator_id, at);
    CREATE INDEX rows_at ON request_log_rows (at);`);
  const insert = db.prepare("INSERT INTO request_log_rows VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  const us = perEntry(batches, (b) => {
    db.exec("BEGIN IMMEDIATE");
    for (const e of b) {
      insert.run(
        e.at,
        e.integratorId,
        e.keyId,
        e.typeId,
        e.eiks,
        e.status,
        e.errorCode,
        e.requestId,
      );
    }
    db.exec("COMMIT");
  });
  await done();
  return us;
}

/** A block's body as the JSON array it was before bodies were packed. */
function jsonBody(b: LogBlock): string {
  const ids = new TextDecoder().decode(b.requestIds), rows = new Array<unknown[]>(b.entries);
  for (let i = 0, start = 0; i < b.entries; start = b.requestIdEnds[i++]!) {
    const code = b.errorCode[i]!;
    rows[i] = [
      b.at[i],
      b.strings[b.typeId[i]!],
      b.strings[b.eiks[i]!],
      b.status[i],
      code < 0 ? null : b.strings[code],
      ids.slice(start, b.requestIdEnds[i]!),
    ];
  }
  return JSON.stringify(rows);
}

/** The JSON blocks' insert as the writer thread ran it before (body, no packed column). */
const JSON_BLOCK_INSERT = "INSERT INTO request_log_blocks (integrator_id, key_id, first_at, " +
  "last_at, entries, errors, body) VALUES (?, ?, ?, ?, ?, ?, ?)";

async function blocks(body: "packed" | "json"): Promise<number> {
  const { db, done } = await freshFile();
  const insert = db.prepare(body === "packed" ? SQLITE_BLOCK_INSERT : JSON_BLOCK_INSERT);
  const values = body === "packed" ? blockValues : (b: LogBlock) => {
    const v = blockValues(b);
    return [...v.slice(0, 6), jsonBody(b)];
  };
  const us = perEntry(blockBatches, (bl) => {
    db.exec("BEGIN IMMEDIATE");
    for (const b of bl) insert.run(...values(b));
    db.exec("COMMIT");
  });
  await done();
  return us;
}

const results: Record<string, number[]> = {};
const note = (k: string, v: number) => (results[k] ??= []).push(v);
for (let round = 0; round < 5; round++) {
  note("rows", await rowsPerRequest());
  note("blocks", await blocks("packed"));
  note("json blocks", await blocks("json"));
  note("json", perEntry(batches, (b) => JSON.stringify(b)));
  note(
    "builder",
    perEntry(batches, (b) => {
      const builder = new BlockBuilder(BLOCK_SPAN_MS);
      for (const e of b) {
        builder.add(
          e.integratorId,
          e.keyId,
          e.at,
          e.typeId,
          e.eiks,
          e.status,
          e.errorCode,
          e.requestId,
          e.origin ?? null,
          Math.round(e.latencyMs! * 1000),
        );
      }
      builder.take();
    }),
  );
}
const med = (k: string) => [...results[k]!].sort((a, b) => a - b)[2]!;
console.log(`\n${N} entries, batches of ${BATCH}, median of 5 rounds, µs per entry\n`);
console.log("| subject | µs per entry | ÷ baseline |");
console.log("|---|---|---|");
console.log(
  `| writer thread: a row per request, two indexes (baseline) | ${med("rows").toFixed(2)} | 1.00 |`,
);
for (const [k, what] of [["json blocks", "blocks, JSON bodies"], ["blocks", "blocks, packed"]]) {
  console.log(
    `| writer thread: ${what} | ${med(k!).toFixed(2)} | ${(med(k!) / med("rows")).toFixed(2)} |`,
  );
}
console.log(
  `| request thread: JSON.stringify of the entries (baseline) | ${med("json").toFixed(2)} | 1.00 |`,
);
console.log(
  `| request thread: BlockBuilder, added and taken | ${med("builder").toFixed(2)} | ${
    (med("builder") / med("json")).toFixed(2)
  } |`,
);
