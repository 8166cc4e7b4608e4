import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { Journal } from "../../src/agent/filing/journal.ts";
import { exportJournal } from "../../src/agent/filing/journal_export.ts";
import { agentEnv, waitFor } from "../_helpers/agent_env.ts";

const EIK = "121212121";

Deno.test("[agent] retrying a filing 10 times with the same Idempotency-Key files once and answers the first answer", async () => {
  const e = await agentEnv();
  const batch = crypto.randomUUID();
  const key = crypto.randomUUID();
  const file = async () =>
    e.call("dec731", await e.token({ typeId: "dec731", eik: EIK }), { eik: EIK, year: 2025 }, {
      "x-svc-batch-id": batch,
      "idempotency-key": key,
    });
  const first = file();
  await waitFor(() => e.opened.length === 1);
  await e.decide("confirm");
  const answers = [await (await first).json()];
  for (let i = 0; i < 9; i++) {
    e.clock.advance(1500); // a later retry would otherwise get another documentId
    answers.push(await (await file()).json());
  }
  ok(answers[0].success);
  for (const a of answers) deepStrictEqual(a, answers[0]);
  const rows = e.journal.list();
  equal(rows.length, 1);
  equal(rows[0]!.state, "filed");
  equal(rows[0]!.documentId, answers[0].documentId);
  // Another key files again.
  const other = await (await e.call("dec731", await e.token({ typeId: "dec731", eik: EIK }), {
    eik: EIK,
    year: 2025,
  }, {
    "x-svc-batch-id": batch,
    "idempotency-key": crypto.randomUUID(),
  })).json();
  ok(other.documentId !== answers[0].documentId);
  equal(e.journal.list().length, 2);
});

Deno.test("[agent] without Idempotency-Key, the batch id plus the files' hash identify a filing", async () => {
  const e = await agentEnv();
  const batch = crypto.randomUUID();
  const inline = {
    files: [{
      path: "a.xml",
      contentBase64: new TextEncoder().encode("<etzemploy><eik>121212121</eik></etzemploy>")
        .toBase64(),
    }],
  };
  const send = async (b: string) =>
    (await e.call("etz62", await e.token({ typeId: "etz62", eik: EIK }), {
      eik: EIK,
      _inlineDir: inline,
    }, {
      "x-svc-batch-id": b,
    })).json();
  const p = send(batch);
  await waitFor(() => e.opened.length === 1);
  await e.decide("confirm");
  const a = await p;
  e.clock.advance(2000);
  deepStrictEqual(await send(batch), a);
  equal(e.journal.list().length, 1);
});

Deno.test("Journal keeps no file content, and exports CSV and JSON", async () => {
  const j = new Journal(":memory:");
  const now = new Date("2026-11-01T08:00:00Z");
  j.begin({
    id: "f1",
    idempotencyKey: "k1",
    typeId: "vat",
    kind: "vat",
    eik: EIK,
    period: "2026-09",
    batchId: null,
    filesSha256: "ab".repeat(32),
    files: [{ name: "DEKLAR.TXT", kind: "deklar", numRecords: 1 }],
    senderId: "ivan",
    mode: "test",
    integrator: "default",
    request: { eik: EIK, year: 2026, month: 9 },
  }, now);
  j.markSent("f1", now);
  j.answer("f1", {
    success: true,
    documentId: "123",
    incomeNumber: "30E1",
    submissionDate: now.toISOString(),
    errorMessage: null,
    nativeErrors: [],
  }, now);
  const csv = await exportJournal(j.list(), "csv");
  ok(csv.startsWith("id,createdAt,typeId,eik,period"));
  ok(csv.includes("f1,2026-11-01T08:00:00.000Z,vat,121212121,2026-09,,filed,true,123,30E1"));
  const json = JSON.parse(await exportJournal(j.list(), "json"));
  equal(json[0].state, "filed");
  equal(JSON.stringify(json).includes("contentBase64"), false);
  // A pending row of a crashed run is reported failed, and reopened by a retry.
  j.begin({ ...json[0], id: "f2", idempotencyKey: "k2" }, now);
  equal(j.inState("pending").length, 1);
});

