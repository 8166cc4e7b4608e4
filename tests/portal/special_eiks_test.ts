/**
 * The special test EIKs' contract (docs/test-portal.md § Special EIKs): every report and every
 * submission of the registry, run with each special EIK through the test portal, does what the
 * table says — so a report or submission added to the registry is covered without a line here.
 */
import assert from "node:assert/strict";
import { type AppError, isAppError } from "../../src/contract/errors.ts";
import { OPERATIONS, REPORT_OPERATIONS, sampleRequest } from "../../src/contract/operations.ts";
import { SubmissionResult, SubmissionResultPayload } from "../../src/contract/submissions.ts";
import { answerReport } from "../../src/mock/mod.ts";
import { markNoData } from "../../src/agent/operations/no_data.ts";
import type { PortalContext, SubmissionInput } from "../../src/portal/adapter.ts";
import { NRA_FILE_KIT } from "../../src/portal/test/nra_files.ts";
import { createTestPortal, SPECIAL_EIKS } from "../../src/portal/test/adapter.ts";
import type { SpecialBehaviour } from "../../src/mock/special_eiks.ts";
import { runReport } from "../_helpers/report.ts";

const NOW = new Date("2026-03-15T10:00:00Z");
const CTX: PortalContext = { sender: null };
const SUBMISSIONS = OPERATIONS.filter((o) => o.family === "submission");
/** Reports whose request names a taxpayer: the special EIKs act on them. */
const EIK_REPORTS = REPORT_OPERATIONS.filter((o) => "eik" in o.sample);

async function failsWith(p: Promise<unknown>, code: string, what: string): Promise<AppError> {
  const e = await p.then(() => assert.fail(`${what}: answered instead of failing`), (e) => e);
  assert.ok(isAppError(e), `${what}: ${e}`);
  assert.equal(e.code, code, what);
  return e;
}

/** A submission of the registry's sample request: 3 records in D1/D6, 1 file otherwise. */
function submission(kind: SubmissionInput["kind"], typeId: string, eik: string): SubmissionInput {
  const file = (name: string, numRecords: number) => ({
    kind: "other" as const,
    name,
    bytes: new TextEncoder().encode("x\r\n"),
    numRecords,
  });
  return {
    kind,
    eik,
    request: sampleRequest(typeId, eik),
    files: kind === "dec1_6"
      ? [file("EMPL2021.TXT", 2), file("NRA62007.TXT", 1)]
      : [file("A.TXT", 1)],
  };
}

/** What each behaviour does to a report answer (the plain answer is the generator's). */
function expectReport(b: SpecialBehaviour, answer: Record<string, unknown>, plain: unknown) {
  switch (b) {
    case "NO_DATA": {
      assert.equal(answer.status, "ok");
      assert.deepEqual(markNoData(answer).metadata, { errorCode: "NO_DATA" });
      return;
    }
    case "SUBMIT_REFUSED":
    case "DECLARATION_REJECTED":
    case "PARTIALLY_ACCEPTED":
    case "ANSWER_LOST":
      assert.deepEqual(answer, plain);
      return;
    case "PORTAL_UNAVAILABLE":
      assert.fail("answered instead of failing");
  }
}

Deno.test("[special EIKs] every report with an EIK, with each special EIK, does what docs/test-portal.md says", async () => {
  assert.ok(EIK_REPORTS.length > 0);
  for (const { eik, behaviour } of SPECIAL_EIKS) {
    const portal = createTestPortal({ now: () => NOW });
    for (const op of EIK_REPORTS) {
      const what = `${op.typeId} with ${eik} (${behaviour})`;
      const body = sampleRequest(op.typeId, eik);
      if (behaviour === "PORTAL_UNAVAILABLE") {
        const e = await failsWith(
          runReport(portal, op.typeId, body, CTX),
          "PORTAL_UNREACHABLE",
          what,
        );
        assert.equal(e.status, 502, what);
        continue;
      }
      const answer = await runReport(portal, op.typeId, body, CTX) as Record<string, unknown>;
      op.result.parse(answer);
      const env = { now: NOW, senderId: null, files: NRA_FILE_KIT };
      // deno-lint-ignore no-explicit-any
      const plain = answerReport(op.answer, op.request.parse(body) as any, env);
      expectReport(behaviour, answer, plain);
    }
  }
});

Deno.test("[special EIKs] reports without an EIK answer every caller alike", async () => {
  const portal = createTestPortal({ now: () => NOW });
  for (const op of REPORT_OPERATIONS.filter((o) => !("eik" in o.sample))) {
    const answer = await runReport(portal, op.typeId, sampleRequest(op.typeId), CTX);
    assert.equal((answer as { status: string }).status, "ok", op.typeId);
  }
});

Deno.test("[special EIKs] every submission kind, with each special EIK, is filed and answered as docs/test-portal.md says", async () => {
  assert.ok(SUBMISSIONS.length > 0);
  for (const { eik, behaviour } of SPECIAL_EIKS) {
    const portal = createTestPortal({ now: () => NOW });
    for (const op of SUBMISSIONS) {
      const what = `${op.typeId} with ${eik} (${behaviour})`;
      const input = submission(op.kind, op.typeId, eik);
      switch (behaviour) {
        case "PORTAL_UNAVAILABLE": {
          await failsWith(portal.submit(input, CTX), "PORTAL_UNREACHABLE", what);
          await failsWith(portal.result(op.kind, "1", eik, CTX), "PORTAL_UNREACHABLE", what);
          continue;
        }
        case "ANSWER_LOST": {
          const e = await failsWith(portal.submit(input, CTX), "PORTAL_TIMEOUT", what);
          assert.equal(e.details?.outcome, "unknown", what);
          const later = { ...input, clientRef: "r1", at: NOW };
          assert.equal(await portal.reconcile!(later, CTX), null, what);
          continue;
        }
        case "SUBMIT_REFUSED": {
          const r = SubmissionResult.parse(await portal.submit(input, CTX));
          assert.equal(r.success, false, what);
          assert.deepEqual([r.documentId, r.incomeNumber, r.nativeErrors], [null, null, []], what);
          assert.match(r.errorMessage!, /не е приет/, what);
          continue;
        }
      }
      const sent = SubmissionResult.parse(await portal.submit(input, CTX));
      assert.equal(sent.success, true, what);
      const res = SubmissionResultPayload.parse(
        await portal.result(op.kind, sent.documentId!, eik, CTX),
      );
      assert.equal(res.status, "ok", what);
      const body = res.rawBody;
      if (behaviour === "DECLARATION_REJECTED") {
        assert.match(body, /е отхвърлена/, what);
        if (op.kind === "dec1_6") assert.match(body, /Брой приети записи<\/th><td>0</, what);
      } else if (behaviour === "PARTIALLY_ACCEPTED" && op.kind === "dec1_6") {
        assert.match(body, /Брой отхвърлени записи<\/th><td>1</, what);
        assert.match(body, /Брой приети записи<\/th><td>2</, what);
      } else {
        assert.match(body, /е приета\./, what);
      }
    }
  }
});

Deno.test("[special EIKs] the table names each behaviour once", () => {
  const all: Record<SpecialBehaviour, true> = {
    SUBMIT_REFUSED: true,
    DECLARATION_REJECTED: true,
    PARTIALLY_ACCEPTED: true,
    NO_DATA: true,
    PORTAL_UNAVAILABLE: true,
    ANSWER_LOST: true,
  };
  assert.deepEqual(SPECIAL_EIKS.map((s) => s.behaviour).sort(), Object.keys(all).sort());
});
