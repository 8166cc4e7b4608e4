/**
 * The files of a VAT folder, by kind, with their canonical names from the format registry
 * (src/formats/kinds.ts): DEKLAR, POKUPKI and PRODAGBI are required, VIES is optional.
 * @module
 */
import type { NraFileKind } from "../../contract/mod.ts";
import { NRA_FORMATS } from "../../formats/mod.ts";

/** The kinds of a VAT folder, in the order results list them. */
export const VAT_KINDS = [
  "deklar",
  "pokupki",
  "prodagbi",
  "vies",
] as const satisfies readonly NraFileKind[];
/** The three a VAT return needs (VIES only with intra-EU supplies). */
export const REQUIRED_VAT_KINDS = [
  "deklar",
  "pokupki",
  "prodagbi",
] as const satisfies readonly NraFileKind[];

/**
 * The canonical file name of a VAT folder's kind.
 * @param kind deklar, pokupki, prodagbi or vies
 * @returns e.g. "DEKLAR.TXT"
 */
export function vatFileName(kind: NraFileKind): string {
  return NRA_FORMATS[kind].fileName;
}
