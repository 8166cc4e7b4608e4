import assert from "node:assert/strict";
import fc from "fast-check";
import type { SubmissionKind } from "../../src/contract/operations.ts";
import { SubmissionResult, SubmissionResultPayload } from "../../src/contract/submissions.ts";
import { recordCount } from "../../src/record_count.ts";
import {
  INCOME_PREFIX,
  incomeNumberOf,
  issueDocumentId,
  seqOfInstant,
  submissionResult,
  submitDeclaration,
  verifyDocumentId,
} from "../../src/mock/mod.ts";
import { eikArb, FC_PARAMS, NOW } from "./_support.ts";

const KINDS = Object.keys(INCOME_PREFIX) as SubmissionKind[];
const SEQ = seqOfInstant(NOW);
const file = (name: string, text: string, numRecords?: number) => ({
  name,
  bytes: new TextEncoder().encode(text),
  ...(numRecords === undefined ? {} : { numRecords }),
});

function submit(
  kind: SubmissionKind,
  eik: string,
  request: Record<string, unknown> = {},
  seq = SEQ,
) {
  return submitDeclaration(
    {
      kind,
      eik,
      request: { eik, year: 2025, month: 12, ...request },
      files: [file("A.TXT", "x\r\n")],
    },
    { now: NOW, seq },
  );
}

Deno.test("submitDeclaration() succeeds with documentId, incomeNumber, submissionDate and no errors", () => {
  for (const kind of KINDS) {
    const r = submit(kind, "121212121");
    SubmissionResult.parse(r);
    assert.equal(r.success, true);
    assert.match(r.documentId!, /^[0-9]{19}$/);
    assert.match(r.incomeNumber!, new RegExp(`^${INCOME_PREFIX[kind]}E[0-9]{9}$`));
    assert.equal(r.submissionDate, NOW.toISOString());
    assert.deepEqual([r.errorMessage, r.nativeErrors], [null, []]);
  }
});

Deno.test("submitDeclaration() issues different documentIds for different sequence numbers", () => {
  const ids = new Set(
    Array.from({ length: 100 }, (_, i) => submit("vat", "121212121", {}, SEQ + i).documentId),
  );
  assert.equal(ids.size, 100);
});

Deno.test("submissionResult() accepts every documentId the test portal issued", () => {
  fc.assert(
    fc.property(
      eikArb,
      fc.constantFrom(...KINDS),
      fc.integer({ min: 0, max: 99_999_999_999 }),
      (eik, kind, seq) => {
        const id = issueDocumentId({ kind, eik, seq, count: 3 });
        const r = submissionResult(kind, id, eik);
        SubmissionResultPayload.parse(r);
        assert.equal(r.status, "ok");
        assert.equal(r.error, null);
        assert.equal(r.rawBodyContentType, "text/html; charset=utf-8");
        assert.match(r.rawBody, /е приета/);
        if (kind !== "dec1_6") assert.doesNotMatch(r.rawBody, /отхвърлен/);
        assert.ok(r.rawBody.includes(incomeNumberOf({ kind, eik, seq, count: 3 })));
        assert.ok(r.rawBodyUrl.startsWith("https://portal.nra.bg/") && r.rawBodyUrl.endsWith(id));
      },
    ),
    { ...FC_PARAMS, numRuns: 100, seed: 7 },
  );
});

Deno.test("submissionResult() answers status error for ids never issued, or issued for another EIK or kind", () => {
  const id = submit("vat", "121212121").documentId!;
  const tampered = id.slice(0, 18) + String((Number(id[18]) + 1) % 10);
  for (
    const [kind, docId, eik] of [
      ["vat", tampered, "121212121"],
      ["vat", id, "123456786"],
      ["dec1_6", id, "121212121"],
      ["vat", "1", "121212121"],
      ["vat", "abc", "121212121"],
    ] as const
  ) {
    const r = submissionResult(kind, docId, eik);
    SubmissionResultPayload.parse(r);
    assert.equal(r.status, "error");
    assert.match(r.error!, /not found/);
    assert.equal(r.rawBodyContentType, "application/json");
    assert.equal(JSON.parse(r.rawBody).errorCode, "API_DOCUMENT_NOT_FOUND");
  }
  fc.assert(
    fc.property(fc.stringMatching(/^[0-9]{19}$/), (random) => {
      fc.pre(verifyDocumentId("vat", "121212121", random) === null);
      assert.equal(submissionResult("vat", random, "121212121").status, "error");
    }),
    FC_PARAMS,
  );
});

