/**
 * The test portal: a {@link PortalAdapter} in mode "test" that never touches the network and
 * answers every operation from the deterministic generators of src/mock (same EIK → same data).
 * Submissions get self-verifying documentIds numbered from the injected clock plus a counter;
 * reports are answered by the generator the registry names (src/mock/answers.ts); portal files are
 * rendered through src/formats (nra_files.ts). Implements docs/test-portal.md (realistic
 * fictitious data for any EIK, no call to the NRA; § Determinism).
 * @module
 */
import {
  AppError,
  REPORT_OPERATIONS,
  type ReportAnswer,
  type ReportOperationOf,
  type ReportRequestOf,
  type ReportResultOf,
  type SubmissionKind,
  type SubmissionResult,
  type SubmissionResultPayload,
} from "../../contract/mod.ts";
import {
  answerReport,
  companyProfile,
  isTaxpayerId,
  REPORT_ANSWERS,
  seqOfInstant,
  SPECIAL_EIKS,
  type SpecialEik,
  submissionResult,
  submitDeclaration,
} from "../../mock/mod.ts";
import type { PortalAdapter, PortalContext, SubmissionInput } from "../adapter.ts";
import { NRA_FILE_KIT } from "./nra_files.ts";
import { specialRule } from "./special.ts";

/** The special test EIKs (docs/test-portal.md § Special EIKs), re-exported from src/mock. */
export { SPECIAL_EIKS, type SpecialEik };

/** The report typeIds the test portal answers: every registry report with a generator. */
export const TEST_PORTAL_REPORTS: readonly string[] = REPORT_OPERATIONS
  .filter((o) => Object.hasOwn(REPORT_ANSWERS, o.answer))
  .map((o) => o.typeId);

/** Options of {@link createTestPortal}. */
export interface TestPortalOptions {
  /** The injected clock: the submission time, the "now" of reports and portal files. */
  readonly now: () => Date;
  /** Time each filing takes, ms (default 0): a batch in test mode takes a realistic time, so
   * its progress can be watched (the agent's setting SVC_TEST_PORTAL_DELAY_MS). */
  readonly submitDelayMs?: number;
}

/** Memo entries kept (oldest dropped first). */
const MEMO_SIZE = 512;

/** A slot 0–99 within the second, from a client reference (FNV-1a). */
function refSlot(ref: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < ref.length; i++) h = Math.imul(h ^ ref.charCodeAt(i), 0x01000193) >>> 0;
  return h % 100;
}

/**
 * File one declaration with the test portal (after `submitDelayMs`).
 * @param nextSeq the portal's next document number for an instant
 * @throws AppError PORTAL_UNREACHABLE for the PORTAL_UNAVAILABLE special EIK; PORTAL_TIMEOUT
 *   (outcome unknown) for the ANSWER_LOST one
 */
async function submitToTestPortal(
  options: TestPortalOptions,
  nextSeq: (now: Date) => number,
  input: SubmissionInput,
): Promise<SubmissionResult> {
  input.onSend?.();
  const delay = options.submitDelayMs ?? 0;
  if (delay > 0) await new Promise((r) => setTimeout(r, delay));
  const special = specialRule(input.eik).submit;
  if (special) return special(input.eik);
  const now = input.at ?? options.now();
  const seq = input.clientRef ? seqOfInstant(now) + refSlot(input.clientRef) : nextSeq(now);
  return submitDeclaration(input, { now, seq });
}

/**
 * Answer a report operation of the registry with its generator; day-stable reports are
 * memoized per calendar day in `memo` (at most MEMO_SIZE entries).
 * @throws AppError PORTAL_OPERATION_UNSUPPORTED, PORTAL_UNREACHABLE (special EIK)
 */
function answerReportMemo<A extends ReportAnswer>(
  options: TestPortalOptions,
  memo: Map<string, unknown>,
  op: ReportOperationOf<A>,
  request: ReportRequestOf<A>,
  ctx: PortalContext,
): ReportResultOf<A> {
  if (!Object.hasOwn(REPORT_ANSWERS, op.answer)) {
    throw new AppError(
      "PORTAL_OPERATION_UNSUPPORTED",
      `The test portal has no report "${op.typeId}"`,
      { typeId: op.typeId },
    );
  }
  const special = specialRule("eik" in request ? request.eik : null).report;
  const now = options.now();
  const env = { now, senderId: ctx.sender?.id ?? null, files: NRA_FILE_KIT };
  const answer = (): ReportResultOf<A> => {
    const plain = answerReport(op.answer, request, env);
    return special ? special(plain, op.result.shape) : plain;
  };
  if (!op.dayStable) return answer();
  // A day-stable report is a pure function of the request and the day.
  const key = `${op.typeId}|${now.toISOString().slice(0, 10)}|${JSON.stringify(request)}`;
  let hit = memo.get(key) as ReportResultOf<A> | undefined;
  if (hit === undefined) {
    hit = answer();
    // non-null: memo.size >= MEMO_SIZE > 0, so it has a first key
    if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
    memo.set(key, hit);
  }
  return hit;
}

