/**
 * Cross-checks of a VAT set (DEKLAR + POKUPKI + PRODAGBI [+ VIES]), returned as warnings,
 * never errors (docs/nra-formats.md "How to use this": "Treat record-count mismatches … as
 * warnings"). Rules: filer VAT number on every line = DEKLAR 00-01 (§1.1); one period across
 * the files (§1.1, §1.5); DEKLAR 00-05/00-06 vs ledger line counts (§1.2); running numbers
 * from 1 without gaps (§1.1); DEKLAR totals vs ledger sums (§1.2–§1.4); PRODAGBI line totals
 * 02-10/02-20 (§1.4); VIES counts and totals (§1.5); DEKLAR and PRODAGBI against VIES
 * (check_vies_links.ts). Amounts are compared in whole cents.
 * @module
 */
import { bi } from "../../contract/mod.ts";
import type { DeklarRecord } from "./deklar.ts";
import type { PokupkiRecord } from "./pokupki.ts";
import type { ProdagbiRecord } from "./prodagbi.ts";
import type { ViesRecord } from "./vies.ts";
import { checkVies, type Emit } from "./check_vies.ts";
import { checkViesLinks } from "./check_vies_links.ts";
import { type Bilingual, cents, showCents, type VatWarning, WarningCollector } from "./warnings.ts";

export { VAT_WARNING_CODES, type VatWarning, type VatWarningCode } from "./warnings.ts";

/**
 * The parsed files of one VAT submission; absent or null files are skipped, except VIES:
 * `vies: null` means the set has no readable VIES.TXT (missing or malformed), which is itself
 * checked against the intra-EU supplies of DEKLAR/PRODAGBI; leave `vies` out to skip every
 * VIES check.
 */
export interface VatSet {
  readonly deklar?: DeklarRecord | null;
  readonly pokupki?: readonly PokupkiRecord[] | null;
  readonly prodagbi?: readonly ProdagbiRecord[] | null;
  readonly vies?: readonly ViesRecord[] | null;
  /** File names used in warnings (defaults DEKLAR.TXT, POKUPKI.TXT, PRODAGBI.TXT, VIES.TXT). */
  readonly fileNames?: Partial<Record<"deklar" | "pokupki" | "prodagbi" | "vies", string>>;
}

type Ledger = readonly (PokupkiRecord | ProdagbiRecord)[];

/** DEKLAR field ← sum of a sales-ledger field (docs/nra-formats.md §1.2 vs §1.4). */
const SALES_TOTALS: ReadonlyArray<[keyof DeklarRecord, string, (keyof ProdagbiRecord)[], string]> =
  [
    ["totalTaxableBase", "01-01", ["totalBase"], "02-10"],
    ["totalVatCharged", "01-20", ["totalVat"], "02-20"],
    ["base20", "01-11", ["base20"], "02-11"],
    ["vat20", "01-21", ["vat20"], "02-21"],
    [
      "baseIntraEuAcquisitionsArt82",
      "01-12",
      ["baseIntraEuAcquisitions", "baseArt82"],
      "02-12 + 02-26",
    ],
    ["vatIntraEuAcquisitionsArt82", "01-22", ["vatIntraEuAcquisitionsArt82"], "02-22"],
    ["vatPrivateUse", "01-23", ["vatPrivateUse"], "02-23"],
    ["base9", "01-13", ["base9"], "02-13"],
    ["vat9", "01-24", ["vat9"], "02-24"],
    ["baseZeroChapter3", "01-14", ["baseZeroChapter3"], "02-14"],
    ["baseZeroIntraEuSupplies", "01-15", ["baseZeroIntraEuSupplies"], "02-15"],
    ["baseZeroOther", "01-16", ["baseZeroOther"], "02-16"],
    ["baseServicesArt21", "01-17", ["baseServicesArt21"], "02-17"],
    ["baseDistanceSales", "01-18", ["baseDistanceSales"], "02-18"],
    ["baseExempt", "01-19", ["baseExempt"], "02-19"],
  ];

/** DEKLAR field ← sum of a purchase-ledger field (docs/nra-formats.md §1.2 vs §1.3). */
const PURCHASE_TOTALS: ReadonlyArray<[keyof DeklarRecord, string, keyof PokupkiRecord, string]> = [
  ["purchasesNoCredit", "01-30", "baseAndVatNoCredit", "03-30"],
  ["baseFullCredit", "01-31", "baseFullCredit", "03-31"],
  ["vatFullCredit", "01-41", "vatFullCredit", "03-41"],
  ["basePartialCredit", "01-32", "basePartialCredit", "03-32"],
  ["vatPartialCredit", "01-42", "vatPartialCredit", "03-42"],
  ["annualAdjustment", "01-43", "annualAdjustment", "03-43"],
];

