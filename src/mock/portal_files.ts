/**
 * The portal-files generators: `vat_portal_files`, `dec1_6_portal_files` and
 * `vat_monthly_files`. They find the filing of the period (filings.ts), build its structured
 * data (vat_records.ts, payroll_records.ts) and have an injected {@link NraFileKit} turn it
 * into NRA files: the kit writes the text, encodes it to Windows-1251 and decodes it back, so
 * `content` is exactly what a CP1251 file from the portal decodes to. The kit lives in the
 * portal layer (src/portal/test/nra_files.ts), which may import src/formats; src/mock stays
 * free of it (architecture.md § Layout, layer rule). A period with no filing at "now" (not yet
 * ended, not yet filed, or a taxpayer who does not file) answers status "error"
 * (declaration not found). Implements docs/test-portal.md § Portal files.
 * @module
 */
import type { ReportResultOf } from "../contract/mod.ts";
import { pad2, periodEnded, toIsoDate } from "./dates.ts";
import { currentFiling, type Filing, filingsAsOf, type PeriodicKind } from "./filings.ts";
import { type PayrollMonth, payrollMonth } from "./payroll_records.ts";
import { type VatReturnData, vatReturnData } from "./vat_records.ts";

/** A rendered NRA file: canonical name and UTF-8 content decoded from its CP1251 bytes. */
export interface RenderedFile {
  readonly name: string;
  readonly content: string;
}

/** The VAT file types of VatPortalFileItem. */
export type VatFileType = "declaration" | "purchases" | "sales" | "vies";

/** Turns structured data into NRA files and parses them back (injected by the portal layer). */
export interface NraFileKit {
  /** DEKLAR.TXT, POKUPKI.TXT, PRODAGBI.TXT and, when there are VIES lines, VIES.TXT. */
  vatFiles(data: VatReturnData): Readonly<Record<VatFileType, RenderedFile | null>>;
  /** EMPL2021.TXT (D1) and NRA62007.TXT (D6); `paymentDate` is the D6 payment date (ISO). */
  payrollFiles(
    data: PayrollMonth,
    paymentDate: string,
  ): Readonly<{ dec1: RenderedFile; dec6: RenderedFile }>;
  /** Parse a rendered VAT file with the format module's parser (JSON-serialisable records). */
  parseVatFile(type: VatFileType, content: string): unknown;
}

/** A period request (VatPortalFilesRequest, Dec16PortalFilesRequest, VatMonthlyFilesRequest). */
export interface PeriodInput {
  readonly eik: string;
  readonly year: number;
  readonly month: number;
}

const VAT_ORDER: readonly VatFileType[] = ["declaration", "purchases", "sales", "vies"];

function notFound(what: string, req: PeriodInput): string {
  return `Declaration not found: no ${what} of EIK ${req.eik} for period ${pad2(req.month)}.` +
    `${req.year}`;
}

/** A portal-files answer (VatPortalFilesResult, Dec16PortalFilesResult): the filing's document
 * id under `K`. */
type FilesAnswer<F, K extends string> =
  & {
    status: "ok" | "error";
    files: F[];
    error: string | null;
    incomeNumber: string | null;
    period: string | null;
    submittedAt: string | null;
  }
  & { [P in K]: string | null };

/**
 * The portal-files answer for the filing of a period in force at `now`: status ok with the files
 * `filesOf` makes of it, or status error (declaration not found) when nothing was filed by then.
 * @param req eik, year, month
 * @param now the injected clock's instant
 * @param kind which declaration
 * @param what its name in the not-found message
 * @param idKey the field that holds the filing's document id
 * @param filesOf the files of the filing
 * @returns the answer, its fields in the contract's order
 * @throws what `filesOf` throws
 */
function filesAnswer<F, K extends string>(
  req: PeriodInput,
  now: Date,
  kind: PeriodicKind,
  what: string,
  idKey: K,
  filesOf: (filing: Filing) => F[],
): FilesAnswer<F, K> {
  const filing = currentFiling(req.eik, kind, req.year, req.month, now);
  const fields = filing === null
    ? {
      status: "error" as const,
      files: [],
      error: notFound(what, req),
      incomeNumber: null,
      period: null,
      submittedAt: null,
    }
    : {
      status: "ok" as const,
      files: filesOf(filing),
      error: null,
      incomeNumber: filing.incomeNumber,
      period: `${req.year}${pad2(req.month)}`,
      submittedAt: filing.submittedAt.toISOString(),
    };
  return { ...fields, [idKey]: filing?.documentId ?? null } as FilesAnswer<F, K>;
}