/** A journaled filing's answer computed again from its send instant and reference (null without
 * them, or for the ANSWER_LOST special EIK). */
function reconcileTestFiling(input: SubmissionInput): SubmissionResult | null {
  if (!input.clientRef || !input.at) return null;
  if (specialRule(input.eik).answerLost) return null;
  const seq = seqOfInstant(input.at) + refSlot(input.clientRef);
  return submitDeclaration(input, { now: input.at, seq });
}

/**
 * Create the test portal.
 *
 * Implements docs/test-portal.md § Determinism.
 * @param options `now`, the injected clock
 * @returns a PortalAdapter with mode "test"; its `submit` numbers submissions from
 *   `seqOfInstant(now())` and a counter, so two submissions never share a documentId
 * @throws nothing (the adapter's methods throw as documented on them)
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { REPORT_OPERATIONS } from "../../contract/mod.ts";
 * const portal = createTestPortal({ now: () => new Date("2026-03-15T10:00:00Z") });
 * const op = REPORT_OPERATIONS.find((o) => o.typeId === "debt_payments")!; // the registry entry
 * const request = op.request.parse({ eik: "121212121", year: 2025 }); // validated once, by the agent
 * const answer = await portal.report(op, request, { sender: null });
 * ok(answer);
 * ```
 */
export function createTestPortal(options: TestPortalOptions): PortalAdapter {
  const memo = new Map<string, unknown>();
  let lastSeq = -1;
  const nextSeq = (now: Date): number => {
    lastSeq = Math.max(seqOfInstant(now), lastSeq + 1);
    return lastSeq;
  };

  return {
    mode: "test",

    /**
     * The test portal offers every operation of the registry and needs no credentials.
     * @returns nothing
     * @throws nothing
     */
    check(): void {},

    /**
     * The fictitious taxpayer's name of an EIK (the same name its DEKLAR.TXT and reports carry).
     * @returns the profile's name, or null for text that is not an EIK/EGN
     * @throws nothing
     */
    companyName(eik: string): string | null {
      return isTaxpayerId(eik) ? companyProfile(eik).name : null;
    },

    /**
     * File one declaration with the test portal.
     * @throws AppError PORTAL_UNREACHABLE for the PORTAL_UNAVAILABLE special EIK; PORTAL_TIMEOUT
     *   (outcome unknown) for the ANSWER_LOST one
     */
    async submit(input: SubmissionInput, _ctx: PortalContext): Promise<SubmissionResult> {
      return await submitToTestPortal(options, nextSeq, input);
    },

    /**
     * Recover the answer of a journaled filing: the test portal numbers a filing with a
     * `clientRef` from its send instant and the reference, so the same answer can be computed
     * again after a crash (and a re-send of the same reference gets the same documentId).
     */
    reconcile(input: SubmissionInput, _ctx: PortalContext): Promise<SubmissionResult | null> {
      return Promise.resolve(reconcileTestFiling(input));
    },

    /**
     * The result of a submission, from its documentId.
     * @throws AppError PORTAL_UNREACHABLE for the PORTAL_UNAVAILABLE special EIK
     */
    result(
      kind: SubmissionKind,
      documentId: string,
      eik: string,
      _ctx: PortalContext,
    ): Promise<SubmissionResultPayload> {
      return Promise.resolve().then(() => {
        return submissionResult(kind, documentId, eik, specialRule(eik).verdict);
      });
    },

    /**
     * Run a report operation of the registry: its generator (`op.answer`) answers the request
     * the agent validated; day-stable reports (`op.dayStable`) are memoized per calendar day.
     * @throws AppError PORTAL_OPERATION_UNSUPPORTED for an entry without a generator;
     *   PORTAL_UNREACHABLE for the PORTAL_UNAVAILABLE special EIK
     */
    report<A extends ReportAnswer>(
      op: ReportOperationOf<A>,
      request: ReportRequestOf<A>,
      ctx: PortalContext,
    ): Promise<ReportResultOf<A>> {
      try {
        return Promise.resolve(answerReportMemo(options, memo, op, request, ctx));
      } catch (e) {
        return Promise.reject(e);
      }
    },
  };
}
