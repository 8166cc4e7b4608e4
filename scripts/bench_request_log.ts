/**
 * The request log's storage, per entry (BENCHMARKS.md § The profile, the request log in blocks):
 * what the writer thread does with a batch, timed in one process on a SQLite file of the token
 * store's schema, against baselines measured in the same run.
 *
 * 1. Storing: a batch written as a row per request into a table with the two indexes the log
 *    had (`(integrator_id, at)` and `(at)`), against the same batch as blocks
 *    (`request_log_blocks`, src/token/store/log_blocks.ts), both in one transaction a batch,
 *    `synchronous=NORMAL` as the writer thread commits.
 * 2. Crossing to the thread: a batch copied as an array of 8 values an entry
 *    (`structuredClone`, what `postMessage` does) against the same batch as JSON text, each
 *    with what the thread then does to group it into blocks.
 *
 * 64,000 entries of 50 keys, in batches of `--batch` (default 1,000); prints µs per entry.
 *
 *   deno run -A scripts/bench_request_log.ts [--batch 1000]
 * @module
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { BLOCK_SPAN_MS, packEntries, requestLogBlocks } from "../src/token/store/log_blocks.ts";
import { SQLITE_BLOCK_INSERT } from "../src/token/store/log_writer.ts";
import { openTokenStore, SQLITE_FILE } from "../src/token/store/open_store.ts";
import type { RequestLogEntry } from "../src/token/store/mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { batch: { type: "string", default: "1000" } },
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
}));
const batches: unknown[][] = [];
for (let i = 0; i < N; i += BATCH) batches.push(packEntries(entries.slice(i, i + BATCH)));

/** A fresh store file (every migration applied) and a connection as the writer thread opens it. */
async function freshFile(): Promise<{ db: DatabaseSync; done: () => Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "svc-bench-log-" });
  await (await openTokenStore({ dataDir: dir })).close();
  const db = new DatabaseSync(join(dir, SQLITE_FILE));
  db.exec("PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;");
  return { db, done: () => (db.close(), Deno.remove(dir, { recursive: true })) };
}

/** µs per entry of `fn` over every batch. */
function perEntry(fn: (batch: unknown[]) => void): number {
  const t = performance.now();
  for (const b of batches) fn(b);
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
  const us = perEntry((b) => {
    db.exec("BEGIN IMMEDIATE");
    for (let i = 0; i < b.length; i += 8) {
      insert.run(
        b[i] as number,
        b[i + 1] as string,
        b[i + 2] as string,
        b[i + 3] as string,
        b[i + 4] as string,
        b[i + 5] as number,
        b[i + 6] as string | null,
        b[i + 7] as string,
      );
    }
    db.exec("COMMIT");
  });
  await done();
  return us;
}

async function blocks(): Promise<number> {
  const { db, done } = await freshFile();
  const insert = db.prepare(SQLITE_BLOCK_INSERT);
  const us = perEntry((b) => {
    const bl = requestLogBlocks(b, BLOCK_SPAN_MS) as (string | number)[];
    db.exec("BEGIN IMMEDIATE");
    for (let i = 0; i < bl.length; i += 7) insert.run(...bl.slice(i, i + 7));
    db.exec("COMMIT");
  });
  await done();
  return us;
}

const results: Record<string, number[]> = {};
const note = (k: string, v: number) => (results[k] ??= []).push(v);
for (let round = 0; round < 5; round++) {
  note("rows", await rowsPerRequest());
  note("blocks", await blocks());
  note("clone", perEntry((b) => requestLogBlocks(structuredClone(b), BLOCK_SPAN_MS)));
  note(
    "json",
    perEntry((b) =>
      requestLogBlocks(JSON.parse(structuredClone(JSON.stringify(b))), BLOCK_SPAN_MS)
    ),
  );
}
const med = (k: string) => [...results[k]!].sort((a, b) => a - b)[2]!;
console.log(`\n${N} entries, batches of ${BATCH}, median of 5 rounds, µs per entry\n`);
console.log("| subject | µs per entry | ÷ baseline |");
console.log("|---|---|---|");
console.log(
  `| store: a row per request, two indexes (baseline) | ${med("rows").toFixed(2)} | 1.00 |`,
);
console.log(
  `| store: blocks (grouping and JSON included) | ${med("blocks").toFixed(2)} | ${
    (med("blocks") / med("rows")).toFixed(2)
  } |`,
);
console.log(
  `| to the thread: structuredClone of 8 values an entry, then grouped (baseline) | ${
    med("clone").toFixed(2)
  } | 1.00 |`,
);
console.log(
  `| to the thread: JSON text, parsed, then grouped | ${med("json").toFixed(2)} | ${
    (med("json") / med("clone")).toFixed(2)
  } |`,
);