Deno.test("exportJournal() CSV neutralises spreadsheet formulas in text cells", async () => {
  const j = new Journal(":memory:");
  const now = new Date("2026-11-01T08:00:00Z");
  j.begin({
    id: "f1",
    idempotencyKey: "k1",
    typeId: "vat",
    kind: "vat",
    eik: EIK,
    period: "2026-09",
    batchId: null,
    filesSha256: "ab".repeat(32),
    files: [],
    senderId: '=HYPERLINK("http://x")',
    mode: "test",
    integrator: "default",
    request: { eik: EIK },
  }, now);
  j.markSent("f1", now);
  j.answer("f1", {
    success: false,
    documentId: null,
    incomeNumber: null,
    submissionDate: null,
    errorMessage: '@SUM(1,2), "refused"',
    nativeErrors: [],
  }, now);
  const line = (await exportJournal(j.list(), "csv")).split("\r\n")[1]!;
  ok(line.includes(`"'@SUM(1,2), ""refused"""`), line);
  ok(line.includes(`"'=HYPERLINK(""http://x"")"`), line);
  equal(line.includes(",=HYPERLINK"), false);
});

Deno.test("Journal migrates a journal file of an earlier version: sent → unknown, answered → filed or refused, failed → not_filed", async () => {
  const { DatabaseSync } = await import("node:sqlite");
  const dir = await Deno.makeTempDir({ prefix: "svc-journal-v0-" });
  const path = `${dir}/journal.sqlite`;
  try {
    // The table as agents before the live outcomes wrote it (user_version 0).
    const old = new DatabaseSync(path);
    old.exec(`CREATE TABLE filings (
      id TEXT PRIMARY KEY, idempotency_key TEXT UNIQUE, type_id TEXT NOT NULL, kind TEXT NOT NULL,
      eik TEXT NOT NULL, period TEXT, batch_id TEXT, files_sha256 TEXT, files_json TEXT NOT NULL,
      sender_id TEXT, mode TEXT NOT NULL, integrator TEXT, request_json TEXT NOT NULL,
      state TEXT NOT NULL, created_at TEXT NOT NULL, sent_at TEXT, answered_at TEXT,
      document_id TEXT, income_number TEXT, submission_date TEXT, success INTEGER,
      error_code TEXT, error_message TEXT, result_json TEXT)`);
    const insert = old.prepare(
      `INSERT INTO filings (id, type_id, kind, eik, files_json, mode, request_json, state,
        created_at, success, error_code, error_message)
       VALUES (?, 'dec1_6', 'dec1_6', '121212121', '[]', 'live', '{}', ?, ?, ?, ?, ?)`,
    );
    insert.run("sent", "sent", "2026-01-01T00:00:01Z", null, null, null);
    insert.run("ok", "answered", "2026-01-01T00:00:02Z", 1, null, null);
    insert.run("no", "answered", "2026-01-01T00:00:03Z", 0, null, "API_X: refused");
    insert.run("failed", "failed", "2026-01-01T00:00:04Z", null, "PIN_INCORRECT", "Wrong PIN");
    old.close();
    const j = new Journal(path);
    const state = (id: string) => j.get(id)!;
    equal(state("sent").state, "unknown");
    equal(state("ok").state, "filed");
    equal(state("no").state, "refused");
    equal(state("no").errorCode, "PORTAL_REJECTED");
    equal(state("failed").state, "not_filed");
    equal(state("failed").errorCode, "PIN_INCORRECT");
    equal(state("sent").resolution, null);
    j.close();
    // Opening it again (the CLI while the agent runs) changes nothing.
    const again = new Journal(path);
    deepStrictEqual(again.list().map((r) => r.state), ["not_filed", "refused", "filed", "unknown"]);
    again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
