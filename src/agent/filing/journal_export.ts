/**
 * The journal's export (docs/journal.md § Export): rows as CSV (src/csv.ts: RFC 4180, CRLF,
 * spreadsheet formulas neutralised) or JSON — `journal export` and the console's Filings page.
 * @module
 */
import type { FilingRecord } from "./journal_schema.ts";

/** The CSV columns of {@link exportJournal}, in order (docs/journal.md § Export). */
export const JOURNAL_CSV_COLUMNS = [
  "id",
  "createdAt",
  "typeId",
  "eik",
  "period",
  "batchId",
  "state",
  "success",
  "documentId",
  "incomeNumber",
  "submissionDate",
  "errorCode",
  "errorMessage",
  "senderId",
  "mode",
  "filesSha256",
  "sentAt",
  "answeredAt",
  "retryAfter",
  "resolution",
  "resolvedBy",
  "resolvedAt",
  "retryOf",
] as const;

/**
 * Export rows as CSV (src/csv.ts: RFC 4180, CRLF, spreadsheet formulas neutralised) or JSON.
 * The CSV writer loads on first use: the resident agent does not carry it.
 * @param rows journal rows
 * @param format "csv" or "json"
 * @returns the text (CSV: a header line, then one line per row)
 */
export async function exportJournal(
  rows: readonly FilingRecord[],
  format: "csv" | "json",
): Promise<string> {
  if (format === "json") return JSON.stringify(rows, null, 2) + "\n";
  const { toCsv } = await import("../../csv.ts");
  return toCsv(JOURNAL_CSV_COLUMNS, rows.map((r) => JOURNAL_CSV_COLUMNS.map((c) => r[c])));
}