/** PRODAGBI line rules (docs/nra-formats.md §1.4): 02-10 and 02-20 are sums of their parts. */
const LINE_SUMS: ReadonlyArray<[keyof ProdagbiRecord, string, (keyof ProdagbiRecord)[], string]> = [
  ["totalBase", "02-10", [
    "base20",
    "baseIntraEuAcquisitions",
    "base9",
    "baseZeroChapter3",
    "baseZeroIntraEuSupplies",
    "baseZeroOther",
    "baseArt82",
  ], "02-11+12+13+14+15+16+26"],
  [
    "totalVat",
    "02-20",
    ["vat20", "vatIntraEuAcquisitionsArt82", "vatPrivateUse", "vat9"],
    "02-21+22+23+24",
  ],
];

function norm(v: string | null | undefined): string {
  return (v ?? "").trim().toUpperCase();
}

function checkLedgerLines(
  ledger: Ledger,
  file: string,
  label: string,
  refVat: string | null,
  refPeriod: string | null,
  refFile: Bilingual,
  w: WarningCollector,
): void {
  for (const [i, r] of ledger.entries()) {
    const line = i + 1;
    if (refVat !== null && norm(r.vatNumber) !== refVat) {
      w.perLine(
        "VAT_NUMBER_MISMATCH",
        file,
        line,
        bi(
          `${label} ред ${line}: ДДС номерът на лицето "${r.vatNumber}" се различава от "${refVat}" в ${refFile.bg}`,
          `${label} line ${line}: filer VAT number "${r.vatNumber}" differs from "${refVat}" in ${refFile.en}`,
        ),
      );
    }
    if (refPeriod !== null && r.period !== refPeriod) {
      w.perLine(
        "PERIOD_MISMATCH",
        file,
        line,
        bi(
          `${label} ред ${line}: периодът ${
            r.period ?? "(празно)"
          } се различава от ${refPeriod} в ${refFile.bg}`,
          `${label} line ${line}: period ${
            r.period ?? "(blank)"
          } differs from ${refPeriod} in ${refFile.en}`,
        ),
      );
    }
    if (r.runningNumber !== line) {
      w.perLine(
        "RUNNING_NUMBER_GAP",
        file,
        line,
        bi(
          `${label} ред ${line}: поредният номер е ${
            r.runningNumber ?? "(празно)"
          }; очаква се ${line} (номерата вървят от 1 без пропуски)`,
          `${label} line ${line}: running number is ${
            r.runningNumber ?? "(blank)"
          }; expected ${line} (numbers run from 1 without gaps)`,
        ),
      );
    }
  }
}

/**
 * Cross-check the files of one VAT submission.
 * @param set the parsed files (any subset; checks needing a missing file are skipped)
 * @returns warnings, grouped: a rule broken on many lines gives one warning naming the first
 *   line and how many more lines follow
 * @throws nothing
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseDeklar, parsePokupki, parseProdagbi } from "./mod.ts";
 * const read = (f: string) => Deno.readFile(`fixtures/formats/${f.toLowerCase()}/${f}.TXT`);
 * const deklar = parseDeklar(await read("DEKLAR"));
 * const pokupki = parsePokupki(await read("POKUPKI"));
 * const prodagbi = parseProdagbi(await read("PRODAGBI"));
 * deepEqual(checkVatSet({ deklar, pokupki, prodagbi }).map((w) => w.code), []); // consistent
 * ```
 */
export function checkVatSet(set: VatSet): VatWarning[] {
  const names = fileNamesOf(set);
  const w = new WarningCollector();
  const d = set.deklar ?? null;
  const pok = set.pokupki ?? null;
  const prod = set.prodagbi ?? null;
  const first = d ?? pok?.[0] ?? prod?.[0] ?? null;
  const refFile: Bilingual = d !== null
    ? bi(`${names.deklar} (00-01/00-03)`, `${names.deklar} (00-01/00-03)`)
    : pok?.[0]
    ? bi(`${names.pokupki} ред 1`, `${names.pokupki} line 1`)
    : bi(`${names.prodagbi} ред 1`, `${names.prodagbi} line 1`);
  const refVat = first === null ? null : norm(first.vatNumber);
  const refPeriod = first?.period ?? null;
  if (pok !== null) checkLedgerLines(pok, names.pokupki, "POKUPKI", refVat, refPeriod, refFile, w);
  if (prod !== null) {
    checkLedgerLines(prod, names.prodagbi, "PRODAGBI", refVat, refPeriod, refFile, w);
  }

  if (d !== null) checkDeklarAgainstLedgers(d, pok, prod, names, w);
  if (prod !== null) checkSalesLineSums(prod, names.prodagbi, w);
  if (set.vies !== undefined && set.vies !== null) {
    const emit: Emit = (code, line, text, perLine) =>
      perLine && line !== undefined
        ? w.perLine(code, names.vies, line, text)
        : w.add(code, names.vies, line, text);
    checkVies(set.vies, { refVat, refPeriod, refFile }, emit);
  }
  if (set.vies !== undefined) {
    checkViesLinks({ deklar: d, prodagbi: prod, vies: set.vies }, names, w);
  }
  return w.result();
}

