/**
 * Monthly statements per contract (docs/token-service.md § Access phases, phase 3: "billing is
 * monthly under the contract"), as JSON and CSV. A statement lists the tokens issued with the
 * contract in force during one UTC month, per key, typeId and EIK (a folder-wide token counts
 * once for each EIK it covers), with totals. Prices are not part of the spec; the statement is
 * the quantity basis of the invoice.
 * @module
 */
import { AppError } from "../../contract/mod.ts";
import { toCsv } from "../../csv.ts";
import type { ContractRecord, TokenStore, UsageRow } from "../store/mod.ts";
import { MONTH_RE, monthBounds } from "./billing_counts.ts";

/** One statement line. */
export interface StatementLine {
  readonly keyId: string;
  readonly typeId: string;
  readonly eik: string;
  readonly tokens: number;
}

/** A monthly statement of one contract. */
export interface Statement {
  readonly contractId: string;
  readonly integratorId: string;
  readonly company: string;
  readonly month: string;
  /** The part of the month the contract was in force (ISO 8601), or null when none. */
  readonly period: { readonly from: string; readonly to: string } | null;
  readonly lines: readonly StatementLine[];
  readonly totals: {
    readonly tokens: number;
    readonly distinctEiks: number;
    readonly keys: number;
    readonly byTypeId: Readonly<Record<string, number>>;
  };
}

/**
 * Check a `YYYY-MM` month.
 * @param month candidate
 * @returns the month
 * @throws AppError VALIDATION_FAILED (400 on the token service)
 */
export function requireMonth(month: unknown): string {
  if (typeof month !== "string" || !MONTH_RE.test(month)) {
    throw new AppError("VALIDATION_FAILED", 'Field "month" must be YYYY-MM', { field: "month" });
  }
  return month;
}

function period(c: ContractRecord, month: string): Statement["period"] {
  const [from, to] = monthBounds(month);
  const end = Math.min(c.terminatedAt ?? Infinity, c.endsAt ?? Infinity, to);
  const start = Math.max(c.startsAt, from);
  if (start >= end) return null;
  return { from: new Date(start).toISOString(), to: new Date(end).toISOString() };
}

/**
 * Build the statement of a contract for a month (flush usage counters first).
 * @param store token store
 * @param contractId the contract
 * @param month `YYYY-MM`
 * @returns the statement
 * @throws AppError NOT_FOUND (404) for an unknown contract, VALIDATION_FAILED (400) for a bad
 *   month
 */
export async function buildStatement(
  store: TokenStore,
  contractId: string,
  month: string,
): Promise<Statement> {
  requireMonth(month);
  const c = await store.getContract(contractId);
  if (!c) throw new AppError("NOT_FOUND", `No contract "${contractId}"`, { contractId });
  const rows = await store.listBillingCounts({ contractId, month });
  const lines = rows.map((r) => ({
    keyId: r.keyId,
    typeId: r.typeId,
    eik: r.eik,
    tokens: r.count,
  }));
  const byTypeId: Record<string, number> = {};
  for (const l of lines) byTypeId[l.typeId] = (byTypeId[l.typeId] ?? 0) + l.tokens;
  return {
    contractId: c.id,
    integratorId: c.integratorId,
    company: c.company,
    month,
    period: period(c, month),
    lines,
    totals: {
      tokens: lines.reduce((s, l) => s + l.tokens, 0),
      distinctEiks: new Set(lines.map((l) => l.eik).filter((e) => e !== "")).size,
      keys: new Set(lines.map((l) => l.keyId)).size,
      byTypeId,
    },
  };
}

/**
 * A statement as CSV (RFC 4180, CRLF; `src/csv.ts`, so a company name a spreadsheet would run as
 * a formula is written with a leading `'`): one line per key/typeId/EIK, then a TOTAL line.
 * @param s the statement
 * @returns CSV text with a header line
 */
export function statementCsv(s: Statement): string {
  return toCsv(["contract_id", "company", "month", "key_id", "type_id", "eik", "tokens"], [
    ...s.lines.map((l) => [s.contractId, s.company, s.month, l.keyId, l.typeId, l.eik, l.tokens]),
    [s.contractId, s.company, s.month, "TOTAL", "", "", s.totals.tokens],
  ]);
}

/**
 * Usage counters as CSV (RFC 4180, CRLF; `src/csv.ts`).
 * @param rows counters
 * @returns CSV text with a header line
 */
export function usageCsv(rows: readonly UsageRow[]): string {
  return toCsv(
    ["month", "integrator_id", "contract_id", "key_id", "mode", "type_id", "eik", "tokens"],
    rows.map((
      r,
    ) => [r.month, r.integratorId, r.contractId, r.keyId, r.mode, r.typeId, r.eik, r.count]),
  );
}
