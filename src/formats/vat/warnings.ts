/**
 * Warning shapes and the collector used by the VAT cross-checks (see check.ts). A rule
 * broken on many lines is reported once, naming its first line and the number of others.
 * Every warning is written twice: in English (`message`, for programs and logs) and in
 * Bulgarian (`messageBg`, for the accountant on the confirmation page).
 * @module
 */
import { bi, type Bilingual } from "../../contract/mod.ts";

/** Warning codes of the VAT cross-checks; documented in docs/formats.md. */
export const VAT_WARNING_CODES = [
  "VAT_NUMBER_MISMATCH",
  "PERIOD_MISMATCH",
  "DOCUMENT_COUNT_MISMATCH",
  "RUNNING_NUMBER_GAP",
  "TOTAL_MISMATCH",
  "LINE_TOTAL_MISMATCH",
  "VIES_STRUCTURE",
  "VIES_LINE_COUNT_MISMATCH",
  "VIES_TOTAL_MISMATCH",
  "VIES_MISSING",
  "VIES_DEKLAR_MISMATCH",
  "VIES_LEDGER_MISMATCH",
] as const;

/** One of {@link VAT_WARNING_CODES}. */
export type VatWarningCode = typeof VAT_WARNING_CODES[number];

/** A cross-check finding: not an error, the files can still be filed. */
export interface VatWarning {
  /** Stable code; clients rely on it, not on the message. */
  readonly code: VatWarningCode;
  /** Sentence-case English text naming the files, fields and values. */
  readonly message: string;
  /** The same finding in Bulgarian (shown on the confirmation page beside the English). */
  readonly messageBg: string;
  /** File the warning is about. */
  readonly file: string;
  /** 1-based line, when the warning is about one line. */
  readonly line?: number;
}

/** A finding's text in both languages. */
export type { Bilingual };

/**
 * Whole cents of an amount (null → 0), so sums are exact.
 * @param v amount or null
 * @returns integer cents
 * @throws nothing
 */
export function cents(v: number | null | undefined): number {
  return v === null || v === undefined ? 0 : Math.round(v * 100);
}

/**
 * Show integer cents as an amount with 2 decimals.
 * @param c cents
 * @returns e.g. "-20.00"
 * @throws nothing
 */
export function showCents(c: number): string {
  return (c / 100).toFixed(2);
}

/** "(and 3 more lines)" / "(и още 3 реда)". */
function moreLines(more: number): Bilingual {
  return bi(
    `(и още ${more} ${more === 1 ? "ред" : "реда"})`,
    `(and ${more} more line${more === 1 ? "" : "s"})`,
  );
}

/** Collects warnings, folding repeated per-line findings into one. */
export class WarningCollector {
  #list: Array<{ w: VatWarning; more: number }> = [];
  #byKey = new Map<string, { w: VatWarning; more: number }>();

  /**
   * Add a warning as is.
   * @param code warning code
   * @param file file name
   * @param line line or undefined
   * @param text the finding in English and Bulgarian
   * @returns nothing
   * @throws nothing
   */
  add(code: VatWarningCode, file: string, line: number | undefined, text: Bilingual): void {
    const w: VatWarning = line === undefined
      ? { code, file, message: text.en, messageBg: text.bg }
      : { code, file, line, message: text.en, messageBg: text.bg };
    this.#list.push({ w, more: 0 });
  }

  /**
   * Add a per-line finding; later findings with the same code and file only count.
   * @param code warning code
   * @param file file name
   * @param line line of this finding
   * @param text the first finding in English and Bulgarian
   * @returns nothing
   * @throws nothing
   */
  perLine(code: VatWarningCode, file: string, line: number, text: Bilingual): void {
    const key = code + "\u0000" + file;
    const seen = this.#byKey.get(key);
    if (seen !== undefined) {
      seen.more++;
      return;
    }
    const entry = {
      w: { code, file, line, message: text.en, messageBg: text.bg } as VatWarning,
      more: 0,
    };
    this.#byKey.set(key, entry);
    this.#list.push(entry);
  }

  /**
   * The warnings in the order found, with "(and N more lines)" where folded.
   * @returns the warnings
   * @throws nothing
   */
  result(): VatWarning[] {
    return this.#list.map(({ w, more }) => {
      if (more === 0) return w;
      const m = moreLines(more);
      return { ...w, message: `${w.message} ${m.en}`, messageBg: `${w.messageBg} ${m.bg}` };
    });
  }
}
