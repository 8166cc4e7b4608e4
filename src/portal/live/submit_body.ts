/**
 * The JSON body of `POST …/api-declarations[-test]/` (`ApiDeclarationsSubmitInputDto`): the
 * identity fields, the service type, the D1/D6 period fields and one entry per file with its
 * Base64 bytes and the detached CMS/PKCS#7 signature over exactly those bytes. Implements
 * docs/nra-api.md §3 (request JSON), §5 (signature) and §6 (enumerations).
 * @module
 */
import { extname } from "node:path";
import { AppError, isAppError } from "../../contract/mod.ts";
import { parseD1, parseD6 } from "../../formats/mod.ts";
import type { SubmissionFile, SubmissionInput } from "../adapter.ts";
import type { LiveSubmissionKind } from "./capabilities.ts";
import { base64, type NraIdentity } from "./identity.ts";

/** One `files[]` entry (docs/nra-api.md §3). */
export interface NraFileDto {
  readonly fileName: string;
  readonly fileType: string;
  /** Length of the raw file, bytes. */
  readonly fileSize: number;
  readonly fileContentBase64: string;
  readonly base64EncodedPkcs7: string;
  readonly fileDocumentType: string;
  /** D1/D6 only. */
  readonly numRecords?: number;
}

/** The submit body (docs/nra-api.md §3). */
export interface NraSubmitBody extends NraIdentity {
  readonly serviceDocumentType: string;
  /** D1/D6 only: two-digit month, the same in both fields. */
  readonly taxPeriodFrom?: string;
  readonly taxPeriodTo?: string;
  /** D1/D6 only: four-digit year. */
  readonly year?: string;
  /** D1/D6 only: 1 when filed by an insurance fund. */
  readonly insuranceFund?: 0 | 1;
  readonly files: readonly NraFileDto[];
}

/** The service type of each live kind. DEC_HIGH_FISC_RISK is unverified (docs/nra-api.md
 * §6: named in a comment only). */
export const SERVICE_DOCUMENT_TYPES: Readonly<Record<LiveSubmissionKind, string>> = {
  // Assumed, unverified: no public client files VAT through this API. Used only with
  // agent.json portal.experimentalVatService (capabilities.ts refuses vat otherwise).
  vat: "DEC_VAT",
  dec1_6: "DEC_1_6",
  etz62: "DEC_ETZ62",
  high_fisc_risk: "DEC_HIGH_FISC_RISK",
};

interface FileTyping {
  readonly fileDocumentType: string;
  readonly fileType: string;
  readonly numRecords?: number;
}

const extOf = (name: string) => extname(name).slice(1).toLowerCase();

function payrollTyping(f: SubmissionFile): FileTyping {
  if (f.kind !== "d1" && f.kind !== "d6") {
    throw new AppError(
      "FILE_KIND_UNKNOWN",
      `${f.name} is not a declaration 1 or 6 file, so it cannot be filed as DEC_1_6`,
      { file: f.name },
    );
  }
  const ext = extOf(f.name);
  const numRecords = f.numRecords ??
    (f.kind === "d1" ? parseD1(f.bytes, f.name).length : parseD6(f.bytes, f.name).length);
  return {
    fileDocumentType: f.kind === "d1" ? "DEC_1" : "DEC_6",
    fileType: ext === "csv" ? "csv" : "txt",
    numRecords,
  };
}

function xmlTyping(f: SubmissionFile, fileDocumentType: string): FileTyping {
  if (f.kind !== "xml" && extOf(f.name) !== "xml") {
    throw new AppError(
      "FILE_KIND_UNKNOWN",
      `${f.name} is not an XML file, so it cannot be filed as ${fileDocumentType}`,
      { file: f.name },
    );
  }
  return { fileDocumentType, fileType: "xml" };
}

/** File document types of the VAT files (assumed, unverified; experimentalVatService only). */
const VAT_FILE_TYPES: Readonly<Record<string, string>> = {
  deklar: "DEC_VAT_DEKLAR",
  pokupki: "DEC_VAT_POKUPKI",
  prodagbi: "DEC_VAT_PRODAGBI",
  vies: "DEC_VAT_VIES",
};

function vatTyping(f: SubmissionFile): FileTyping {
  const t = VAT_FILE_TYPES[f.kind];
  if (!t) {
    throw new AppError(
      "FILE_KIND_UNKNOWN",
      `${f.name} is not a VAT file (DEKLAR, POKUPKI, PRODAGBI, VIES)`,
      {
        file: f.name,
      },
    );
  }
  return {
    fileDocumentType: t,
    fileType: "txt",
    ...(f.numRecords !== undefined ? { numRecords: f.numRecords } : {}),
  };
}

