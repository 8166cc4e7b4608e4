/**
 * Small facts about VAT files that the agent needs (filer, EIK, period, counts), read from the
 * solid fields of docs/nra-formats.md §5 items 2–4: VAT number chars 1–15, DEKLAR period 66–71,
 * counts 00-05/00-06; VIES period in VHR and filer in VTR.
 * @module
 */
import { vatNumberToEik } from "../eik.ts";
import type { DeklarRecord } from "./deklar.ts";
import type { ViesRecord } from "./vies.ts";

/** What the agent shows about one VAT return. */
export interface DeklarSummary {
  /** Filer VAT number, DEKLAR 00-01, e.g. "BG123456786". */
  readonly vatNumber: string;
  /** The EIK: the VAT number without "BG". */
  readonly eik: string;
  /** Tax period "YYYYMM" (00-03), or null when blank. */
  readonly period: string | null;
  /** Year of the period, or null. */
  readonly year: number | null;
  /** Month 1–12 of the period, or null. */
  readonly month: number | null;
  /** Documents in the sales ledger (00-05); blank counts as 0. */
  readonly salesDocumentCount: number;
  /** Documents in the purchase ledger (00-06); blank counts as 0. */
  readonly purchaseDocumentCount: number;
}

/**
 * Summarise a DEKLAR record.
 * @param rec the parsed DEKLAR.TXT record
 * @returns filer VAT number, EIK, period (and its year/month) and the two document counts
 * @throws nothing
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { parseDeklar } from "./deklar.ts";
 * const bytes = await Deno.readFile("fixtures/formats/deklar/DEKLAR.TXT");
 * equal(summarizeDeklar(parseDeklar(bytes)).eik, "203456783");
 * ```
 */
export function summarizeDeklar(rec: DeklarRecord): DeklarSummary {
  const p = rec.period;
  return {
    vatNumber: rec.vatNumber,
    eik: vatNumberToEik(rec.vatNumber),
    period: p,
    year: p === null ? null : Number(p.slice(0, 4)),
    month: p === null ? null : Number(p.slice(4, 6)),
    salesDocumentCount: rec.salesDocumentCount ?? 0,
    purchaseDocumentCount: rec.purchaseDocumentCount ?? 0,
  };
}

/** What the agent shows about one VIES declaration. */
export interface ViesSummary {
  /** Filer VAT number from VTR 4–18, or null without a VTR record. */
  readonly vatNumber: string | null;
  /** EIK from that VAT number, or null. */
  readonly eik: string | null;
  /** Period "YYYYMM" from VHR 4–10 (written MM/YYYY), or null. */
  readonly period: string | null;
  /** The count declared in VHR 11–15, or null. */
  readonly declaredLineCount: number | null;
  /** Number of VIR lines. */
  readonly virCount: number;
  /** Number of records of any type. */
  readonly recordCount: number;
}

/**
 * Summarise a VIES declaration.
 * @param records the parsed VIES.TXT records
 * @returns filer, period, declared and actual line counts
 * @throws nothing
 */
export function summarizeVies(records: readonly ViesRecord[]): ViesSummary {
  let vatNumber: string | null = null;
  let period: string | null = null;
  let declared: number | null = null;
  let virCount = 0;
  for (const r of records) {
    if (r.recordType === "VTR" && vatNumber === null) vatNumber = r.vatNumber;
    else if (r.recordType === "VHR" && period === null) {
      period = r.period;
      declared = r.lineCount;
    } else if (r.recordType === "VIR") virCount++;
  }
  return {
    vatNumber,
    eik: vatNumber === null ? null : vatNumberToEik(vatNumber),
    period,
    declaredLineCount: declared,
    virCount,
    recordCount: records.length,
  };
}