/**
 * The files of the VAT return in force for a period (the latest filing at `now`).
 *
 * Implements docs/test-portal.md § Portal files.
 * @param req eik, year, month
 * @param now the injected clock's instant
 * @param kit renders the files (src/portal/test/nra_files.ts)
 * @returns status ok with 3 or 4 files, or status error when nothing was filed by now
 * @throws AppError FILE_PARSE_ERROR from the kit only on a bug (generated data that does not fit)
 */
export function vatPortalFiles(
  req: PeriodInput,
  now: Date,
  kit: NraFileKit,
): ReportResultOf<"vatPortalFiles"> {
  return filesAnswer(req, now, "vat", "VAT return", "docId", (filing) => {
    const rendered = kit.vatFiles(vatReturnData(req.eik, req.year, req.month));
    return VAT_ORDER.flatMap((type) => {
      const f = rendered[type];
      return f ? [{ name: f.name, type, docId: filing.documentId, content: f.content }] : [];
    });
  });
}

/**
 * The D1 and D6 files of the payroll declaration in force for a period.
 *
 * Implements docs/test-portal.md § Portal files.
 * @param req eik, year, month
 * @param now the injected clock's instant
 * @param kit renders the files
 * @returns status ok with EMPL2021.TXT and NRA62007.TXT, or status error when nothing was filed
 * @throws AppError FILE_PARSE_ERROR from the kit only on a bug
 */
export function dec16PortalFiles(
  req: PeriodInput,
  now: Date,
  kit: NraFileKit,
): ReportResultOf<"dec16PortalFiles"> {
  return filesAnswer(req, now, "dec1_6", "D1/D6 declaration", "submissionId", (filing) => {
    const { dec1, dec6 } = kit.payrollFiles(
      payrollMonth(req.eik, req.year, req.month),
      toIsoDate(filing.submittedAt),
    );
    const base = filing.documentId.slice(0, 11);
    return [
      { name: dec1.name, type: "dec1", docFileId: `${base}1`, content: dec1.content },
      { name: dec6.name, type: "dec6", docFileId: `${base}6`, content: dec6.content },
    ];
  });
}

/**
 * Every VAT submission of a period at `now` (the original and any correction) with its files
 * parsed to JSON strings: `declaration` is the parsed DEKLAR record, `purchases` and `sales`
 * the parsed ledger lines, `vies` the parsed VIES records (absent without VIES.TXT).
 *
 * Implements docs/test-portal.md § Portal files.
 * @param req eik, year, month
 * @param now the injected clock's instant
 * @param kit renders and parses the files
 * @returns status ok (items may be empty: NO_DATA), or status error for a period not yet ended
 * @throws AppError FILE_PARSE_ERROR from the kit only on a bug
 */
export function vatMonthlyFiles(
  req: PeriodInput,
  now: Date,
  kit: NraFileKit,
): ReportResultOf<"vatMonthlyFiles"> {
  if (!periodEnded(req.year, req.month, now)) {
    return { status: "error", items: [], error: notFound("VAT return", req) };
  }
  const filings = filingsAsOf(req.eik, "vat", req.year, req.month, now);
  if (filings.length === 0) return { status: "ok", items: [], error: null };
  const rendered = kit.vatFiles(vatReturnData(req.eik, req.year, req.month));
  const parsed = (type: VatFileType) => {
    const f = rendered[type];
    return f ? { [type]: JSON.stringify(kit.parseVatFile(type, f.content)) } : {};
  };
  const files = { ...parsed("declaration"), ...parsed("purchases"), ...parsed("sales") };
  const vies = parsed("vies");
  return {
    status: "ok",
    items: filings.map((f) => ({
      docId: f.documentId,
      incomeNumber: f.incomeNumber,
      submittedAt: f.submittedAt.toISOString(),
      user: f.user,
      ...files,
      ...vies,
    })),
    error: null,
  };
}
