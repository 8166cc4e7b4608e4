/**
 * A folder-wide filing resumed after an interruption (docs/local-input.md § Resuming and
 * § Progress): the companies filed before are answered from the journal (a replay, marked by
 * filing.ts) and the time left is the pace of the real filings only. Real SQLite journal, a
 * fake clock, and a portal stand-in whose every filing takes 10 s of that clock.
 */
import { equal, ok } from "node:assert/strict";
import { getOperation } from "../../src/contract/mod.ts";
import type { BatchOperation, SubmissionResult } from "../../src/contract/mod.ts";
import { FakeClock } from "../../src/clock.ts";
import {
  BatchBoard,
  type BatchProgressView,
  fileSubmission,
  Journal,
  runBatch,
} from "../../src/agent/filing/mod.ts";
import type { OperationClaims } from "../../src/agent/http/mod.ts";
import type { SubmissionFiles } from "../../src/agent/local/mod.ts";
import type { PortalAdapter, PortalContext, SubmissionInput } from "../../src/portal/mod.ts";
import { validEik } from "../_helpers/company_tree.ts";

const op = getOperation("dec1_6_batch") as BatchOperation;
const BODY = { rootFolder: "/clients", recursive: true };
const OWNER = { integrator: "acme", mode: "live" as const, origin: "https://app.example" };

function scanOf(eiks: string[]) {
  const groups = new Map<string, SubmissionFiles>(
    eiks.map((eik) => [eik, {
      files: [{ name: "EMPL2021.TXT", kind: "d1", bytes: new TextEncoder().encode(eik) }],
      eiks: [eik],
      period: "202609",
      names: [`/clients/${eik}/EMPL2021.TXT`],
    }]),
  );
  return { groups, totalScanned: eiks.length, problems: [] };
}

/** A portal stand-in: each filing takes 10 s of the fake clock; `onSubmit` sees each call. */
function portalOf(clock: FakeClock, onSubmit: (eik: string) => void) {
  let n = 0;
  const portal = {
    mode: "live",
    submit: (input: SubmissionInput): Promise<SubmissionResult> => {
      onSubmit(input.eik);
      clock.advance(10_000);
      n++;
      return Promise.resolve({
        success: true,
        documentId: `doc-${n}`,
        incomeNumber: `${n}`,
        submissionDate: new Date(clock.now()).toISOString(),
        errorMessage: null,
        nativeErrors: [],
      });
    },
  } as unknown as PortalAdapter;
  return { portal, sent: () => n };
}

const ctx: PortalContext = { sender: { id: "s", displayName: "S" } } as PortalContext;

Deno.test("after a resume the time left is the pace of the real filings; replays do not shorten it", async () => {
  const clock = new FakeClock(Date.parse("2026-10-01T08:00:00Z"));
  const journal = new Journal(":memory:");
  try {
    const eiks = Array.from({ length: 6 }, (_, i) => validEik(61_000_000 + i * 11));
    const seen: BatchProgressView[] = [];
    const watch: { tracker?: ReturnType<BatchBoard["start"]> } = {};
    const { portal, sent } = portalOf(clock, () => {
      if (watch.tracker) seen.push(watch.tracker.view());
    });
    const deps = { journal, clock, log: () => {} };
    const meta = {
      typeId: op.typeId,
      mode: "live" as const,
      integrator: "acme",
      batchId: "B-1",
      idempotencyKey: null,
      period: "2026-09",
      replayFiled: true,
    };
    const submit = (input: SubmissionInput, c: PortalContext) =>
      fileSubmission(deps, portal, input, c, meta);
    const claims = (list: string[]) =>
      ({ eiks: list, mode: "live", typeId: op.typeId, jti: "j" }) as OperationClaims;
    // The first run files 4 of the 6 companies (then the agent "stops").
    await runBatch(
      op,
      BODY,
      claims(eiks.slice(0, 4)),
      scanOf(eiks),
      submit,
      () => Promise.resolve(ctx),
      { concurrency: 1 },
    );
    equal(sent(), 4);
    // The resend of the same batch: 4 answered from the journal, 2 filed now.
    const board = new BatchBoard(clock);
    const tracker = board.start("B-1", op.typeId, OWNER, null);
    watch.tracker = tracker;
    const r = await runBatch(
      op,
      BODY,
      claims(eiks),
      scanOf(eiks),
      submit,
      () => Promise.resolve(ctx),
      { concurrency: 1, tracker },
    );
    equal(sent(), 6, "only the 2 remaining companies reached the portal");
    equal(r.submitted, 6);
    // At the second real filing: 4 replays and 1 real filing of 10 s are done, 1 is left.
    const last = seen.at(-1)!;
    equal(last.filed, 5);
    equal(last.etaSeconds, 10, "1 left at 10 s each (the replays took no time)");
    ok(seen.length === 2);
    // One journal row per company: no company was filed twice.
    const rows = journal.list().filter((x) => x.state === "filed");
    equal(rows.length, 6);
    equal(new Set(rows.map((x) => x.eik)).size, 6);
  } finally {
    journal.close();
  }
});

Deno.test("a batch never ended is interrupted for the next board, with the companies not filed; a resend under its id replaces it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-batch-interrupted-" });
  const path = `${dir}/journal.sqlite`;
  const clock = new FakeClock(Date.parse("2026-10-01T08:00:00Z"));
  const eiks = Array.from({ length: 5 }, (_, i) => validEik(62_000_000 + i * 11)).sort();
  const token = "a".repeat(64);
  const outcome = (eik: string) => ({
    eik,
    outcome: "submitted" as const,
    errorCode: null,
    filingId: null,
    documentId: "d",
  });
  try {
    let journal = new Journal(path);
    const t = new BatchBoard(clock, journal.batches).start("B-9", op.typeId, OWNER, token);
    t.plan(6, 5, eiks);
    t.record(outcome(eiks[0]!), true);
    t.record(outcome(eiks[3]!), true);
    journal.close(); // the agent dies: no done()
    journal = new Journal(path);
    clock.advance(60_000);
    const board = new BatchBoard(clock, journal.batches);
    const [b] = board.list();
    equal(b!.progress.state, "interrupted");
    equal(b!.progress.filed, 2);
    equal(b!.progress.total, 6);
    equal(b!.progress.etaSeconds, null);
    equal(JSON.stringify(b!.progress.remaining), JSON.stringify([eiks[1], eiks[2], eiks[4]]));
    // Its page reads it with the batch's token and origin; kept past the 10 minutes of a done one.
    clock.advance(60 * 60_000);
    equal(board.read("B-9", token, OWNER.origin).state, "interrupted");
    // The resend under the same id is a new run (not FILING_IN_PROGRESS), and it ends.
    const again = board.start("B-9", op.typeId, OWNER, token);
    again.plan(6, 5, eiks);
    equal(board.read("B-9", token, OWNER.origin).state, "running");
    again.done();
    equal(journal.batches.unended(new Date(0)).length, 0);
    equal(new BatchBoard(clock, journal.batches).list().length, 0, "nothing interrupted now");
    journal.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
