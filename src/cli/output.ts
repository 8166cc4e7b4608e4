/**
 * How commands print: a line, a JSON document (`--json`), a table or a record for people, and the
 * one sentence of a failure (docs/cli.md § Exit codes).
 * @module
 */
import { errorMessage } from "../error_message.ts";
import { jsonLogger, type Logger } from "../log.ts";
import type { CliContext } from "./context.ts";

/**
 * Print one line on standard output.
 * @param cli the context
 * @param text the line (a newline is added)
 */
export function say(cli: Pick<CliContext, "stdout">, text: string): void {
  cli.stdout(text + "\n");
}

/**
 * Print one line on standard error (notes that are not the command's data).
 * @param cli the context
 * @param text the line (a newline is added)
 */
export function note(cli: Pick<CliContext, "stderr">, text: string): void {
  cli.stderr(text + "\n");
}

/**
 * Print a JSON document (2-space indent) on standard output.
 * @param cli the context
 * @param value the document
 */
export function printJson(cli: Pick<CliContext, "stdout">, value: unknown): void {
  cli.stdout(JSON.stringify(value, null, 2) + "\n");
}

/** One value for a table cell or a record line: `-` for null, lists comma-separated. */
function cell(v: unknown): string {
  if (v === null || v === undefined || v === "") return "-";
  if (Array.isArray(v)) return v.length ? v.map(cell).join(",") : "-";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/**
 * Render rows as an aligned table with a header line.
 * @param rows the rows
 * @param columns the fields shown, in order
 * @returns the text (no trailing newline)
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(renderTable([{ id: "a", n: 1 }], ["id", "n"]), "id  n\na   1");
 * ```
 */
export function renderTable(
  rows: readonly Record<string, unknown>[],
  columns: readonly string[],
): string {
  const grid = [columns.slice(), ...rows.map((r) => columns.map((c) => cell(r[c])))];
  // non-null: every row of grid has one cell per column
  const widths = columns.map((_, i) => Math.max(...grid.map((row) => row[i]!.length)));
  return grid.map((row) =>
    // non-null: widths has one width per column, and a row one cell per column
    row.map((v, i) => i === row.length - 1 ? v : v.padEnd(widths[i]!))
      .join("  ")
  ).join("\n");
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Render a record as `field: value` lines; nested records indent, lists of records become
 * tables.
 * @param value the record
 * @param indent the prefix of every line
 * @returns the text (no trailing newline)
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const text = renderRecord({ id: "k1", eiks: ["1", "2"], owner: { id: "a" } });
 * equal(text, "id: k1\neiks: 1,2\nowner:\n  id: a");
 * ```
 */
export function renderRecord(value: Record<string, unknown>, indent = ""): string {
  const lines: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (isRecord(v)) {
      lines.push(`${indent}${k}:`, renderRecord(v, indent + "  "));
    } else if (Array.isArray(v) && v.length && v.every(isRecord)) {
      const columns = [...new Set(v.flatMap((r) => Object.keys(r)))];
      lines.push(
        `${indent}${k}:`,
        ...renderTable(v, columns).split("\n").map((l) => indent + "  " + l),
      );
    } else lines.push(`${indent}${k}: ${cell(v)}`);
  }
  return lines.join("\n");
}

/** An AppError of src/contract, recognised by its shape. */
interface AppErrorLike extends Error {
  readonly code: string;
  readonly details?: Record<string, unknown>;
}
/**
 * Whether `e` is an AppError (by shape: the CLI's modules must not load the contract's schemas
 * before a command needs them).
 * @param e what was thrown
 * @returns true for an AppError
 */
export const isAppError = (e: unknown): e is AppErrorLike =>
  e instanceof Error && e.name === "AppError" && typeof (e as { code?: unknown }).code === "string";

/**
 * The one line a failed command prints: `Failed (CODE): message` for an AppError, else the
 * error's message with its lines joined (a config error lists every invalid variable).
 * @param e what was thrown
 * @returns one line, no stack trace
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const e = new Error("Invalid configuration:\n  SVC_AGENT_PORT: bad");
 * equal(failureText(e), "Invalid configuration: SVC_AGENT_PORT: bad");
 * ```
 */
export function failureText(e: unknown): string {
  const text = errorMessage(e);
  const [first = "", ...rest] = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const joined = rest.length
    ? `${first}${first.endsWith(":") ? "" : ":"} ${rest.join("; ")}`
    : first;
  const line = joined || (e instanceof Error ? e.name : "Unknown error");
  return isAppError(e) ? `Failed (${e.code}): ${line}` : line;
}

/**
 * The JSON of a failed admin/--json command (the admin API's error body): `{error, errorCode,
 * ...details}`.
 * @param e what was thrown
 * @returns one line of JSON
 */
export function failureJson(e: unknown): string {
  if (isAppError(e)) {
    return JSON.stringify({ error: e.message, errorCode: e.code, ...(e.details ?? {}) });
  }
  return JSON.stringify({ error: failureText(e) });
}

/**
 * The JSON-lines logger of the servers, on the context's standard error.
 * @param cli the context
 * @param level the lowest level written (SVC_LOG_LEVEL)
 * @returns the logger
 */
export function cliLogger(
  cli: Pick<CliContext, "stderr">,
  level: "debug" | "info" | "warn" | "error" = "info",
): Logger {
  return jsonLogger((line) => cli.stderr(line + "\n"), level);
}
