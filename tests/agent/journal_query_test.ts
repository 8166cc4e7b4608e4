/**
 * The console's journal view (docs/journal.md § Queries): filters, newest-first keyset pages
 * (equal timestamps included), malformed cursors and filters, the export of a filtered view,
 * integrators since a date, and the migration of version-1 (and version-0) files to the
 * indexes added at open (version 1 kept). Real SQLite files in a temp dir; no timings (scripts/bench_journal.ts).
 */
import { deepStrictEqual, equal, ok, throws } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { type AppError, isAppError } from "../../src/contract/errors.ts";
import { exportJournal } from "../../src/agent/filing/journal_export.ts";
import {
  type FilingRecord,
  type FilingState,
  Journal,
  type JournalQuery,
  type NewFiling,
} from "../../src/agent/filing/journal.ts";
import {
  checkQuery,
  countSql,
  encodeCursor,
  pageSql,
} from "../../src/agent/filing/journal_query.ts";
import { JOURNAL_VERSION } from "../../src/agent/filing/journal_schema.ts";

const A = "121212121";
const B = "203456783";
const C = "7501010018"; // an EGN: 10 digits

/** A journal file in a fresh temp dir, removed at the end of the test. */
async function tempJournal(): Promise<
  { path: string; open(): Journal; [Symbol.asyncDispose](): Promise<void> }
