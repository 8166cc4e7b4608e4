/**
 * A journal row in the accountant's words, shared by the Filings page, a filing's receipt and
 * the exports (docs/console.md § Filings): the state in words, the company's registered name
 * (where the portal knows it), the sender's display name.
 * @module
 */
import { bi, declarationName, getOperation, KIND_NAMES } from "../../contract/mod.ts";
import type { FollowedFiling } from "../confirm/mod.ts";
import {
  type FilingRecord,
  type FilingState,
  isFilingRunning,
  type Journal,
} from "../filing/mod.ts";
import { TEST_SENDER } from "../senders/mod.ts";
import type { ConsoleContext } from "./deps.ts";
import { type Bilingual, both, bothWith } from "./layout.ts";

/** The states in accountants' words. "in progress" covers written-not-sent rows. */
export const STATE_WORDS: Record<FilingState, Bilingual> = {
  pending: both("filing.in_progress"),
  unknown: both("filing.unknown"),
  filed: both("filing.filed"),
  refused: both("filing.refused"),
  not_filed: both("filing.not_filed"),
};

/** The CSS class a state is shown with. */
export const STATE_CLASS: Record<FilingState, string> = {
  pending: "muted",
  unknown: "warn",
  filed: "ok",
  refused: "bad",
  not_filed: "bad",
};

/** What the accountant does next, per state that is not "filed". */
export const NEXT_STEP: Record<Exclude<FilingState, "filed">, Bilingual> = {
  pending: both("filing.the_filing_is_still"),
  unknown: bi(
    "Не се знае дали НАП я е приела. Проверете в портала на НАП (Справки → Подадени " +
      "документи) и отбележете резултата в „Подадени декларации“ с бутона „Уточни“.",
    "Whether the NRA received it is not known. Check on the NRA portal and record what you " +
      "find on the Filings page with “Resolve”.",
  ),
  refused: both("filing.the_nra_did_not"),
  not_filed: both("filing.the_filing_never_reached"),
};

/** The environment a row was filed in. */
export const MODE_WORDS: Record<FilingRecord["mode"], Bilingual> = {
  test: both("filing.test"),
  live: both("filing.live"),
};

/**
 * A filing's declaration by its kind: one name per kind of declaration, whether it was filed
 * alone (`vat`) or as one company of a folder-wide filing (`vat_batch`) — "Справка-декларация
 * по ЗДДС" either way, never the batch's own name.
 * @param typeId the journal row's typeId
 * @returns the kind's name (the registry's name for a typeId without a kind)
 */
export function filingName(typeId: string): Bilingual {
  const kind = (getOperation(typeId) as { kind?: keyof typeof KIND_NAMES } | undefined)?.kind;
  return kind && Object.hasOwn(KIND_NAMES, kind) ? KIND_NAMES[kind] : declarationName(typeId);
}

/** Names the console gives a row's company and sender. */
export interface RowNames {
  /** The company's registered name as the row's portal knows it, or null. */
  company(row: FilingRecord): string | null;
  /** The sender's display name, its id when no longer configured, "—" for none. */
  sender(id: string | null): string;
  /** The integrator's name as its keys carry it (the callers book), its id when not known,
   * "—" for none. */
  integrator(id: string | null): string;
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
    integrator: (id) =>
      id === null
        ? "—"
        : ctx.callers?.list().find((x) => x.integrator === id)?.integratorName || id,
  };
}

/**
 * The filings the confirmation page follows after "Confirm", in words (docs/confirmation.md
 * § After Confirm): being sent; filed with the incoming number; or the state, the error and
 * what to do next. Each links to its receipt in the console.
 * @param journal the agent's journal (absent: nothing to show)
 * @param ids the journal rows filed under the confirmation
 * @returns one entry per row still in the journal
 */
export function followedInWords(
  journal: Journal | undefined,
  ids: readonly string[],
): FollowedFiling[] {
  if (!journal) return [];
  return ids.flatMap((id): FollowedFiling[] => {
    const row = journal.get(id);
    if (!row) return [];
    const decl = filingName(row.typeId);
    const receipt = `/console/filings/${row.id}`;
    const running = row.state === "pending" || isFilingRunning(journal, row.id);
    if (running) {
      return [{
        id,
        final: false,
        tone: "muted",
        // Test mode files with the test portal: never "sent to the NRA".
        ...bothWith(
          row.mode === "test" ? "follow.sending_test" : "follow.sending",
          (l) => ({ decl: decl[l] }),
        ),
        receipt,
      }];
    }
    if (row.state === "filed") {
      return [{
        id,
        final: true,
        tone: "ok",
        ...bothWith("follow.filed", (l) => ({ decl: decl[l], no: row.incomeNumber ?? "—" })),
        receipt,
      }];
    }
    const next = NEXT_STEP[row.state as Exclude<FilingState, "filed">];
    const why = row.errorMessage ? ` ${row.errorMessage}` : "";
    return [{
      id,
      final: true,
      tone: STATE_CLASS[row.state],
      ...bothWith("follow.ended", (l) => ({
        decl: decl[l],
        state: STATE_WORDS[row.state][l],
        why,
        next: next[l],
      })),
      receipt,
    }];
  });
}
