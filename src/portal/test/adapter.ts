/**
 * The test portal: a {@link PortalAdapter} in mode "test" that never touches the network and
 * answers every operation from the deterministic generators of src/mock (same EIK → same data).
 * Submissions get self-verifying documentIds numbered from the injected clock plus a counter;
 * reports dispatch by typeId; portal files are rendered through src/formats (nra_files.ts).
 * Implements interface-spec.md § What the service does, point 5 ("With a test key the agent
 * returns realistic fictitious data for any EIK, with no calls to the portal"); described in
 * docs/test-portal.md.
 * @module
 */
import type { z } from "zod";
import { AppError } from "../../contract/errors.ts";
import type { SubmissionKind } from "../../contract/operations.ts";
import * as reports from "../../contract/reports.ts";
import type { SubmissionResult, SubmissionResultPayload } from "../../contract/types.ts";
import {
  debtPayments,
  debtPaymentsTypes,
  dec16PortalFiles,
  dueAmounts,
  napCatalog,
  seqOfInstant,
  SPECIAL_EIKS,
  specialBehaviour,
  type SpecialEik,
  submissionResult,
  submitDeclaration,
  taxpayers,
  vatMonthlyFiles,
  vatPortalFiles,
} from "../../mock/mod.ts";
import type { PortalAdapter, PortalContext, SubmissionInput } from "../adapter.ts";
import { NRA_FILE_KIT } from "./nra_files.ts";

/** The special test EIKs (docs/test-portal.md § Special EIKs), re-exported from src/mock. */
export { SPECIAL_EIKS, type SpecialEik };

/** Options of {@link createTestPortal}. */
export interface TestPortalOptions {
  /** The injected clock: the submission time, the "now" of reports and portal files. */
  readonly now: () => Date;
}

/** The report typeIds the test portal answers (PortalAdapter.report). */
export const TEST_PORTAL_REPORTS = [
  "debt_payments",
  "debt_payments_types",
  "due_amounts",
  "taxpayers",
  "nap_catalog",
  "vat_portal_files",
  "dec1_6_portal_files",
  "vat_monthly_files",
] as const;

/** A report typeId of {@link TEST_PORTAL_REPORTS}. */
export type TestPortalReport = typeof TEST_PORTAL_REPORTS[number];

const REQUEST_SCHEMAS: Readonly<Record<TestPortalReport, z.ZodTypeAny>> = {
  debt_payments: reports.DebtPaymentsRequest,
  debt_payments_types: reports.DebtPaymentsTypesRequest,
  due_amounts: reports.DueAmountsRequest,
  taxpayers: reports.TaxpayersRequest,
  nap_catalog: reports.NapCatalogRequest,
  vat_portal_files: reports.VatPortalFilesRequest,
  dec1_6_portal_files: reports.Dec16PortalFilesRequest,
  vat_monthly_files: reports.VatMonthlyFilesRequest,
};

function isReport(typeId: string): typeId is TestPortalReport {
  return Object.hasOwn(REQUEST_SCHEMAS, typeId);
}

function assertReachable(eik: unknown): void {
  if (typeof eik === "string" && specialBehaviour(eik) === "PORTAL_UNAVAILABLE") {
    throw new AppError(
      "PORTAL_UNREACHABLE",
      `The test portal is unreachable for EIK ${eik} (special test EIK)`,
      { eik },
    );
  }
}

function parseRequest(typeId: TestPortalReport, request: unknown): Record<string, unknown> {
  const parsed = REQUEST_SCHEMAS[typeId].safeParse(request);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") ?? "";
    throw new AppError(
      "VALIDATION_FAILED",
      `Field "${field}" of the ${typeId} request is invalid: ${issue?.message ?? "invalid"}`,
      { field },
    );
  }
  return parsed.data as Record<string, unknown>;
}

/** Reports whose answer depends only on the request and the calendar day (memoized). */
const MEMO_REPORTS = new Set(["debt_payments", "due_amounts"]);
/** Memo entries kept (oldest dropped first). */
const MEMO_SIZE = 512;

/** A slot 0–99 within the second, from a client reference (FNV-1a). */
function refSlot(ref: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < ref.length; i++) h = Math.imul(h ^ ref.charCodeAt(i), 0x01000193) >>> 0;
  return h % 100;
}

