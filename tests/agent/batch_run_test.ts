/**
 * The folder-wide filing pipeline (src/agent/filing/batch.ts) with a portal whose answers the
 * test controls: one signature at a time, a bounded number of filings in flight, signing
 * overlapping the round trips, the whole batch pausing for a Retry-After, a wrong PIN stopping
 * it at once, and unknown outcomes listed with their journal row; the progress board
 * (batch_board.ts) follows, answers only its owner, and refuses a second run of a running batch.
 */
import { deepStrictEqual, equal, ok, throws } from "node:assert/strict";
import { AppError, getOperation, isAppError } from "../../src/contract/mod.ts";
import type { BatchOperation } from "../../src/contract/mod.ts";
import { BatchBoard, runBatch, tokenHash } from "../../src/agent/filing/mod.ts";
import type { OperationClaims } from "../../src/agent/http/mod.ts";
import type { SubmissionFiles } from "../../src/agent/local/mod.ts";
import type { PortalContext, SubmissionInput } from "../../src/portal/mod.ts";
import { validEik } from "../_helpers/company_tree.ts";

const op = getOperation("dec1_6_batch") as BatchOperation;
const BODY = { rootFolder: "/clients", recursive: true };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function world(n: number) {
  const eiks = Array.from({ length: n }, (_, i) => validEik(60_000_000 + i * 11));
  const groups = new Map<string, SubmissionFiles>(
    eiks.map((eik) => [eik, {
      files: [{ name: "EMPL2021.TXT", kind: "d1", bytes: new TextEncoder().encode(eik) }],
      eiks: [eik],
      period: "202609",
      names: [`/clients/${eik}/EMPL2021.TXT`],
    }]),
  );
  const claims = { eiks, mode: "live", typeId: op.typeId, jti: "j" } as OperationClaims;
  return { eiks, claims, scan: { groups, totalScanned: n, problems: [] } };
}

/** A sender whose signatures take `ms` and count how many run at once. */
function signer(ms: number) {
  const s = { now: 0, max: 0, calls: 0 };
  const ctx: PortalContext = {
    sender: { id: "s", displayName: "S" },
    sign: async (bytes) => {
      s.calls++;
      s.now++;
      s.max = Math.max(s.max, s.now);
      await sleep(ms);
      s.now--;
      return bytes;
    },
  };
  return { s, ctx };
}

const ok200 = (eik: string) => ({
  success: true,
  documentId: `doc-${eik}`,
  incomeNumber: "1",
  submissionDate: null,
  errorMessage: null,
  nativeErrors: [],
});

Deno.test("a batch signs one company at a time and keeps at most 4 in flight, overlapping them", async () => {
  const { claims, scan, eiks } = world(20);
  const { s, ctx } = signer(5);
  let inFlight = 0;
  let maxInFlight = 0;
  const submit = async (input: SubmissionInput, c: PortalContext) => {
    await c.sign!(new Uint8Array([1]));
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await sleep(30); // the portal's round trip
    inFlight--;
    return ok200(input.eik);
  };
  const board = new BatchBoard({ now: () => Date.now() });
  const tracker = board.start(
    "b1",
    op.typeId,
    { integrator: "i", mode: "live", origin: null },
    "t",
  );
  const r = await runBatch(
    op,
    { rootFolder: "/clients", year: 2026, month: 9, recursive: true },
    claims,
    scan,
    submit,
    () => Promise.resolve(ctx),
    { tracker },
  );
  tracker.done();
  equal(r.submitted, 20);
  equal(r.unknown, 0);
  equal(s.max, 1, "one signature at a time on the key");
  equal(s.calls, 20);
  equal(maxInFlight, 4, "4 filings in flight to the portal: the signatures overlap them");
  deepStrictEqual(r.items.map((i) => i.eik), [...eiks].sort());
  const v = board.read("b1", "t", null);
  equal(v.state, "done");
  equal(v.filed, 20);
  equal(v.etaSeconds, 0);
});

Deno.test("a Retry-After pauses the whole batch; the company is filed after it", async () => {
  const { claims, scan } = world(6);
  const { ctx } = signer(0);
  const sent: { eik: string; at: number }[] = [];
  let refused = false;
  const board = new BatchBoard({ now: () => Date.now() });
  const tracker = board.start(
    "b2",
    op.typeId,
    { integrator: "i", mode: "live", origin: null },
    "t",
  );
  let sawWaiting = false;
  const submit = async (input: SubmissionInput) => {
    sent.push({ eik: input.eik, at: Date.now() });
    if (!refused) {
      refused = true;
      throw new AppError("PORTAL_REJECTED", "HTTP 429", {
        outcome: "refused",
        httpStatus: 429,
        retryAfterSeconds: 1,
      });
    }
    if (board.read("b2", "t", null).waiting) sawWaiting = true;
    await sleep(5);
    return ok200(input.eik);
  };
  const t0 = Date.now();
  const probe = (async () => {
    await sleep(300);
    return board.read("b2", "t", null);
  })();
  const r = await runBatch(op, BODY, claims, scan, submit, () => Promise.resolve(ctx), {
    tracker,
    concurrency: 1,
  });
  const during = await probe;
  equal(during.waiting?.reason, "retry_after");
  ok(during.waiting.retryAfterSeconds >= 1);
  equal(r.submitted, 6);
  equal(sent.length, 7, "the refused company was filed once more");
  equal(sent[1]!.eik, sent[0]!.eik, "the same company first");
  ok(sent[1]!.at - t0 >= 990, "nothing was sent before the Retry-After passed");
  equal(sawWaiting, false, "the wait is over once filing resumes");
});

