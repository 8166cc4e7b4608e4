/**
 * Cross-checks of a VIES declaration (docs/nra-formats.md §1.5): one VHR and one VTR record, the
 * VHR line count, VIR/COS line numbers from 1, TTR totals vs the VIR lines, the CHR count vs
 * the COS lines, and filer/period against the rest of the VAT set.
 * @module
 */
import { bi } from "../../contract/mod.ts";
import type { ViesRecord } from "./vies.ts";
import { type Bilingual, cents, showCents, type VatWarningCode } from "./warnings.ts";

/** Sink for findings: `perLine` folds repeats of the same code into one warning. */
export type Emit = (
  code: VatWarningCode,
  line: number | undefined,
  text: Bilingual,
  perLine: boolean,
) => void;

/** What the VIES file is compared against (from DEKLAR or the first ledger line). */
export interface ViesReference {
  /** Filer VAT number, trimmed and upper-cased, or null. */
  readonly refVat: string | null;
  /** Period "YYYYMM", or null. */
  readonly refPeriod: string | null;
  /** Where the reference comes from, for messages (English and Bulgarian). */
  readonly refFile: Bilingual;
}

/** A VIR or COS line must carry its running number (1, 2, …). */
function running(type: string, found: number | null, expected: number, line: number, emit: Emit) {
  if (found === expected) return;
  emit(
    "RUNNING_NUMBER_GAP",
    line,
    bi(
      `VIES ред ${line}: номерът на реда ${type} е ${found ?? "(празно)"}; очаква се ${expected}`,
      `VIES line ${line}: ${type} line number is ${found ?? "(blank)"}; expected ${expected}`,
    ),
    true,
  );
}

/** What one pass over a VIES file counts: records per type, sums (cents), TTR and CHR lines. */
interface ViesTally {
  vhrCount: number;
  vtrCount: number;
  virCount: number;
  cosCount: number;
  /** Sum of the VIR goods bases, cents. */
  goods: number;
  /** Sum of the VIR goods, triangular and services bases, cents. */
  all: number;
  /** 1-based line of the first TTR / CHR record, 0 when none. */
  ttrLine: number;
  chrLine: number;
}

/** One pass over the records: the counts and sums, and the per-record checks (period, VAT
 * number against the reference, running numbers of VIR and COS). */
function tallyVies(records: readonly ViesRecord[], ref: ViesReference, emit: Emit): ViesTally {
  let vhrCount = 0;
  let vtrCount = 0;
  let virCount = 0;
  let cosCount = 0;
  let goods = 0;
  let all = 0;
  let ttrLine = 0;
  let chrLine = 0;
  for (const [i, r] of records.entries()) {
    const line = i + 1;
    switch (r.recordType) {
      case "VHR":
        vhrCount++;
        if (vhrCount === 1) {
          if (ref.refPeriod !== null && r.period !== ref.refPeriod) {
            emit(
              "PERIOD_MISMATCH",
              line,
              bi(
                `Периодът във VIES VHR ${
                  r.period ?? "(празно)"
                } се различава от ${ref.refPeriod} в ${ref.refFile.bg}`,
                `VIES VHR period ${
                  r.period ?? "(blank)"
                } differs from ${ref.refPeriod} in ${ref.refFile.en}`,
              ),
              false,
            );
          }
        }
        break;
      case "VTR":
        vtrCount++;
        if (ref.refVat !== null && r.vatNumber.trim().toUpperCase() !== ref.refVat) {
          emit(
            "VAT_NUMBER_MISMATCH",
            line,
            bi(
              `ДДС номерът на лицето във VIES VTR "${r.vatNumber}" се различава от "${ref.refVat}" в ${ref.refFile.bg}`,
              `VIES VTR filer VAT number "${r.vatNumber}" differs from "${ref.refVat}" in ${ref.refFile.en}`,
            ),
            false,
          );
        }
        break;
      case "VIR":
        running(r.recordType, r.lineNumber, ++virCount, line, emit);
        goods += cents(r.goodsBase);
        all += cents(r.goodsBase) + cents(r.triangularBase) + cents(r.servicesBase);
        break;
      case "COS":
        running(r.recordType, r.lineNumber, ++cosCount, line, emit);
        break;
      case "TTR":
        ttrLine = ttrLine || line;
        break;
      case "CHR":
        chrLine = chrLine || line;
        break;
    }
  }
  return { vhrCount, vtrCount, virCount, cosCount, goods, all, ttrLine, chrLine };
}