> {
  const dir = await Deno.makeTempDir({ prefix: "svc-journal-query-" });
  const opened: Journal[] = [];
  return {
    path: `${dir}/journal.sqlite`,
    open() {
      const j = new Journal(`${dir}/journal.sqlite`);
      opened.push(j);
      return j;
    },
    async [Symbol.asyncDispose]() {
      for (const j of opened) {
        try {
          j.close();
        } catch { /* closed by the test */ }
      }
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function filing(id: string, over: Partial<NewFiling> = {}): NewFiling {
  return {
    id,
    idempotencyKey: `k-${id}`,
    typeId: "dec1_6",
    kind: "dec1_6",
    eik: A,
    period: "2026-08",
    batchId: null,
    filesSha256: null,
    files: [],
    senderId: "ivan",
    mode: "test",
    integrator: "acme",
    request: { eik: over.eik ?? A },
    ...over,
  };
}

/** Put a row in a state through the journal's own calls. */
function toState(j: Journal, id: string, state: FilingState, at: Date): void {
  if (state === "pending") return;
  j.markSent(id, at);
  if (state === "filed" || state === "refused") {
    j.answer(id, {
      success: state === "filed",
      documentId: state === "filed" ? `d-${id}` : null,
      incomeNumber: null,
      submissionDate: null,
      errorMessage: state === "filed" ? null : "=refused",
      nativeErrors: [],
    }, at);
  } else if (state === "not_filed") j.notFiled(id, "PORTAL_UNREACHABLE", "no route", at);
}

const ids = (rows: readonly FilingRecord[]) => rows.map((r) => r.id);

/** The newest-first order the view promises. */
const newestFirst = (rows: readonly FilingRecord[]) =>
  [...rows].sort((x, y) =>
    x.createdAt === y.createdAt
      ? (x.id < y.id ? 1 : x.id > y.id ? -1 : 0)
      : (x.createdAt < y.createdAt ? 1 : -1)
  );

/** Every page of a view, following `next`. */
function allPages(j: Journal, q: JournalQuery): { rows: FilingRecord[]; pages: number } {
  const rows: FilingRecord[] = [];
  let before: string | undefined;
  let pages = 0;
  for (;;) {
    const p = j.page({ ...q, before });
    pages++;
    rows.push(...p.rows);
    if (p.next === null) return { rows, pages };
    ok(pages < 1000, "the pages never end");
    before = p.next;
  }
}

function invalidField(f: () => unknown, field: string): void {
  throws(f, (e: unknown) => {
    ok(isAppError(e), String(e));
    const a = e as AppError;
    equal(a.code, "JOURNAL_QUERY_INVALID");
    equal(a.status, 400);
    equal(a.kind, "PARAMETER");
    deepStrictEqual(a.details, { field });
    return true;
  });
}

Deno.test("Journal.page filters by EIK, period and state, newest first, with the matching total", async () => {
  await using t = await tempJournal();
  const j = t.open();
  const rows: [string, string, string | null, FilingState][] = [
    ["a1", A, "2026-08", "filed"],
    ["a2", A, "2026-09", "refused"],
    ["a3", A, "2026", "unknown"],
    ["b1", B, "2026-08", "filed"],
    ["b2", B, "2026-09", "not_filed"],
    ["c1", C, null, "pending"],
    ["c2", C, "2026-08", "filed"],
  ];
  rows.forEach(([id, eik, period, state], i) => {
    const at = new Date(Date.UTC(2026, 9, 1, 8, 0, i));
    j.begin(filing(id, { eik, period }), at);
    toState(j, id, state, at);
  });
  const view = (q: JournalQuery) => {
    const p = j.page(q);
    return { ids: ids(p.rows), total: p.total, next: p.next };
  };
  deepStrictEqual(view({}), {
    ids: ["c2", "c1", "b2", "b1", "a3", "a2", "a1"],
    total: 7,
    next: null,
  });
  deepStrictEqual(view({ eik: A }), { ids: ["a3", "a2", "a1"], total: 3, next: null });
  deepStrictEqual(view({ eik: C }), { ids: ["c2", "c1"], total: 2, next: null });
  deepStrictEqual(view({ period: "2026-08" }), { ids: ["c2", "b1", "a1"], total: 3, next: null });
  deepStrictEqual(view({ period: "2026" }), { ids: ["a3"], total: 1, next: null }); // not a prefix
  deepStrictEqual(view({ state: "filed" }), { ids: ["c2", "b1", "a1"], total: 3, next: null });
  deepStrictEqual(view({ state: "unknown" }), { ids: ["a3"], total: 1, next: null });
  deepStrictEqual(view({ eik: A, state: "filed" }), { ids: ["a1"], total: 1, next: null });
  deepStrictEqual(view({ period: "2026-09", state: "not_filed" }), {
    ids: ["b2"],
    total: 1,
    next: null,
  });
  deepStrictEqual(view({ eik: B, period: "2026-08", state: "filed" }), {
    ids: ["b1"],
    total: 1,
    next: null,
  });
  deepStrictEqual(view({ eik: B, state: "unknown" }), { ids: [], total: 0, next: null });
  // An empty filter (a form's empty field) is no filter.
  deepStrictEqual(view({ eik: "", period: "", state: "" as FilingState, before: "" }), view({}));
  // A page of 2: the total is still every matching row.
  const first = j.page({ limit: 2 });
  deepStrictEqual([ids(first.rows), first.total], [["c2", "c1"], 7]);
  ok(first.next);
  // The rows are whole records.
  const a1 = j.page({ eik: A, state: "filed" }).rows[0]!;
  deepStrictEqual(a1, j.get("a1"));
  equal(a1.documentId, "d-a1");
});

Deno.test("Journal.page: cursors walk every row once across pages of equal timestamps, and newer rows do not shift them", async () => {
  await using t = await tempJournal();
  const j = t.open();
  // 37 rows over 4 instants: most pages start and end inside a run of equal created_at.
  const instants = [0, 1, 2, 3].map((s) => new Date(Date.UTC(2026, 9, 1, 8, 0, s)));
  for (let i = 0; i < 37; i++) {
    const id = `r${String((i * 7919) % 1000).padStart(3, "0")}`; // ids not in insertion order
    const at = instants[i % 4]!;
    j.begin(filing(id, { eik: i % 3 === 0 ? B : A, period: "2026-08" }), at);
    toState(j, id, i % 5 === 0 ? "refused" : "filed", at);
  }
  const every = j.exportRows({});
  equal(every.length, 37);
  deepStrictEqual(ids(every), ids(newestFirst(every)));
  for (const limit of [1, 2, 5, 10, 36, 37, 50]) {
    const { rows, pages } = allPages(j, { limit });
    deepStrictEqual(ids(rows), ids(every), `limit ${limit}`);
    equal(pages, Math.max(1, Math.ceil(37 / limit)), `limit ${limit}`);
  }
  for (
    const q of [{ eik: B }, { state: "refused" as const }, { eik: A, state: "filed" as const }]
  ) {
    const want = every.filter((r) =>
      r.eik === (q.eik ?? r.eik) && r.state === (q.state ?? r.state)
    );
    ok(want.length > 3);
    const { rows } = allPages(j, { ...q, limit: 3 });
    deepStrictEqual(ids(rows), ids(want), JSON.stringify(q));
    equal(j.page({ ...q, limit: 3 }).total, want.length);
  }
  // A page, then a newer filing, then the next page: no row is repeated or skipped.
  const p1 = j.page({ limit: 10 });
  j.begin(filing("zz-new"), new Date(Date.UTC(2026, 9, 2)));
  const p2 = j.page({ limit: 10, before: p1.next! });
  deepStrictEqual([...ids(p1.rows), ...ids(p2.rows)], ids(every).slice(0, 20));
  equal(p2.total, 38);
  equal(j.page({}).rows[0]!.id, "zz-new");
  // The last page: exactly `limit` rows left gives next null (no empty page after it).
  const tail = j.page({ limit: 3, before: encodeCursor(every.at(-4)!) });
  deepStrictEqual([ids(tail.rows), tail.next], [ids(every.slice(-3)), null]);
});

Deno.test("Journal.page refuses a malformed cursor, filter or limit with JOURNAL_QUERY_INVALID", async () => {
  await using t = await tempJournal();
  const j = t.open();
  j.begin(filing("f1"), new Date("2026-10-01T08:00:00Z"));
  const good = encodeCursor({ createdAt: "2026-10-01T08:00:00.000Z", id: "f1" });
  equal(j.page({ before: good }).rows.length, 0);
  const b64 = (s: string) =>
    new TextEncoder().encode(s).toBase64({ alphabet: "base64url", omitPadding: true });
  for (
    const before of [
      "not a cursor",
      "%%%",
      "abc=", // padding is not ours
      b64("hello"), // not JSON
      b64('[2,"2026-10-01T08:00:00.000Z","f1"]'), // another version
      b64('[1,"yesterday","f1"]'),
      b64('[1,"2026-10-01T08:00:00.000Z",""]'),
      b64('[1,"2026-10-01T08:00:00.000Z",7]'),
      b64('{"t":"2026-10-01T08:00:00.000Z"}'),
      good.slice(0, -3), // cut short
      "A".repeat(600),
      7 as unknown as string,
    ]
  ) invalidField(() => j.page({ before }), "before");
  for (const eik of ["12", "12345678901234", "12121212x", " 121212121"]) {
    invalidField(() => j.page({ eik }), "eik");
  }
  for (const period of ["2026-13", "2026-00", "202608", "26-08", "2026-8", "2026-08-01"]) {
    invalidField(() => j.page({ period }), "period");
  }
  for (const state of ["sent", "answered", "FILED", 1]) {
    invalidField(() => j.page({ state: state as FilingState }), "state");
  }
  for (const limit of [0, -1, 501, 1.5, NaN, "50"]) {
    invalidField(() => j.page({ limit: limit as number }), "limit");
  }
  invalidField(() => j.page(null as unknown as JournalQuery), "query");
  invalidField(() => j.exportRows({ state: "sent" as FilingState }), "state");
  invalidField(() => j.integrators(new Date("not a date")), "since");
  // The limits themselves are fine.
  equal(j.page({ limit: 1 }).rows.length, 1);
  equal(j.page({ limit: 500 }).rows.length, 1);
});

Deno.test("Journal.exportRows exports exactly the filtered view, newest first, CSV formulas guarded", async () => {
  await using t = await tempJournal();
  const j = t.open();
  for (let i = 0; i < 12; i++) {
    const at = new Date(Date.UTC(2026, 9, 1, 8, 0, i));
    const id = `e${String(i).padStart(2, "0")}`;
    j.begin(filing(id, { eik: i % 2 ? A : B, senderId: i === 3 ? "=cmd()" : "ivan" }), at);
    toState(j, id, i % 3 ? "filed" : "refused", at);
  }
  const q = { eik: A, state: "refused" as const, before: "ignored", limit: 1 };
  const view = j.exportRows(q);
  deepStrictEqual(ids(view), ["e09", "e03"]);
  deepStrictEqual(ids(view), ids(allPages(j, { eik: A, state: "refused", limit: 1 }).rows));
  const csv = await exportJournal(view, "csv");
  const lines = csv.split("\r\n");
  equal(lines.length, 4); // header, two rows, the final CRLF
  ok(lines[0]!.startsWith("id,createdAt,typeId,eik,period"));
  ok(lines[1]!.startsWith(`e09,2026-10-01T08:00:09.000Z,dec1_6,${A},2026-08,,refused,false`));
  ok(lines[2]!.includes(",'=cmd()"), lines[2]); // the formula guard
  ok(lines[2]!.includes(",'=refused,"), lines[2]);
  deepStrictEqual(ids(JSON.parse(await exportJournal(view, "json"))), ["e09", "e03"]);
  equal(j.exportRows({}).length, 12);
});

Deno.test("Journal.integrators lists who filed since a date, most recently active first", async () => {
  await using t = await tempJournal();
  const j = t.open();
  const at = (d: number, h = 8) => new Date(Date.UTC(2026, 9, d, h));
  const rows: [string, string | null, Date, FilingState][] = [
    ["i1", "acme", at(1), "filed"],
    ["i2", "acme", at(5), "refused"],
    ["i3", "books-ltd", at(3), "filed"],
    ["i4", "books-ltd", at(4), "not_filed"],
    ["i5", "books-ltd", at(4, 9), "filed"],
    ["i6", null, at(6), "filed"], // no integrator claim
    ["i7", "old-one", at(1, 7), "filed"],
  ];
  for (const [id, integrator, when, state] of rows) {
    j.begin(filing(id, { integrator }), when);
    toState(j, id, state, when);
  }
  deepStrictEqual(j.integrators(at(1, 8)), [
    { integrator: "acme", lastAt: "2026-10-05T08:00:00.000Z", filings: 2 },
    { integrator: "books-ltd", lastAt: "2026-10-04T09:00:00.000Z", filings: 3 },
  ]);
  deepStrictEqual(j.integrators(at(4, 9)), [
    { integrator: "acme", lastAt: "2026-10-05T08:00:00.000Z", filings: 1 },
    { integrator: "books-ltd", lastAt: "2026-10-04T09:00:00.000Z", filings: 1 },
  ]);
  equal(j.integrators(at(1, 0)).length, 3);
  deepStrictEqual(j.integrators(at(7)), []);
});

Deno.test("The views' SQL walks one index from the cursor, in order: no sort, no OFFSET", async () => {
  await using t = await tempJournal();
  t.open().close();
  const db = new DatabaseSync(t.path);
  try {
    const before = encodeCursor({ createdAt: "2026-10-01T08:00:00.000Z", id: "x" });
    const cases: [JournalQuery, string][] = [
      [{}, "filings_newest"],
      [{ before }, "filings_newest"],
      [{ eik: A, before }, "filings_eik_newest"],
      [{ eik: A, state: "filed", period: "2026-08", before }, "filings_eik_newest"],
      [{ period: "2026-08", before }, "filings_period_newest"],
      [{ period: "2026-08", state: "unknown", before }, "filings_period_newest"],
      [{ state: "filed", before }, "filings_state_newest"],
    ];
    for (const [q, index] of cases) {
      const c = checkQuery(q);
      const { sql, params } = pageSql(c);
      ok(!/OFFSET/i.test(sql));
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
        .map((r) => r.detail).join(" | ");
      ok(plan.includes(`USING INDEX ${index}`), `${JSON.stringify(q)}: ${plan}`);
      ok(!plan.includes("TEMP B-TREE"), `${JSON.stringify(q)}: ${plan}`);
      if (q.before) ok(plan.includes("(created_at,id)<(?,?)"), `${JSON.stringify(q)}: ${plan}`);
      // The total: the tally of states, or the leading filter's index alone (no table row).
      const count = countSql(c);
      const countPlan = (db.prepare(`EXPLAIN QUERY PLAN ${count.sql}`).all(...count.params) as {
        detail: string;
      }[]).map((r) => r.detail).join(" | ");
      ok(
        q.eik || q.period
          ? countPlan.includes(`USING COVERING INDEX ${index}`)
          : countPlan.includes("filings_tally"),
        `${JSON.stringify(q)}: ${countPlan}`,
      );
    }
    const integrators = (db.prepare(
      "EXPLAIN QUERY PLAN SELECT integrator, MAX(created_at), COUNT(*) FROM filings INDEXED BY filings_newest WHERE created_at >= ? AND integrator IS NOT NULL GROUP BY integrator",
    ).all("2026") as { detail: string }[]).map((r) => r.detail).join(" | ");
    ok(integrators.includes("USING COVERING INDEX filings_newest"), integrators);
  } finally {
    db.close();
  }
});

Deno.test("The total follows every write: the tally of states matches the rows", async () => {
  await using t = await tempJournal();
  const j = t.open();
  const at = new Date("2026-10-01T08:00:00Z");
  const check = (label: string) => {
    const all = j.exportRows({});
    equal(j.page({}).total, all.length, label);
    for (const state of ["pending", "unknown", "filed", "refused", "not_filed"] as const) {
      equal(
        j.page({ state }).total,
        all.filter((r) => r.state === state).length,
        `${label} ${state}`,
      );
    }
  };
  check("empty");
  for (const id of ["p", "u", "f", "r", "n", "x", "y"]) j.begin(filing(id), at);
  j.begin(filing("dup", { idempotencyKey: "k-p" }), at); // the key exists: no row
  check("begun");
  for (const id of ["u", "f", "r", "n", "x", "y"]) j.markSent(id, at);
  j.markSent("u", at); // not pending any more: no change
  check("sent");
  toState(j, "f", "filed", at);
  toState(j, "r", "refused", at);
  j.notFiled("n", "PORTAL_UNREACHABLE", "no route", at);
  j.unknownOutcome("u", "PORTAL_TIMEOUT", "late", at);
  j.refuse("x", "PORTAL_REJECTED", "429", at, new Date("2026-10-01T09:00:00Z"));
  check("answered");
  j.resolve("y", { filed: false }, "ivan", at);
  j.resolve("f", { filed: false }, "ivan", at); // not unknown: no change
  check("resolved");
  j.reopen("y", "ivan");
  j.reopen("n", "ivan");
  check("reopened");
  j.supersede("r", filing("r2", { idempotencyKey: "k-r" }), at);
  check("superseded");
  deepStrictEqual(j.page({}).total, 8);
  j.close();
  // Another writer of the same file (the CLI's `journal resolve`): the triggers count for it too.
  const db = new DatabaseSync(t.path);
  db.prepare("UPDATE filings SET state = 'filed' WHERE id = 'u'").run();
  db.prepare("DELETE FROM filings WHERE id = 'x'").run();
  db.close();
  const again = t.open();
  deepStrictEqual(
    [
      again.page({}).total,
      again.page({ state: "filed" }).total,
      again.page({ state: "unknown" }).total,
    ],
    [7, 2, 0],
  );
});

/** The table and indexes exactly as version-1 agents wrote them. */
const V1_TABLE = `
CREATE TABLE filings (
  id TEXT PRIMARY KEY, idempotency_key TEXT UNIQUE, type_id TEXT NOT NULL, kind TEXT NOT NULL,
  eik TEXT NOT NULL, period TEXT, batch_id TEXT, files_sha256 TEXT, files_json TEXT NOT NULL,
  sender_id TEXT, mode TEXT NOT NULL, integrator TEXT, request_json TEXT NOT NULL,
  state TEXT NOT NULL, created_at TEXT NOT NULL, sent_at TEXT, answered_at TEXT,
  document_id TEXT, income_number TEXT, submission_date TEXT, success INTEGER,
  error_code TEXT, error_message TEXT, result_json TEXT,
  retry_after TEXT, resolution TEXT, resolved_by TEXT, resolved_at TEXT, retry_of TEXT
);
CREATE INDEX filings_state ON filings(state);
CREATE INDEX filings_created ON filings(created_at);
CREATE INDEX filings_match ON filings(eik, kind);
PRAGMA user_version = 1;
`;

const indexesOf = (db: DatabaseSync) =>
  (db.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'filings' AND sql IS NOT NULL ORDER BY name",
  ).all() as { name: string }[]).map((r) => r.name);

const triggersOf = (db: DatabaseSync) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all() as {
    name: string;
  }[]).map((r) => r.name);

const WANT_TRIGGERS = ["filings_tally_delete", "filings_tally_insert", "filings_tally_update"];

const versionOf = (db: DatabaseSync) =>
  Number((db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version);

const WANT_INDEXES = [
  "filings_eik_newest",
  "filings_match",
  "filings_newest",
  "filings_period_newest",
  "filings_state_newest",
];

Deno.test("Journal adds the views' indexes, the tally and the protocols to a version-1 file, which stays version 1 (a rolled-back agent still opens it), the rows untouched", async () => {
  equal(JOURNAL_VERSION, 1);
  await using t = await tempJournal();
  const old = new DatabaseSync(t.path);
  old.exec(V1_TABLE);
  const insert = old.prepare(
    `INSERT INTO filings (id, idempotency_key, type_id, kind, eik, period, files_json, mode,
      integrator, request_json, state, created_at, resolution, resolved_by, resolved_at)
     VALUES (?, ?, 'dec1_6', 'dec1_6', ?, '2026-08', '[]', 'live', 'acme', '{}', ?, ?, ?, ?, ?)`,
  );
  insert.run("v1", "k1", A, "filed", "2026-09-01T08:00:00.000Z", null, null, null);
  insert.run("v2", "k2", B, "unknown", "2026-09-01T08:00:00.000Z", null, null, null);
  insert.run("v3", null, A, "filed", "2026-09-02T08:00:00.000Z", "filed", "ivan", "2026-09-03");
  const before = old.prepare("SELECT * FROM filings ORDER BY id").all();
  old.close();

  const j = t.open();
  deepStrictEqual(ids(j.page({}).rows), ["v3", "v2", "v1"]);
  deepStrictEqual(
    [j.page({}).total, j.page({ state: "filed" }).total, j.page({ state: "unknown" }).total],
    [3, 2, 1],
  ); // the tally, counted by the migration
  deepStrictEqual(ids(j.page({ eik: A }).rows), ["v3", "v1"]);
  const p = j.page({ limit: 1 });
  deepStrictEqual(ids(j.page({ limit: 2, before: p.next! }).rows), ["v2", "v1"]);
  equal(j.get("v3")!.resolvedBy, "ivan");
  equal(j.byKey("k2")!.state, "unknown");
  deepStrictEqual(j.integrators(new Date("2026-01-01")), [
    { integrator: "acme", lastAt: "2026-09-02T08:00:00.000Z", filings: 3 },
  ]);
  j.close();

  const db = new DatabaseSync(t.path);
  try {
    equal(versionOf(db), 1);
    deepStrictEqual(indexesOf(db), WANT_INDEXES);
    deepStrictEqual(triggersOf(db), WANT_TRIGGERS);
    // The rows are untouched; the `origin` column is added to them, empty.
    const after = db.prepare("SELECT * FROM filings ORDER BY id").all();
    deepStrictEqual(after.map((r) => r.origin), before.map(() => null));
    deepStrictEqual(after.map(({ origin: _, ...r }) => r), before.map((r) => ({ ...r })));
  } finally {
    db.close();
  }
  // Opening it again (the CLI while the agent runs) changes nothing; writing still works.
  const again = t.open();
  again.begin(filing("new"), new Date("2026-10-01T00:00:00Z"));
  deepStrictEqual(ids(again.page({ eik: A }).rows), ["new", "v3", "v1"]);
  again.close();
  const db2 = new DatabaseSync(t.path);
  try {
    equal(versionOf(db2), 1);
    deepStrictEqual(indexesOf(db2), WANT_INDEXES);
  } finally {
    db2.close();
  }
});

Deno.test("Journal: a new file and a version-0 file get the same indexes, tally and protocols table (version 1); a newer file is refused", async () => {
  {
    await using t = await tempJournal();
    t.open().close();
    const db = new DatabaseSync(t.path);
    deepStrictEqual([versionOf(db), indexesOf(db), triggersOf(db)], [
      1,
      WANT_INDEXES,
      WANT_TRIGGERS,
    ]);
    db.close();
  }
  {
    await using t = await tempJournal();
    const old = new DatabaseSync(t.path);
    old.exec(`CREATE TABLE filings (
      id TEXT PRIMARY KEY, idempotency_key TEXT UNIQUE, type_id TEXT NOT NULL, kind TEXT NOT NULL,
      eik TEXT NOT NULL, period TEXT, batch_id TEXT, files_sha256 TEXT, files_json TEXT NOT NULL,
      sender_id TEXT, mode TEXT NOT NULL, integrator TEXT, request_json TEXT NOT NULL,
      state TEXT NOT NULL, created_at TEXT NOT NULL, sent_at TEXT, answered_at TEXT,
      document_id TEXT, income_number TEXT, submission_date TEXT, success INTEGER,
      error_code TEXT, error_message TEXT, result_json TEXT);
      CREATE INDEX filings_state ON filings(state);
      CREATE INDEX filings_created ON filings(created_at);`);
    old.prepare(
      `INSERT INTO filings (id, type_id, kind, eik, files_json, mode, request_json, state,
        created_at, success) VALUES ('s', 'dec1_6', 'dec1_6', ?, '[]', 'live', '{}', 'sent',
        '2026-01-01T00:00:01Z', NULL)`,
    ).run(A);
    old.close();
    const j = t.open();
    const p = j.page({ state: "unknown" });
    deepStrictEqual([ids(p.rows), p.total], [["s"], 1]);
    j.close();
    const db = new DatabaseSync(t.path);
    deepStrictEqual([versionOf(db), indexesOf(db), triggersOf(db)], [
      1,
      WANT_INDEXES,
      WANT_TRIGGERS,
    ]);
    db.close();
  }
  {
    await using t = await tempJournal();
    t.open().close();
    const db = new DatabaseSync(t.path);
    db.exec("PRAGMA user_version = 2");
    db.close();
    throws(() => t.open(), /newer agent \(version 2\)/);
  }
});
