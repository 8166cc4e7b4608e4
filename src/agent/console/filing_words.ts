/**
 * A journal row in the accountant's words, shared by the Filings page, a filing's receipt and
 * the exports (docs/console.md § Filings): the state in words, the company's registered name
 * (where the portal knows it), the sender's display name.
 * @module
 */
import type { FilingRecord, FilingState } from "../filing/mod.ts";
import { TEST_SENDER } from "../senders/mod.ts";
import type { ConsoleContext } from "./deps.ts";
import type { Bilingual } from "./layout.ts";

/** The states in accountants' words. "in progress" covers written-not-sent rows. */
export const STATE_WORDS: Record<FilingState, Bilingual> = {
  pending: { bg: "в процес", en: "in progress" },
  unknown: { bg: "неизвестно", en: "unknown" },
  filed: { bg: "подадена", en: "filed" },
  refused: { bg: "отказана", en: "refused" },
  not_filed: { bg: "неподадена", en: "not filed" },
};

/** The CSS class a state is shown with. */
export const STATE_CLASS: Record<FilingState, string> = {
  pending: "muted",
  unknown: "warn",
  filed: "ok",
  refused: "bad",
  not_filed: "bad",
};

/** The environment a row was filed in. */
export const MODE_WORDS: Record<FilingRecord["mode"], Bilingual> = {
  test: { bg: "тестов", en: "test" },
  live: { bg: "реален", en: "live" },
};

/** Names the console gives a row's company and sender. */
export interface RowNames {
  /** The company's registered name as the row's portal knows it, or null. */
  company(row: FilingRecord): string | null;
  /** The sender's display name, its id when no longer configured, "—" for none. */
  sender(id: string | null): string;
}

/**
 * The company and sender names of rows, from the console's portals and senders.
 * @param ctx the console's context
 * @returns the two lookups
 */
export function rowNames(ctx: ConsoleContext): RowNames {
  return {
    company: (row) => ctx.portals[row.mode]?.companyName?.(row.eik) ?? null,
    sender: (id) =>
      id === null
        ? "—"
        : [...ctx.senders.current(), TEST_SENDER].find((s) => s.id === id)?.displayName ?? id,
  };
}