function typingOf(kind: LiveSubmissionKind, request: Readonly<Record<string, unknown>>) {
  switch (kind) {
    case "vat":
      return vatTyping;
    case "dec1_6":
      return payrollTyping;
    case "etz62":
      return (f: SubmissionFile) => xmlTyping(f, "DEC_ETZ62");
    case "high_fisc_risk": {
      // Unverified: candidate enums DEC_FISC_RISK_<subtype> (docs/nra-api.md §6).
      const subtype = String(request.subtype ?? "");
      if (!/^[A-Z_]+$/.test(subtype)) {
        throw new AppError("VALIDATION_FAILED", 'Field "subtype" is required', {
          field: "subtype",
        });
      }
      return (f: SubmissionFile): FileTyping => ({
        fileDocumentType: `DEC_FISC_RISK_${subtype}`,
        fileType: extOf(f.name) || "xml",
      });
    }
  }
}

function periodFields(request: Readonly<Record<string, unknown>>) {
  const { year, month } = request;
  if (typeof year !== "number" || typeof month !== "number") {
    throw new AppError("VALIDATION_FAILED", 'Fields "year" and "month" are required for DEC_1_6', {
      field: typeof year !== "number" ? "year" : "month",
    });
  }
  const mm = String(month).padStart(2, "0");
  return {
    taxPeriodFrom: mm,
    taxPeriodTo: mm,
    year: String(year).padStart(4, "0"),
    insuranceFund: request.fund === true ? 1 as const : 0 as const,
  };
}

function vatPeriod(request: Readonly<Record<string, unknown>>) {
  const { insuranceFund: _f, ...p } = periodFields(request);
  return p;
}

async function signFile(
  sign: (bytes: Uint8Array) => Promise<Uint8Array>,
  f: SubmissionFile,
): Promise<Uint8Array> {
  try {
    return await sign(f.bytes);
  } catch (e) {
    if (isAppError(e)) throw e;
    throw new AppError("SIGNING_FAILED", `${f.name} could not be signed`, { file: f.name }, e);
  }
}

/**
 * Build the submit body, signing each file (one `sign` call per file, in order).
 *
 * Implements docs/nra-api.md §3, §5 and §6: DEC_1_6 with DEC_1/DEC_6, txt/csv, numRecords
 * (given, else counted by parsing), taxPeriodFrom/To "MM", year "YYYY", insuranceFund 0/1;
 * DEC_ETZ62 with DEC_ETZ62 xml files; DEC_HIGH_FISC_RISK with DEC_FISC_RISK_<subtype>
 * (unverified).
 * @param kind a live submission kind
 * @param input the submission (request body and files)
 * @param identity the identity fields
 * @param sign the signing step: detached CMS/PKCS#7 DER over the raw bytes
 * @returns the body to send as JSON
 * @throws AppError LOCAL_INPUT_REQUIRED (no files), FILE_KIND_UNKNOWN, FILE_PARSE_ERROR (D1/D6
 *   without numRecords that do not parse), VALIDATION_FAILED, SIGNING_FAILED and the signer's
 *   own codes (PIN_INCORRECT, PIN_LOCKED, KEYSTORE_UNAVAILABLE…)
 */
export async function buildSubmitBody(
  kind: LiveSubmissionKind,
  input: SubmissionInput,
  identity: NraIdentity,
  sign: (bytes: Uint8Array) => Promise<Uint8Array>,
): Promise<NraSubmitBody> {
  if (input.files.length === 0) {
    throw new AppError("LOCAL_INPUT_REQUIRED", `${kind} needs at least one file to file`, {
      field: kind === "dec1_6" ? "dec1FilePath" : "X-Svc-File-Path",
    });
  }
  const typing = typingOf(kind, input.request);
  const typed = input.files.map((f) => ({ f, t: typing(f) }));
  const files: NraFileDto[] = [];
  for (const { f, t } of typed) {
    const p7s = await signFile(sign, f);
    files.push({
      fileName: f.name,
      fileType: t.fileType,
      fileSize: f.bytes.byteLength,
      fileContentBase64: base64(f.bytes),
      base64EncodedPkcs7: base64(p7s),
      fileDocumentType: t.fileDocumentType,
      ...(t.numRecords !== undefined ? { numRecords: t.numRecords } : {}),
    });
  }
  return {
    ...identity,
    serviceDocumentType: SERVICE_DOCUMENT_TYPES[kind],
    ...(kind === "dec1_6" ? periodFields(input.request) : {}),
    ...(kind === "vat" ? vatPeriod(input.request) : {}),
    files,
  };
}