Deno.test("submissionResult() shows D1/D6 record counts from the submitted files", () => {
  const r = submitDeclaration(
    {
      kind: "dec1_6",
      eik: "121212121",
      request: { year: 2025, month: 12 },
      files: [file("EMPL2021.TXT", "a\r\nb\r\nc\r\n\x1a"), file("NRA62007.TXT", "d", 1)],
    },
    { now: NOW, seq: SEQ },
  );
  const body = submissionResult("dec1_6", r.documentId!, "121212121").rawBody;
  assert.match(body, /Брой подадени записи<\/th><td>4</);
  assert.match(body, /Брой приети записи<\/th><td>4</);
  assert.match(body, /Брой отхвърлени записи<\/th><td>0</);
  assert.match(body, /е приета/);
  assert.equal(recordCount(file("X", "\r\n \r\nrow\r\n\x1a")), 1);
});

Deno.test('submissionResult() with the verdict "rejected" says the declaration was rejected', () => {
  for (const kind of KINDS) {
    const r = submit(kind, "121212121");
    assert.equal(r.success, true);
    const body = submissionResult(kind, r.documentId!, "121212121", "rejected").rawBody;
    assert.match(body, /е отхвърлена/);
    assert.doesNotMatch(body, /е приета/);
  }
  const d16 = submit("dec1_6", "121212121");
  assert.match(
    submissionResult("dec1_6", d16.documentId!, "121212121", "rejected").rawBody,
    /Брой приети записи<\/th><td>0</,
  );
});

Deno.test('submissionResult() with the verdict "partial" rejects one D1/D6 record', () => {
  const r = submitDeclaration(
    {
      kind: "dec1_6",
      eik: "121212121",
      request: { year: 2025, month: 12 },
      files: [file("EMPL2021.TXT", "a\r\nb\r\n", 2), file("NRA62007.TXT", "d", 1)],
    },
    { now: NOW, seq: SEQ },
  );
  const body = submissionResult("dec1_6", r.documentId!, "121212121", "partial").rawBody;
  assert.match(body, /Брой подадени записи<\/th><td>3</);
  assert.match(body, /Брой приети записи<\/th><td>2</);
  assert.match(body, /Брой отхвърлени записи<\/th><td>1</);
  const vat = submit("vat", "121212121");
  assert.match(
    submissionResult("vat", vat.documentId!, "121212121", "partial").rawBody,
    /е приета/,
  );
});

Deno.test("submitDeclaration() refuses a period that has not begun", () => {
  const r = submit("vat", "121212121", { year: 2026, month: 4 });
  assert.equal(r.success, false);
  assert.match(r.errorMessage!, /04\.2026/);
  assert.equal(submit("dec731", "121212121", { year: 2027, month: undefined }).success, false);
  assert.equal(submit("vat", "121212121", { year: 2026, month: 3 }).success, true);
  assert.equal(submit("etz62", "121212121", { year: undefined, month: undefined }).success, true);
});

Deno.test("issueDocumentId() and verifyDocumentId() round-trip and bind kind and EIK", () => {
  fc.assert(
    fc.property(
      eikArb,
      eikArb,
      fc.constantFrom(...KINDS),
      fc.integer({ min: 0, max: 99_999_999_999 }),
      fc.integer({ min: 0, max: 999 }),
      (eik, other, kind, seq, count) => {
        const id = issueDocumentId({ kind, eik, seq, count });
        assert.deepEqual(verifyDocumentId(kind, eik, id), { kind, eik, seq, count });
        if (other !== eik) assert.equal(verifyDocumentId(kind, other, id), null);
      },
    ),
    FC_PARAMS,
  );
  assert.throws(
    () => issueDocumentId({ kind: "vat", eik: "1", seq: 10 ** 11, count: 0 }),
    RangeError,
  );
});
