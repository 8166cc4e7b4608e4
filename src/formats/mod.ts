/**
 * NRA file formats: read and write the Bulgarian NRA's VAT files (DEKLAR, POKUPKI, PRODAGBI,
 * VIES) and payroll declarations (D1 EMPL2021.TXT, D6 NRA62007.TXT), detect which file is
 * which, cross-check a VAT set, and encode/decode Windows-1251. Pure: no I/O, no clock, no
 * randomness. Layouts restated from docs/nra-formats.md; see docs/formats.md.
 * @module
 */
export { decodeCp1251, firstUnencodableCp1251, unencodable } from "./cp1251.ts";
export { type ErrorWhere, parseError } from "./format_error.ts";
export {
  type Align,
  defineLayout,
  type FieldSpec,
  type FieldType,
  type FieldValue,
  type FixedLayout,
  ParseCache,
  parseFixedLine,
  parseFixedLines,
  type RecordOf,
} from "./fixed_width.ts";
export { formatFixedLine, formatFixedLines } from "./fixed_width_write.ts";
export { contentKinds, detectFileKind, kindFromFileName } from "./detect.ts";
export {
  FILE_WARNING_CODES,
  type FileWarning,
  type FileWarningCode,
  type ReadOptions,
} from "./file_warnings.ts";
export {
  type DecodedText,
  decodeNraBytes,
  describeEncoding,
  encodingWarning,
  type NraEncoding,
  requireWindows1251,
} from "./text_encoding.ts";
export {
  type LineShape,
  NRA_FILE_KINDS,
  NRA_FORMATS,
  type NraFileKind,
  type NraFormat,
  type RecordsOf,
} from "./kinds.ts";
export { type ParsedAs, type ParsedNraFile, parseNraFile } from "./parse_any.ts";
export { eikCheckDigit, isValidEik, vatNumberToEik } from "./eik.ts";
export {
  DEKLAR_FIELDS,
  DEKLAR_LAYOUT,
  type DeklarRecord,
  parseDeklar,
  writeDeklar,
} from "./vat/mod.ts";
export {
  type LedgerWriteOptions,
  parsePokupki,
  POKUPKI_FIELDS,
  POKUPKI_LAYOUT,
  type PokupkiRecord,
  writePokupki,
} from "./vat/mod.ts";
export {
  parseProdagbi,
  PRODAGBI_FIELDS,
  PRODAGBI_LAYOUT,
  type ProdagbiRecord,
  writeProdagbi,
} from "./vat/mod.ts";
export {
  type ChrRecord,
  type CosRecord,
  parseVies,
  type TtrRecord,
  type VdrRecord,
  type VhrRecord,
  VIES_LAYOUTS,
  type ViesRecord,
  type ViesRecordType,
  type VirRecord,
  type VtrRecord,
  writeVies,
} from "./vat/mod.ts";
export {
  checkVatSet,
  VAT_WARNING_CODES,
  type VatSet,
  type VatWarning,
  type VatWarningCode,
} from "./vat/mod.ts";
export {
  parseVatFolderFiles,
  type VatFileOutcome,
  type VatFolderFiles,
  type VatFolderParseResult,
} from "./vat_folder.ts";
export { type DeklarSummary, summarizeDeklar, summarizeVies, type ViesSummary } from "./vat/mod.ts";
export {
  type DelimFieldSpec,
  type DelimRecordOf,
  type DelimType,
  type DelimValue,
} from "./payroll/mod.ts";
export { D1_FIELDS, D1_LAYOUT, type D1Record, parseD1, writeD1 } from "./payroll/mod.ts";
export { D6_FIELDS, D6_LAYOUT, type D6Record, parseD6, writeD6 } from "./payroll/mod.ts";
export { type PayrollFileSummary, summarizeD1, summarizeD6 } from "./payroll/mod.ts";
export {
  checkDeclarationFile,
  type CheckedFile,
  type FileIdentity,
  type FileRequest,
  identifyFile,
  type SingleFileKind,
  type XmlDeclaration,
} from "./declaration_file.ts";