/** The file's structure: VHR first, one VHR, one VTR, a TTR when there are VIR lines. */
function checkViesStructure(records: readonly ViesRecord[], t: ViesTally, emit: Emit): void {
  const { vhrCount, vtrCount, virCount, ttrLine } = t;
  const [first] = records;
  if (first !== undefined && first.recordType !== "VHR") {
    emit(
      "VIES_STRUCTURE",
      1,
      bi(
        `VIES започва с ${first.recordType}; очаква се първо запис VHR`,
        `VIES starts with ${first.recordType}; expected the VHR record first`,
      ),
      false,
    );
  }
  for (const [record, n] of [["VHR", vhrCount], ["VTR", vtrCount]] as const) {
    if (n === 1) continue;
    emit(
      "VIES_STRUCTURE",
      undefined,
      bi(
        `VIES има ${n} записа ${record}; очаква се 1`,
        `VIES has ${n} ${record} records; expected 1`,
      ),
      false,
    );
  }
  if (virCount > 0 && ttrLine === 0) {
    emit(
      "VIES_STRUCTURE",
      undefined,
      bi(
        "VIES има редове VIR, но няма запис TTR с общите суми",
        "VIES has VIR lines but no TTR totals record",
      ),
      false,
    );
  }
}

/** The declared counts (VHR's lines, CHR's COS lines) and TTR's totals against the lines. */
function checkViesTotals(records: readonly ViesRecord[], t: ViesTally, emit: Emit): void {
  const { virCount, cosCount, goods, all, ttrLine, chrLine } = t;
  const vhr = records.find((r) => r.recordType === "VHR");
  if (vhr !== undefined && vhr.recordType === "VHR") {
    const declared = vhr.lineCount ?? 0;
    if (declared !== virCount && declared !== records.length) {
      emit(
        "VIES_LINE_COUNT_MISMATCH",
        records.indexOf(vhr) + 1,
        bi(
          `VIES VHR посочва ${declared} реда, а файлът има ${virCount} реда VIR (${records.length} записа)`,
          `VIES VHR declares ${declared} lines but the file has ${virCount} VIR lines (${records.length} records)`,
        ),
        false,
      );
    }
  }
  const ttr = records.find((r) => r.recordType === "TTR");
  if (ttr !== undefined && ttr.recordType === "TTR") {
    if (cents(ttr.totalBase) !== all) {
      emit(
        "VIES_TOTAL_MISMATCH",
        ttrLine,
        bi(
          `Общата данъчна основа във VIES TTR е ${
            showCents(cents(ttr.totalBase))
          }, а сборът на редовете VIR е ${showCents(all)}`,
          `VIES TTR total base is ${showCents(cents(ttr.totalBase))} but the VIR lines add up to ${
            showCents(all)
          }`,
        ),
        false,
      );
    }
    if (cents(ttr.goodsBase) !== goods) {
      emit(
        "VIES_TOTAL_MISMATCH",
        ttrLine,
        bi(
          `Основата за ВОД на стоки във VIES TTR е ${
            showCents(cents(ttr.goodsBase))
          }, а сборът на стоките в редовете VIR е ${showCents(goods)}`,
          `VIES TTR goods base is ${
            showCents(cents(ttr.goodsBase))
          } but the VIR goods bases add up to ${showCents(goods)}`,
        ),
        false,
      );
    }
  }
  const chr = records.find((r) => r.recordType === "CHR");
  if (chr !== undefined && chr.recordType === "CHR" && (chr.cosCount ?? 0) !== cosCount) {
    emit(
      "VIES_LINE_COUNT_MISMATCH",
      chrLine,
      bi(
        `VIES CHR посочва ${chr.cosCount ?? 0} реда COS, а файлът има ${cosCount}`,
        `VIES CHR declares ${chr.cosCount ?? 0} COS lines but the file has ${cosCount}`,
      ),
      false,
    );
  }
}

/**
 * Check one VIES declaration.
 * @param records the parsed VIES.TXT records
 * @param ref filer and period to compare with
 * @param emit receives each finding
 * @returns nothing
 * @throws nothing
 */
export function checkVies(records: readonly ViesRecord[], ref: ViesReference, emit: Emit): void {
  const t = tallyVies(records, ref, emit);
  checkViesStructure(records, t, emit);
  checkViesTotals(records, t, emit);
}