/**
 * Create the test portal.
 *
 * Implements interface-spec.md § What the service does, point 5; docs/test-portal.md.
 * @param options `now`, the injected clock
 * @returns a PortalAdapter with mode "test"; its `submit` numbers submissions from
 *   `seqOfInstant(now())` and a counter, so two submissions never share a documentId
 * @throws nothing (the adapter's methods throw as documented on them)
 * @example
 * ```ts
 * const portal = createTestPortal({ now: () => new Date("2026-03-15T10:00:00Z") });
 * await portal.report("debt_payments", { eik: "121212121", year: 2025 }, { sender: null });
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
     * File one declaration with the test portal.
     * @throws AppError PORTAL_UNREACHABLE for the PORTAL_UNAVAILABLE special EIK
     */
    submit(input: SubmissionInput, _ctx: PortalContext): Promise<SubmissionResult> {
      try {
        assertReachable(input.eik);
        const now = input.at ?? options.now();
        const seq = input.clientRef ? seqOfInstant(now) + refSlot(input.clientRef) : nextSeq(now);
        return Promise.resolve(submitDeclaration(input, { now, seq }));
      } catch (e) {
        return Promise.reject(e);
      }
    },

    /**
     * Recover the answer of a journaled filing: the test portal numbers a filing with a
     * `clientRef` from its send instant and the reference, so the same answer can be computed
     * again after a crash (and a re-send of the same reference gets the same documentId).
     */
    reconcile(input: SubmissionInput, _ctx: PortalContext): Promise<SubmissionResult | null> {
      if (!input.clientRef || !input.at) return Promise.resolve(null);
      const seq = seqOfInstant(input.at) + refSlot(input.clientRef);
      return Promise.resolve(submitDeclaration(input, { now: input.at, seq }));
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
      try {
        assertReachable(eik);
        return Promise.resolve(submissionResult(kind, documentId, eik));
      } catch (e) {
        return Promise.reject(e);
      }
    },

    /**
     * Run a report operation.
     * @throws AppError PORTAL_OPERATION_UNSUPPORTED for a typeId the test portal lacks;
     *   VALIDATION_FAILED for a body its schema rejects; PORTAL_UNREACHABLE for the
     *   PORTAL_UNAVAILABLE special EIK
     */
    report(
      typeId: string,
      request: Readonly<Record<string, unknown>>,
      ctx: PortalContext,
    ): Promise<unknown> {
      try {
        const now = options.now();
        if (!MEMO_REPORTS.has(typeId)) return Promise.resolve(runReport(typeId, request, ctx, now));
        // debt_payments and due_amounts are a pure function of the request and the day.
        const key = `${typeId}|${now.toISOString().slice(0, 10)}|${JSON.stringify(request)}`;
        let hit = memo.get(key);
        if (hit === undefined) {
          hit = runReport(typeId, request, ctx, now);
          if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
          memo.set(key, hit);
        }
        return Promise.resolve(hit);
      } catch (e) {
        return Promise.reject(e);
      }
    },
  };
}

function runReport(
  typeId: string,
  request: Readonly<Record<string, unknown>>,
  ctx: PortalContext,
  now: Date,
): unknown {
  if (!isReport(typeId)) {
    throw new AppError(
      "PORTAL_OPERATION_UNSUPPORTED",
      `The test portal has no report "${typeId}"`,
      { typeId },
    );
  }
  const req = parseRequest(typeId, request);
  assertReachable(req.eik);
  const eik = String(req.eik ?? "");
  const year = req.year as number;
  const month = req.month as number;
  switch (typeId) {
    case "debt_payments":
      return debtPayments({ eik, year, type: req.type as string }, now);
    case "debt_payments_types":
      return debtPaymentsTypes();
    case "due_amounts":
      return dueAmounts({ eik, year: req.year as number | undefined }, now);
    case "taxpayers":
      return taxpayers(ctx.sender?.id ?? null);
    case "nap_catalog":
      return napCatalog({ filter: req.filter as string | undefined });
    case "vat_portal_files":
      return vatPortalFiles({ eik, year, month }, now, NRA_FILE_KIT);
    case "dec1_6_portal_files":
      return dec16PortalFiles({ eik, year, month }, now, NRA_FILE_KIT);
    case "vat_monthly_files":
      return vatMonthlyFiles({ eik, year, month }, now, NRA_FILE_KIT);
  }
}
