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

/**
 * A text in both languages, Bulgarian first (the order of {@link Bilingual}'s fields and of the
 * pages' `t(bg, en)`): the one way to write a {@link Bilingual} (docs/architecture.md § One of
 * each). `tests/contract/bilingual_test.ts` checks that every call in `src/` gives Bulgarian
 * (Cyrillic) first.
 * @param bg the Bulgarian text
 * @param en the English text
 * @returns `{ bg, en }`
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(bi("Ключове", "Keys"), { bg: "Ключове", en: "Keys" });
 * ```
 */
export const bi = (bg: string, en: string): Bilingual => ({ bg, en });