Deno.test("a wrong PIN stops the batch at once: nothing more is sent, the rest fails with PIN_INCORRECT", async () => {
  const { claims, scan } = world(10);
  let signs = 0;
  const ctx: PortalContext = {
    sender: { id: "s", displayName: "S" },
    sign: () => {
      signs++;
      return Promise.reject(new AppError("PIN_INCORRECT", "wrong PIN"));
    },
  };
  const submit = async (_: SubmissionInput, c: PortalContext) => {
    await c.sign!(new Uint8Array(1));
    throw new Error("never sent");
  };
  const r = await runBatch(op, BODY, claims, scan, submit, () => Promise.resolve(ctx));
  equal(r.failed, 10);
  ok(r.items.every((i) => i.errorCode === "PIN_INCORRECT"));
  ok(signs <= 4, `at most the signatures already queued: ${signs}`);
});

Deno.test("an unknown outcome is listed with its journal row and never counted filed", async () => {
  const { claims, scan, eiks } = world(3);
  const { ctx } = signer(0);
  const lost = [...eiks].sort()[1]!;
  const submit = (input: SubmissionInput) =>
    input.eik === lost
      ? Promise.reject(
        new AppError("PORTAL_TIMEOUT", "no answer", { outcome: "unknown", filingId: "row-1" }),
      )
      : Promise.resolve(ok200(input.eik));
  const r = await runBatch(op, BODY, claims, scan, submit, () => Promise.resolve(ctx));
  equal(r.status, "partial");
  equal(r.unknown, 1);
  equal(r.submitted, 2);
  const item = r.items.find((i) => i.eik === lost)!;
  equal(item.outcome, "unknown");
  equal(item.filingId, "row-1");
  ok(/outcome is unknown/.test(r.error ?? ""), r.error ?? "");
});

Deno.test("the board answers only the batch's integrator token and origin, and refuses a second run while it runs", () => {
  let now = 1_000_000;
  const board = new BatchBoard({ now: () => now });
  const token = tokenHash("Bearer abc")!;
  const owner = { integrator: "acme", mode: "test" as const, origin: "https://app.example" };
  const t = board.start("B-1", op.typeId, owner, token);
  t.plan(3, 3);
  t.phase("filing");
  equal(board.read("B-1", token, "https://app.example").total, 3);
  const notFound = (f: () => unknown) =>
    throws(f, (e: unknown) => isAppError(e) && e.code === "BATCH_NOT_FOUND");
  notFound(() => board.read("B-1", token, "https://evil.example"));
  notFound(() => board.read("B-1", tokenHash("Bearer other"), "https://app.example"));
  notFound(() => board.read("B-1", null, "https://app.example"));
  notFound(() => board.read("B-2", token, "https://app.example"));
  // A second request of the running batch: FILING_IN_PROGRESS with the batch id and progress;
  // its token may read the progress too.
  const second = tokenHash("Bearer second")!;
  throws(
    () => board.start("B-1", op.typeId, owner, second),
    (e: unknown) =>
      isAppError(e) && e.code === "FILING_IN_PROGRESS" && e.details?.batchId === "B-1" &&
      (e.details?.progress as { total: number }).total === 3,
  );
  equal(board.read("B-1", second, "https://app.example").state, "running");
  // Another integrator's batch with the same id is its own; so is another operation of the same
  // user action (the VAT returns beside the D1/D6), which its own token reads.
  board.start("B-1", op.typeId, { ...owner, integrator: "other" }, tokenHash("Bearer o"));
  const vat = tokenHash("Bearer vat")!;
  board.start("B-1", "vat_batch", owner, vat).plan(7, 7);
  equal(board.read("B-1", vat, "https://app.example").typeId, "vat_batch");
  equal(board.read("B-1", token, "https://app.example").typeId, op.typeId);
  t.record(
    { eik: "1", outcome: "submitted", errorCode: null, filingId: null, documentId: "d" },
    true,
  );
  now += 10_000;
  const v = board.read("B-1", token, "https://app.example");
  equal(v.filed, 1);
  equal(v.etaSeconds, 20, "2 left at 10 s each");
  t.done();
  equal(board.read("B-1", token, "https://app.example").state, "done");
  // Kept 10 minutes after the end, then forgotten.
  now += 10 * 60_000;
  notFound(() => board.read("B-1", token, "https://app.example"));
  // A new run under the same id after it was forgotten is a new batch.
  board.start("B-1", op.typeId, owner, token);
});

Deno.test("a folder scan reports files examined of those found; the board lists scans past 2 s", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-scan-progress-" });
  try {
    const { writeCompanyTree } = await import("../_helpers/company_tree.ts");
    const { createLocalOps } = await import("../../src/agent/local/mod.ts");
    await writeCompanyTree(dir, 3, 2026, 9);
    const seen: [number, number][] = [];
    const r = await createLocalOps().runLocal(
      getOperation("dec1_files_scan") as never,
      { rootFolder: dir, year: 2026, month: 9, recursive: true },
      { path: dir },
      (examined, found) => seen.push([examined, found]),
    );
    equal((r as { totalMatched: number }).totalMatched, 3);
    const [examined, found] = seen.at(-1)!;
    ok(found > 0 && examined > 0 && examined <= found, JSON.stringify(seen.at(-1)));
    ok(seen.every(([e], i) => i === 0 || e >= seen[i - 1]![0]), "only grows");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  let now = 0;
  const board = new BatchBoard({ now: () => now });
  const scan = board.startScan("dec1_files_scan", "acme");
  scan.files(10, 400);
  deepStrictEqual(board.scans(), [], "not before 2 s");
  now += 2500;
  const [v] = board.scans();
  equal(v!.examined, 10);
  equal(v!.found, 400);
  equal(v!.seconds, 2);
  scan.done();
  deepStrictEqual(board.scans(), []);
});
