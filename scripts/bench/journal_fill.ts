/**
 * A realistic journal for the benchmarks (scripts/bench_journal.ts, scripts/bench_console.ts):
 * the accountant's 300 clients (the first, "the big client", has 10 % of the rows), five
 * integrators, the states by a busy journal's shares, batches sharing one created_at, and the
 * JSON columns at their real size. Deterministic (a seeded PRNG).
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { prng } from "./prng.ts";

/** The accountant's 300 clients; the first one ("the big client") has 10 % of the rows. */
export const EIKS = Array.from({ length: 300 }, (_, i) => String(100_000_000 + i * 7_919));
export const BIG = EIKS[0]!;
const INTEGRATORS = ["acme-erp", "books-ltd", "payroll-pro", "tax-online", "mini-acc"];
const KINDS = ["dec1_6", "vat", "dec731", "etz62"];

/** A state by the shares a busy journal has: mostly filed, few unknown. */
function stateOf(x: number): string {
  if (x < 0.85) return "filed";
  if (x < 0.93) return "refused";
  if (x < 0.98) return "not_filed";
  if (x < 0.995) return "unknown";
  return "pending";
}

/**
 * Fill the journal file with `n` rows: 2016-01 onwards, a folder-wide batch every so often
 * (up to 20 rows with one created_at), files, request and answer JSON of the real size.
 */
export function fill(path: string, n: number): void {
  const rnd = prng(20261101);
  const db = new DatabaseSync(path);
  const insert = db.prepare(
    `INSERT INTO filings (id, idempotency_key, type_id, kind, eik, period, batch_id,
      files_sha256, files_json, sender_id, mode, integrator, request_json, state, created_at,
      sent_at, answered_at, document_id, income_number, submission_date, success, error_code,
      error_message, result_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  let t = Date.UTC(2016, 0, 4, 8);
  let sameTime = 0;
  db.exec("BEGIN");
  for (let i = 0; i < n; i++) {
    if (sameTime > 0) sameTime--;
    else {
      t += 1_000 + Math.floor(rnd() * 3_600_000);
      sameTime = rnd() < 0.1 ? Math.floor(rnd() * 20) : 0;
    }
    const at = new Date(t).toISOString();
    const eik = rnd() < 0.1 ? BIG : EIKS[1 + Math.floor(rnd() * (EIKS.length - 1))]!;
    const d = new Date(t);
    const period = `${d.getUTCFullYear()}-${
      String(1 + (d.getUTCMonth() + 11) % 12).padStart(2, "0")
    }`;
    const state = stateOf(rnd());
    const kind = KINDS[i % KINDS.length]!;
    const sha = crypto.randomUUID().replaceAll("-", "").repeat(2);
    const answered = state === "filed" || state === "refused";
    const result = answered
      ? JSON.stringify({
        success: state === "filed",
        documentId: state === "filed" ? String(1_000_000 + i) : null,
        incomeNumber: state === "filed" ? `30E${String(i).padStart(9, "0")}` : null,
        submissionDate: at,
        errorMessage: state === "refused" ? "API_FILE_FORMAT_ERROR: Невалиден формат" : null,
        nativeErrors: [],
      })
      : null;
    insert.run(
      crypto.randomUUID(),
      crypto.randomUUID(),
      kind,
      kind,
      eik,
      period,
      sameTime > 0 ? "7d0f5a52-3c3e-4a44-9d1e-0b4f0c6e2f10" : null,
      sha,
      JSON.stringify([
        { name: "DEKLAR.TXT", kind: "deklar", numRecords: 1 },
        { name: "POKUPKI.TXT", kind: "pokupki", numRecords: 1 + (i % 300) },
      ]),
      "ivan",
      "live",
      INTEGRATORS[i % INTEGRATORS.length]!,
      JSON.stringify({
        eik,
        year: d.getUTCFullYear(),
        month: 1 + d.getUTCMonth(),
        folder: "C:\\Счетоводство\\" + eik,
      }),
      state,
      at,
      state === "pending" ? null : at,
      state === "pending" ? null : at,
      state === "filed" ? String(1_000_000 + i) : null,
      state === "filed" ? `30E${String(i).padStart(9, "0")}` : null,
      answered ? at : null,
      answered ? (state === "filed" ? 1 : 0) : null,
      state === "filed" ? null : state === "refused" ? "PORTAL_REJECTED" : "PORTAL_TIMEOUT",
      state === "filed" ? null : "API_FILE_FORMAT_ERROR: Невалиден формат",
      result,
    );
  }
  db.exec("COMMIT");
  db.close();
}
