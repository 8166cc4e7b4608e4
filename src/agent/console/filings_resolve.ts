/**
 * Resolving an "unknown" filing on the console (docs/console.md § Filings, docs/journal.md): the
 * accountant checked the NRA portal and marks it filed (with the document id and incoming number
 * found there) or not filed; recorded with the OS user and the time. A filing being sent right
 * now, or one not waiting, is refused with `CONSOLE_INPUT_INVALID`.
 *
 * Route: `POST /console/filings/:id/resolve`.
 * @module
 */
import { AppError, isAppError } from "../../contract/mod.ts";
import { isFilingRunning } from "../filing/mod.ts";
import { STATE_WORDS } from "./filing_words.ts";
import type { ConsoleContext } from "./deps.ts";
import { both, bothWith } from "./layout.ts";
import { type ConsoleC, doneAndGo, errorFlash, formOf } from "./respond.ts";

/**
 * A document id or incoming number as typed: trimmed, at most 64 letters, digits, spaces and
 * `./_-`; empty → null.
 * @throws AppError CONSOLE_INPUT_INVALID otherwise
 */
function cleanNumber(v: string | undefined): string | null {
  const s = (v ?? "").trim();
  if (s.length > 64 || !/^[\p{L}\p{N} ./_-]*$/u.test(s)) {
    throw new AppError("CONSOLE_INPUT_INVALID", "A number is too long or has odd characters", {
      field: "documentId",
      bg: "Номерът е твърде дълъг или съдържа странни знаци",
    });
  }
  return s || null;
}

/**
 * `POST /console/filings/:id/resolve`: form fields `how` (filed | not_filed), `documentId`,
 * `incomeNumber`; back to the Filings page with a message either way.
 * @param ctx the console's context
 * @param c the request
 */
export async function resolveFiling(ctx: ConsoleContext, c: ConsoleC): Promise<Response> {
  const what = both("filings.resolving");
  const f = await formOf(c);
  const id = c.req.param("id") ?? "";
  try {
    if (f.how !== "filed" && f.how !== "not_filed") {
      throw new AppError("CONSOLE_INPUT_INVALID", "Choose filed or not filed", {
        field: "how",
        bg: "Изберете „подадена“ или „не е подадена“",
      });
    }
    const how = f.how === "filed"
      ? {
        filed: true as const,
        documentId: cleanNumber(f.documentId),
        incomeNumber: cleanNumber(f.incomeNumber),
      }
      : { filed: false as const };
    const by = ctx.console?.osUser?.() || "console";
    if (ctx.journal && isFilingRunning(ctx.journal, id)) {
      throw new AppError(
        "CONSOLE_INPUT_INVALID",
        "This filing is being sent now; wait for its answer",
        {
          field: "id",
          bg: "Тази декларация се изпраща в момента; изчакайте отговора",
        },
      );
    }
    const row = ctx.journal?.resolve(id, how, by, new Date(ctx.clock.now())) ?? null;
    if (!row) {
      throw new AppError("CONSOLE_INPUT_INVALID", "This filing is not waiting to be resolved", {
        field: "id",
        bg: "Тази декларация не чака уточняване",
      });
    }
    ctx.log("info", "console resolved filing", { filingId: id, state: row.state, by });
    return doneAndGo(c, "/console/filings", {
      kind: "ok",
      ...bothWith("filings.recorded", (l) => ({ state: STATE_WORDS[row.state][l], by })),
    });
  } catch (e) {
    if (!isAppError(e)) throw e;
    return doneAndGo(c, "/console/filings", errorFlash(e, what));
  }
}
