/**
 * A text in both of the pages' languages — the one type for it across the project (a
 * declaration's name, a check's warning, a sender's message, a doctor check's words, a page's
 * message). Where a page draws one, it shows the chosen language only (src/agent/texts/).
 * Pure: no I/O.
 * @module
 */

/** A language of the pages: Bulgarian (the default) or English. */
export type Lang = "bg" | "en";

/** A text in Bulgarian and in English. */
export interface Bilingual {
  readonly bg: string;
  readonly en: string;
}