/** The four files' names as the warnings cite them (the set's own, else the NRA's). */
function fileNamesOf(set: VatSet) {
  return {
    deklar: set.fileNames?.deklar ?? "DEKLAR.TXT",
    pokupki: set.fileNames?.pokupki ?? "POKUPKI.TXT",
    prodagbi: set.fileNames?.prodagbi ?? "PRODAGBI.TXT",
    vies: set.fileNames?.vies ?? "VIES.TXT",
  };
}

/** DEKLAR against the ledgers: the declared document counts (00-05, 00-06) and the totals. */
function checkDeklarAgainstLedgers(
  d: NonNullable<VatSet["deklar"]>,
  pok: NonNullable<VatSet["pokupki"]> | null,
  prod: NonNullable<VatSet["prodagbi"]> | null,
  names: ReturnType<typeof fileNamesOf>,
  w: WarningCollector,
): void {
  const counts: Array<[number | null, Ledger | null, string, string]> = [
    [d.salesDocumentCount, prod, "00-05", names.prodagbi],
    [d.purchaseDocumentCount, pok, "00-06", names.pokupki],
  ];
  for (const [declared, ledger, code, file] of counts) {
    if (ledger !== null && (declared ?? 0) !== ledger.length) {
      w.add(
        "DOCUMENT_COUNT_MISMATCH",
        names.deklar,
        1,
        bi(
          `DEKLAR ${code} посочва ${declared ?? 0} документа, а ${file} има ${ledger.length} реда`,
          `DEKLAR ${code} declares ${
            declared ?? 0
          } documents but ${file} has ${ledger.length} lines`,
        ),
      );
    }
  }
  if (prod !== null) {
    for (const [dk, dcode, lks, lcode] of SALES_TOTALS) {
      totalWarning(
        w,
        names.deklar,
        dcode,
        d[dk] as number | null,
        prod,
        lks,
        `PRODAGBI ${lcode}`,
      );
    }
  }
  if (pok !== null) {
    for (const [dk, dcode, lk, lcode] of PURCHASE_TOTALS) {
      totalWarning(w, names.deklar, dcode, d[dk] as number | null, pok, [lk], `POKUPKI ${lcode}`);
    }
  }
}

/** Each PRODAGBI line: its totals equal the sums of their parts (one warning per rule). */
function checkSalesLineSums(
  prod: NonNullable<VatSet["prodagbi"]>,
  file: string,
  w: WarningCollector,
): void {
  for (const [i, row] of prod.entries()) {
    for (const [tk, tcode, parts, pcode] of LINE_SUMS) {
      const total = cents(row[tk] as number | null);
      let sum = 0;
      for (const p of parts) sum += cents(row[p] as number | null);
      if (total !== sum) {
        w.perLine(
          "LINE_TOTAL_MISMATCH",
          file,
          i + 1,
          bi(
            `PRODAGBI ред ${i + 1}: ${tcode} е ${showCents(total)}, а ${pcode} е ${showCents(sum)}`,
            `PRODAGBI line ${i + 1}: ${tcode} is ${showCents(total)} but ${pcode} is ${
              showCents(sum)
            }`,
          ),
        );
      }
    }
  }
}

function totalWarning<R>(
  w: WarningCollector,
  file: string,
  dcode: string,
  declared: number | null,
  ledger: readonly R[],
  keys: (keyof R)[],
  what: string,
): void {
  let sum = 0;
  for (const r of ledger) for (const k of keys) sum += cents(r[k] as number | null);
  const want = cents(declared);
  if (want !== sum) {
    w.add(
      "TOTAL_MISMATCH",
      file,
      1,
      bi(
        `DEKLAR ${dcode} е ${showCents(want)}, а сумата на ${what} е ${showCents(sum)}`,
        `DEKLAR ${dcode} is ${showCents(want)} but the sum of ${what} is ${showCents(sum)}`,
      ),
    );
  }
}
