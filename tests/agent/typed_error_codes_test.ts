/**
 * The journal's error codes are catalog codes (src/contract/error_catalog.ts): a filing the agent
 * stopped before sending is recorded `NOT_SENT` — a catalogued, journal-only code (in
 * docs/errors.md, not in the OpenAPI documents) with the accountant's words — and a stored code
 * is read back through the catalog, so a text no catalog knows is not passed on as a code; the
 * confirmation page's check errors name catalog codes too.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { pageError } from "../../src/agent/confirm/check_texts.ts";
import { filingErrorWords } from "../../src/agent/console/error_words.ts";
import { Journal } from "../../src/agent/filing/journal.ts";
import { reconcileJournal } from "../../src/agent/filing/reconcile.ts";
import { ERROR_CATALOG, ERROR_CODES, isErrorCode } from "../../src/contract/errors.ts";
import { buildAgentOpenApi } from "../../src/contract/openapi/mod.ts";
import type { PortalAdapter } from "../../src/portal/mod.ts";

const EIK = "121212121";
const NOW = new Date("2026-11-01T08:00:00Z");

function pendingRow(j: Journal, id: string): void {
  j.begin({
    id,
    idempotencyKey: null,
    typeId: "dec731",
    kind: "dec731",
    eik: EIK,
    period: "2025",
    batchId: null,
    filesSha256: null,
    files: [],
    senderId: null,
    mode: "test",
    integrator: null,
    request: { eik: EIK, year: 2025 },
  }, NOW);
}

Deno.test("a filing the agent stopped before sending is recorded NOT_SENT, a journal-only catalog code", async () => {
  const j = new Journal(":memory:");
  pendingRow(j, "f1");
  // No portal is asked: a pending row was never sent.
  const unused = {} as PortalAdapter;
  const counts = await reconcileJournal(j, { test: unused }, () => {}, () => NOW);
  equal(counts.notSent, 1);
  const row = j.list()[0];
  equal(row?.state, "not_filed");
  equal(row?.errorCode, "NOT_SENT");
  // In the catalog (docs/errors.md), never on the wire (the OpenAPI enum and x-error-catalog).
  ok(isErrorCode("NOT_SENT"));
  equal(ERROR_CATALOG.NOT_SENT.filingFailure, "not_filed");
  ok(!ERROR_CODES.includes("NOT_SENT"));
  const doc = buildAgentOpenApi("0.0.0-test") as {
    components: { schemas: { ErrorCode: { enum: string[] } } };
    "x-error-catalog": Record<string, unknown>;
  };
  ok(!doc.components.schemas.ErrorCode.enum.includes("NOT_SENT"));
  ok(!("NOT_SENT" in doc["x-error-catalog"]));
  // The Filings page says it in the accountant's words, in both languages.
  deepStrictEqual(filingErrorWords("NOT_SENT", row?.errorMessage ?? null), {
    bg: "Агентът спря, преди да изпрати декларацията: тя не е подадена. Подайте я отново.",
    en: "The agent stopped before sending the declaration: it was not filed. File it again.",
  });
});

Deno.test("a stored error code is read back through the catalog: an unknown text is no code", async () => {
  const path = await Deno.makeTempFile({ suffix: ".sqlite" });
  try {
    const j = new Journal(path);
    pendingRow(j, "known");
    pendingRow(j, "damaged");
    j.notFiled("known", "PORTAL_UNREACHABLE", "no route", NOW);
    j.notFiled("damaged", "PORTAL_UNREACHABLE", "no route", NOW);
    j.close();
    // A damaged file: a text no catalog has, written behind the journal's back.
    const db = new DatabaseSync(path);
    db.prepare("UPDATE filings SET error_code = 'NO SUCH CODE' WHERE id = 'damaged'").run();
    db.close();
    const again = new Journal(path);
    const byId = new Map(again.list().map((r) => [r.id, r]));
    equal(byId.get("known")?.errorCode, "PORTAL_UNREACHABLE");
    equal(byId.get("damaged")?.errorCode, null);
    equal(byId.get("damaged")?.errorMessage, "no route");
    again.close();
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("the confirmation page's error of a check names a catalog code, never an uncatalogued one", () => {
  equal(pageError("vat_batch", new Error("a bug")).code, "AGENT_INTERNAL_ERROR");
  equal(
    pageError("vat_batch", { code: "NO SUCH CODE", message: "x" }).code,
    "AGENT_INTERNAL_ERROR",
  );
  const known = pageError("vat_batch", { code: "FILE_EIK_MISMATCH", message: "another EIK" });
  equal(known.code, "FILE_EIK_MISMATCH");
  equal(known.detail, "another EIK");
  ok(isErrorCode(pageError("vat", null).code));
});
