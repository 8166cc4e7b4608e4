/**
 * The golden cases of the test portal: for each pinned EIK and each typeId, fixed requests run
 * through {@link createTestPortal} with a fixed clock (2026-03-15T10:00:00Z). Written to
 * fixtures/golden/<eik>/<typeId>.json by scripts/gen_golden.ts and compared by
 * tests/mock/golden_test.ts, so any change to the generated data shows up as a diff.
 * @module
 */
import { runReport } from "../_helpers/report.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import {
  OPERATIONS,
  REPORT_OPERATIONS,
  sampleRequest,
  type SubmissionKind,
} from "../../src/contract/operations.ts";
import { payrollMonth, vatReturnData } from "../../src/mock/mod.ts";
import type { SubmissionFile } from "../../src/portal/adapter.ts";
import { createTestPortal } from "../../src/portal/test/adapter.ts";
import { NRA_FILE_KIT } from "../../src/portal/test/nra_files.ts";
import { NOW, PINNED_EIKS } from "./_support.ts";

export { PINNED_EIKS };

/** One golden case: the request and what the test portal answered. */
export interface GoldenCase {
  readonly request: unknown;
  readonly result: unknown;
}

/** All golden files of one EIK: typeId → case name → case. */
export type GoldenFiles = Record<string, Record<string, GoldenCase>>;

const KINDS: readonly SubmissionKind[] = OPERATIONS.flatMap((o) =>
  o.family === "submission" ? [o.kind] : []
);

/**
 * The golden cases of the reports that have more than their registry sample: typeId → case name
 * → request. A report not listed here has one case, `sample`, its registry row's sample request.
 */
function reportCases(eik: string): Record<string, Record<string, Record<string, unknown>>> {
  const periods = {
    "2025-03": { eik, year: 2025, month: 3 },
    "2026-01": { eik, year: 2026, month: 1 },
  };
  return {
    debt_payments: {
      "2025": { eik, year: 2025 },
      "2026": { eik, year: 2026 },
      "2025-type-1": { eik, year: 2025, type: "1" },
    },
    debt_payments_types: { all: {} },
    due_amounts: { "all-years": { eik }, "2025": { eik, year: 2025 }, "2026": { eik, year: 2026 } },
    taxpayers: { "default-sender": {} },
    nap_catalog: { all: {}, "filter-ddc": { filter: "ДДС" } },
    vat_portal_files: periods,
    dec1_6_portal_files: periods,
    vat_monthly_files: periods,
  };
}

/** Every report of the registry with its golden cases (its sample when none are listed). */
function reportRequests(eik: string): Record<string, Record<string, Record<string, unknown>>> {
  const listed = reportCases(eik);
  return Object.fromEntries(
    REPORT_OPERATIONS.map((
      o,
    ) => [o.typeId, listed[o.typeId] ?? { sample: sampleRequest(o.typeId, eik) }]),
  );
}

function bytes(text: string, name: string): Uint8Array {
  return encodeCp1251(text, name);
}

function submissionFiles(kind: SubmissionKind, eik: string): SubmissionFile[] {
  if (kind === "vat") {
    const set = NRA_FILE_KIT.vatFiles(vatReturnData(eik, 2025, 12));
    const kinds = {
      declaration: "deklar",
      purchases: "pokupki",
      sales: "prodagbi",
      vies: "vies",
    } as const;
    return Object.entries(set).flatMap(([type, f]) =>
      f
        ? [{
          name: f.name,
          kind: kinds[type as keyof typeof kinds],
          bytes: bytes(f.content, f.name),
        }]
        : []
    );
  }
  if (kind === "dec1_6") {
    const { dec1, dec6 } = NRA_FILE_KIT.payrollFiles(payrollMonth(eik, 2025, 12), "2026-01-20");
    return [
      { name: dec1.name, kind: "d1", bytes: bytes(dec1.content, dec1.name) },
      { name: dec6.name, kind: "d6", bytes: bytes(dec6.content, dec6.name), numRecords: 1 },
    ];
  }
  return [{ name: `${kind}.xml`, kind: "xml", bytes: bytes(`<${kind} eik="${eik}"/>`, "x.xml") }];
}

/**
 * Build the golden files of one EIK (a fresh test portal, so documentIds are stable).
 * @param eik a pinned EIK
 * @returns typeId → case name → { request, result }
 */
export async function goldenFiles(eik: string): Promise<GoldenFiles> {
  const portal = createTestPortal({ now: () => NOW });
  const ctx = { sender: null };
  const out: GoldenFiles = {};
  for (const [typeId, cases] of Object.entries(reportRequests(eik))) {
    out[typeId] = {};
    for (const [name, request] of Object.entries(cases)) {
      out[typeId][name] = { request, result: await runReport(portal, typeId, request, ctx) };
    }
  }
  for (const kind of KINDS) {
    const request = sampleRequest(kind, eik);
    const submitted = await portal.submit(
      { kind, eik, request, files: submissionFiles(kind, eik) },
      ctx,
    );
    out[kind] = { "2025": { request, result: submitted } };
    const resultRequest = { documentId: submitted.documentId, eik };
    out[`${kind}_result`] = {
      issued: {
        request: resultRequest,
        result: await portal.result(kind, String(submitted.documentId), eik, ctx),
      },
    };
  }
  return out;
}

/**
 * The JSON text of a golden file (2-space indent, final newline; what `deno fmt` keeps).
 * @param cases the cases of one typeId
 * @returns the file text
 */
export function goldenText(cases: Record<string, GoldenCase>): string {
  return JSON.stringify(cases, null, 2) + "\n";
}

/**
 * Path of a golden file relative to the repository root.
 * @param eik the EIK
 * @param typeId the typeId
 * @returns `fixtures/golden/<eik>/<typeId>.json`
 */
export function goldenPath(eik: string, typeId: string): string {
  return `fixtures/golden/${eik}/${typeId}.json`;
}
