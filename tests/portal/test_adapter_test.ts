import { runReport } from "../_helpers/report.ts";
import assert from "node:assert/strict";
import { isAppError } from "../../src/contract/errors.ts";
import { getOperation, sampleRequest } from "../../src/contract/operations.ts";
import { SubmissionResult, SubmissionResultPayload } from "../../src/contract/submissions.ts";
import type { PortalContext } from "../../src/portal/adapter.ts";
import {
  createTestPortal,
  SPECIAL_EIKS,
  TEST_PORTAL_REPORTS,
} from "../../src/portal/test/adapter.ts";
import { isValidEik } from "../../src/mock/mod.ts";

const NOW = new Date("2026-03-15T10:00:00Z");
const CTX: PortalContext = { sender: null };
const EIK = "121212121";

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isAppError(e), String(e));
    assert.equal(e.code, code);
    return true;
  });
}

Deno.test("createTestPortal() is a PortalAdapter in mode test", () => {
  assert.equal(createTestPortal({ now: () => NOW }).mode, "test");
});

Deno.test("[test portal] report() answers every report typeId with its contract schema", async () => {
  const portal = createTestPortal({ now: () => NOW });
  for (const typeId of TEST_PORTAL_REPORTS) {
    const result = await runReport(portal, typeId, sampleRequest(typeId, EIK), CTX);
    getOperation(typeId)!.result.parse(result);
    assert.equal((result as { status: string }).status, "ok", typeId);
  }
});

Deno.test('[test portal] report() applies the request defaults (debt_payments type "0")', async () => {
  const portal = createTestPortal({ now: () => NOW });
  const r = await runReport(portal, "debt_payments", { eik: EIK, year: 2025 }, CTX) as {
    type: string;
  };
  assert.equal(r.type, "0");
});

Deno.test("[test portal] report() refuses an unknown typeId with PORTAL_OPERATION_UNSUPPORTED", async () => {
  const portal = createTestPortal({ now: () => NOW });
  await rejectsWith(runReport(portal, "vat_files_scan", {}, CTX), "PORTAL_OPERATION_UNSUPPORTED");
  await rejectsWith(runReport(portal, "nope", {}, CTX), "PORTAL_OPERATION_UNSUPPORTED");
});

Deno.test("[test portal] report() refuses a body its schema rejects with VALIDATION_FAILED", async () => {
  const portal = createTestPortal({ now: () => NOW });
  await rejectsWith(
    runReport(portal, "debt_payments", { eik: "12", year: 2025 }, CTX),
    "VALIDATION_FAILED",
  );
  await rejectsWith(
    runReport(portal, "vat_portal_files", { eik: EIK, year: 2025, month: 13 }, CTX),
    "VALIDATION_FAILED",
  );
});

Deno.test("[test portal] taxpayers follow the sender of the context", async () => {
  const portal = createTestPortal({ now: () => NOW });
  const a = await runReport(portal, "taxpayers", {}, {
    sender: { id: "acme", displayName: "Acme" },
  });
  const b = await runReport(portal, "taxpayers", {}, {
    sender: { id: "other", displayName: "Other" },
  });
  assert.deepEqual(
    a,
    await runReport(portal, "taxpayers", {}, { sender: { id: "acme", displayName: "x" } }),
  );
  assert.notDeepEqual(a, b);
});

Deno.test("[test portal] submit() numbers submissions from the clock and a counter", async () => {
  const portal = createTestPortal({ now: () => NOW });
  const input = {
    kind: "vat" as const,
    eik: EIK,
    request: { eik: EIK, year: 2026, month: 2 },
    files: [],
  };
  const a = await portal.submit(input, CTX);
  const b = await portal.submit(input, CTX);
  SubmissionResult.parse(a);
  assert.equal(a.success && b.success, true);
  assert.notEqual(a.documentId, b.documentId);
  assert.equal(a.submissionDate, NOW.toISOString());
});

Deno.test("[test portal] result() verifies documentIds without state, across instances", async () => {
  let t = NOW.getTime();
  const first = createTestPortal({ now: () => new Date(t) });
  const sub = await first.submit(
    { kind: "etz62", eik: EIK, request: { eik: EIK }, files: [] },
    CTX,
  );
  t += 3_600_000;
  const restarted = createTestPortal({ now: () => new Date(t) });
  const ok = await restarted.result("etz62", sub.documentId!, EIK, CTX);
  SubmissionResultPayload.parse(ok);
  assert.equal(ok.status, "ok");
  assert.match(ok.rawBody, /е приета/);
  assert.match(ok.rawBody, /Общ брой вписани<\/th><td>1</);
  const wrong = await restarted.result("etz123", sub.documentId!, EIK, CTX);
  assert.equal(wrong.status, "error");
});

Deno.test("[test portal] the PORTAL_UNAVAILABLE EIK fails every operation with PORTAL_UNREACHABLE", async () => {
  const portal = createTestPortal({ now: () => NOW });
  const eik = SPECIAL_EIKS.find((s) => s.behaviour === "PORTAL_UNAVAILABLE")!.eik;
  await rejectsWith(
    runReport(portal, "debt_payments", { eik, year: 2025 }, CTX),
    "PORTAL_UNREACHABLE",
  );
  await rejectsWith(
    runReport(portal, "vat_portal_files", { eik, year: 2025, month: 1 }, CTX),
    "PORTAL_UNREACHABLE",
  );
  await rejectsWith(
    portal.submit({ kind: "vat", eik, request: { eik, year: 2025, month: 1 }, files: [] }, CTX),
    "PORTAL_UNREACHABLE",
  );
  await rejectsWith(portal.result("vat", "1", eik, CTX), "PORTAL_UNREACHABLE");
});

Deno.test("[test portal] SPECIAL_EIKS are valid, distinct Bulstats with a description", () => {
  assert.equal(new Set(SPECIAL_EIKS.map((s) => s.eik)).size, SPECIAL_EIKS.length);
  assert.equal(new Set(SPECIAL_EIKS.map((s) => s.behaviour)).size, SPECIAL_EIKS.length);
  for (const s of SPECIAL_EIKS) {
    assert.ok(isValidEik(s.eik), s.eik);
    assert.ok(s.description.length > 20);
  }
});

Deno.test("test portal: the ANSWER_LOST EIK loses the answer of a sent filing (outcome unknown)", async () => {
  const portal = createTestPortal({ now: () => new Date("2026-11-02T10:00:00Z") });
  const input = {
    kind: "vat",
    eik: "999999956",
    period: { year: 2026, month: 10 },
    files: [],
    clientRef: "r1",
    at: new Date("2026-11-02T10:00:00Z"),
  } as unknown as Parameters<typeof portal.submit>[0];
  await assert.rejects(
    portal.submit(input, CTX),
    (e) => isAppError(e) && e.code === "PORTAL_TIMEOUT" && e.details?.outcome === "unknown",
  );
  assert.equal(await portal.reconcile!(input, CTX), null);
});
