/**
 * Builds the synthetic NRA fixture files of src/formats (docs/formats.md § Fixtures and tools) FROM
 * THE FIELD TABLES, through the module's own writers: every file is
 * `encodeCp1251(writeX(records))`, with Cyrillic names, negative amounts where the format allows
 * them (not in D1: "amounts are always positive", docs/nra-formats.md §2.1) and EIKs with valid
 * Bulstat check digits. Each file gets `<file>.expected.json` = { kind, file, canonicalFile,
 * writeOptions?, records }: parsing `file` gives `records`; writing `records` gives the bytes of
 * `canonicalFile`. No real NRA data is used (docs/nra-formats.md §3: none is public).
 * Deterministic: no clock, no randomness. Run: `deno run -A scripts/gen_format_fixtures.ts` (then
 * it runs `deno fmt` on the JSON files).
 * @module
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  D1_FIELDS,
  type D1Record,
  D6_FIELDS,
  type D6Record,
  type DeklarRecord,
  eikCheckDigit,
  type PokupkiRecord,
  type ProdagbiRecord,
  type ViesRecord,
  writeD1,
  writeD6,
  writeDeklar,
  writePokupki,
  writeProdagbi,
  writeVies,
} from "../src/formats/mod.ts";
import { encodeCp1251 } from "../src/formats/encode/mod.ts";
import { readingFixtures } from "./format_fixtures_reading.ts";

const ROOT = new URL("../fixtures/formats/", import.meta.url).pathname;

const eik = (first8: string) => first8 + eikCheckDigit(first8);
/** A synthetic EGN with a valid check digit (weights 2,4,8,5,10,9,7,3,6). */
function egn(first9: string): string {
  const w = [2, 4, 8, 5, 10, 9, 7, 3, 6];
  const s = w.reduce((acc, wi, i) => acc + Number(first9[i]) * wi, 0) % 11;
  return first9 + (s === 10 ? 0 : s);
}

const FILER_EIK = eik("20345678"); // 203456783
const FILER_VAT = "BG" + FILER_EIK;
const FILER_NAME = "ЕКО ТРЕЙД ООД";
const PERIOD = "202608";
const SUPPLIERS = [
  { id: "BG" + eik("17507475"), name: "БАЛКАН СТРОЙ ЕООД" },
  { id: "BG" + eik("13129876"), name: "ДУНАВ ЛОГИСТИК АД" },
  { id: "999999999999999", name: "Иван Петров Иванов" },
  { id: "BG" + eik("20611234"), name: "СОФИЯ КОНСУЛТ ООД" },
] as const;

type P = Partial<PokupkiRecord>;
const pHead = (n: number, p: P): PokupkiRecord => ({
  vatNumber: FILER_VAT,
  period: PERIOD,
  branch: 0,
  runningNumber: n,
  documentType: "01",
  documentNumber: "",
  documentDate: null,
  counterpartyId: "",
  counterpartyName: "",
  goodsDescription: "",
  baseAndVatNoCredit: null,
  baseFullCredit: null,
  vatFullCredit: null,
  basePartialCredit: null,
  vatPartialCredit: null,
  annualAdjustment: null,
  baseTriangular: null,
  specialCode: "",
  ...p,
});

const POKUPKI: PokupkiRecord[] = [
  pHead(1, {
    documentNumber: "0000004711",
    documentDate: "2026-08-03",
    counterpartyId: SUPPLIERS[0].id,
    counterpartyName: SUPPLIERS[0].name,
    goodsDescription: "Строителни материали",
    baseFullCredit: 1250.4,
    vatFullCredit: 250.08,
  }),
  pHead(2, {
    documentNumber: "0000000982",
    documentDate: "2026-08-11",
    counterpartyId: SUPPLIERS[1].id,
    counterpartyName: SUPPLIERS[1].name,
    goodsDescription: "Транспортни услуги",
    baseFullCredit: 800,
    vatFullCredit: 160,
    basePartialCredit: 0,
    vatPartialCredit: 0,
  }),
  pHead(3, {
    documentType: "03",
    documentNumber: "0000004790",
    documentDate: "2026-08-19",
    counterpartyId: SUPPLIERS[0].id,
    counterpartyName: SUPPLIERS[0].name,
    goodsDescription: "Кредитно известие",
    baseFullCredit: -150.5,
    vatFullCredit: -30.1,
  }),
  pHead(4, {
    documentNumber: "2026-0815",
    documentDate: "2026-08-15",
    counterpartyId: SUPPLIERS[3].id,
    counterpartyName: SUPPLIERS[3].name,
    goodsDescription: "Счетоводни услуги",
    baseAndVatNoCredit: 240,
    basePartialCredit: 400,
    vatPartialCredit: 80,
  }),
  pHead(5, {
    documentType: "09",
    documentNumber: "ИМП-77",
    documentDate: "2026-08-28",
    counterpartyId: SUPPLIERS[2].id,
    counterpartyName: SUPPLIERS[2].name,
    goodsDescription: "Наем офис „Център“",
    baseFullCredit: 1000,
    vatFullCredit: 200,
    specialCode: "07",
  }),
];

type S = Partial<ProdagbiRecord>;
/** A sales line whose 02-10 and 02-20 are the sums of their parts (§1.4). */
function sHead(n: number, s: S): ProdagbiRecord {
  const r: ProdagbiRecord = {
    vatNumber: FILER_VAT,
    period: PERIOD,
    branch: 0,
    runningNumber: n,
    documentType: "01",
    documentNumber: "",
    documentDate: null,
    counterpartyId: "",
    counterpartyName: "",
    goodsDescription: "",
    totalBase: 0,
    totalVat: 0,
    base20: null,
    vat20: null,
    baseIntraEuAcquisitions: null,
    baseArt82: null,
    vatIntraEuAcquisitionsArt82: null,
    vatPrivateUse: null,
    base9: null,
    vat9: null,
    baseZeroChapter3: null,
    baseZeroIntraEuSupplies: null,
    baseZeroOther: null,
    baseServicesArt21: null,
    baseDistanceSales: null,
    baseExempt: null,
    baseTriangular: null,
    specialCode: "",
    ...s,
  };
  const c = (v: number | null) => Math.round((v ?? 0) * 100);
  r.totalBase = (c(r.base20) + c(r.baseIntraEuAcquisitions) + c(r.base9) + c(r.baseZeroChapter3) +
    c(r.baseZeroIntraEuSupplies) + c(r.baseZeroOther) + c(r.baseArt82)) / 100;
  r.totalVat = (c(r.vat20) + c(r.vatIntraEuAcquisitionsArt82) + c(r.vatPrivateUse) + c(r.vat9)) /
    100;
  return r;
}

const DE_CUSTOMER = { id: "DE811907980", name: "NORDHANDEL GMBH" };
const AT_CUSTOMER = { id: "ATU12345675", name: "ALPEN SERVICE GMBH" };
const PRODAGBI: ProdagbiRecord[] = [
  sHead(1, {
    documentNumber: "0000000101",
    documentDate: "2026-08-02",
    counterpartyId: SUPPLIERS[3].id,
    counterpartyName: SUPPLIERS[3].name,
    goodsDescription: "Продажба на стоки",
    base20: 2000,
    vat20: 400,
  }),
  sHead(2, {
    documentNumber: "0000000102",
    documentDate: "2026-08-09",
    counterpartyId: SUPPLIERS[1].id,
    counterpartyName: SUPPLIERS[1].name,
    goodsDescription: "Хотелско настаняване",
    base9: 500,
    vat9: 45,
  }),
  sHead(3, {
    documentType: "03",
    documentNumber: "0000000103",
    documentDate: "2026-08-12",
    counterpartyId: SUPPLIERS[3].id,
    counterpartyName: SUPPLIERS[3].name,
    goodsDescription: "Кредитно известие",
    base20: -200,
    vat20: -40,
  }),
  sHead(4, {
    documentNumber: "0000000104",
    documentDate: "2026-08-20",
    counterpartyId: DE_CUSTOMER.id,
    counterpartyName: DE_CUSTOMER.name,
    goodsDescription: "ВОД на стоки",
    baseZeroIntraEuSupplies: 3100.55,
  }),
  sHead(5, {
    documentNumber: "0000000105",
    documentDate: "2026-08-25",
    counterpartyId: AT_CUSTOMER.id,
    counterpartyName: AT_CUSTOMER.name,
    goodsDescription: "Консултантски услуги",
    baseServicesArt21: 750,
  }),
  sHead(6, {
    documentType: "81",
    documentNumber: "0000000001",
    documentDate: "2026-08-31",
    counterpartyId: "999999999999999",
    counterpartyName: "Продажби на физически лица",
    goodsDescription: "Отчет за продажбите",
    base20: 1234.56,
    vat20: 246.91,
    baseExempt: 80,
    specialCode: "",
  }),
];

const sum = <R>(rs: readonly R[], k: keyof R) =>
  rs.reduce((a, r) => a + Math.round(((r[k] as number | null) ?? 0) * 100), 0) / 100;

function buildDeklar(): DeklarRecord {
  const d: DeklarRecord = {
    vatNumber: FILER_VAT,
    name: FILER_NAME,
    period: PERIOD,
    submitter: "Мария Иванова Петрова",
    salesDocumentCount: PRODAGBI.length,
    purchaseDocumentCount: POKUPKI.length,
    totalTaxableBase: sum(PRODAGBI, "totalBase"),
    totalVatCharged: sum(PRODAGBI, "totalVat"),
    base20: sum(PRODAGBI, "base20"),
    vat20: sum(PRODAGBI, "vat20"),
    baseIntraEuAcquisitionsArt82: sum(PRODAGBI, "baseIntraEuAcquisitions") +
      sum(PRODAGBI, "baseArt82"),
    vatIntraEuAcquisitionsArt82: sum(PRODAGBI, "vatIntraEuAcquisitionsArt82"),
    vatPrivateUse: sum(PRODAGBI, "vatPrivateUse"),
    base9: sum(PRODAGBI, "base9"),
    vat9: sum(PRODAGBI, "vat9"),
    baseZeroChapter3: sum(PRODAGBI, "baseZeroChapter3"),
    baseZeroIntraEuSupplies: sum(PRODAGBI, "baseZeroIntraEuSupplies"),
    baseZeroOther: sum(PRODAGBI, "baseZeroOther"),
    baseServicesArt21: sum(PRODAGBI, "baseServicesArt21"),
    baseDistanceSales: sum(PRODAGBI, "baseDistanceSales"),
    baseExempt: sum(PRODAGBI, "baseExempt"),
    purchasesNoCredit: sum(POKUPKI, "baseAndVatNoCredit"),
    baseFullCredit: sum(POKUPKI, "baseFullCredit"),
    vatFullCredit: sum(POKUPKI, "vatFullCredit"),
    basePartialCredit: sum(POKUPKI, "basePartialCredit"),
    vatPartialCredit: sum(POKUPKI, "vatPartialCredit"),
    annualAdjustment: 0,
    proRataCoefficient: 0.5,
    totalTaxCredit: 0,
    vatPayable: 0,
    vatRefundable: 0,
    payableOffsetArt92: 0,
    payablePaid: 0,
    refundArt92Para1: null,
    refundArt92Para3: null,
    refundArt92Para4: null,
  };
  const credit = Math.round(
    (d.vatFullCredit! + d.vatPartialCredit! * d.proRataCoefficient! + d.annualAdjustment!) * 100,
  );
  const charged = Math.round(d.totalVatCharged! * 100);
  d.totalTaxCredit = credit / 100;
  d.vatPayable = Math.max(0, charged - credit) / 100;
  d.vatRefundable = Math.max(0, credit - charged) / 100;
  d.payablePaid = d.vatPayable;
  return d;
}

const VIR_LINES = [
  {
    counterpartyVat: DE_CUSTOMER.id,
    goodsBase: 3100.55,
    triangularBase: 0,
    servicesBase: 0,
    period: null,
  },
  {
    counterpartyVat: AT_CUSTOMER.id,
    goodsBase: 0,
    triangularBase: 0,
    servicesBase: 750,
    period: null,
  },
  {
    counterpartyVat: "FR40303265045",
    goodsBase: 0,
    triangularBase: 0,
    servicesBase: -120.4,
    period: "202607",
  },
];
function buildVies(): ViesRecord[] {
  const c = (v: number) => Math.round(v * 100);
  const goods = VIR_LINES.reduce((a, l) => a + c(l.goodsBase), 0);
  const all = VIR_LINES.reduce(
    (a, l) => a + c(l.goodsBase) + c(l.triangularBase) + c(l.servicesBase),
    0,
  );
  return [
    { recordType: "VHR", period: PERIOD, lineCount: VIR_LINES.length },
    {
      recordType: "VDR",
      declarantId: egn("800101123"),
      name: "Мария Иванова Петрова",
      city: "София",
      postcode: "1000",
      address: "ул. „Граф Игнатиев“ № 15, ет. 3",
      capacity: "R",
    },
    {
      recordType: "VTR",
      vatNumber: FILER_VAT,
      name: FILER_NAME,
      address: "гр. София, бул. „Витоша“ № 100",
    },
    { recordType: "TTR", totalBase: all / 100, goodsBase: goods / 100 },
    ...VIR_LINES.map((l, i): ViesRecord => ({ recordType: "VIR", lineNumber: i + 1, ...l })),
    { recordType: "CHR", cosCount: 1 },
    {
      recordType: "COS",
      lineNumber: 1,
      vin: "DE811907980",
      code: "1",
      intendedAcquirerVin: "DE129273398",
      period: null,
    },
  ];
}

function defaults<R>(fields: readonly { name: string; type: string }[]): R {
  const r: Record<string, unknown> = {};
  for (const f of fields) r[f.name] = f.type === "text" ? "" : f.type === "date" ? null : 0;
  return r as R;
}

function d1(person: { id: string; surname: string; initials: string; gross: number }): D1Record {
  const insured = Math.round(person.gross * (9.78 + 3.2 + 2.2)) / 100;
  const taxable = Math.round((person.gross - insured) * 100) / 100;
  const tax = Math.round(taxable * 10) / 100;
  return {
    ...defaults<D1Record>(D1_FIELDS),
    month: 8,
    year: 2026,
    employerEik: FILER_EIK,
    personId: person.id,
    personIdType: 0,
    surname: person.surname,
    initials: person.initials,
    insuredType: 1,
    insuranceStartDay1: 1,
    insuranceEndDay1: 31,
    insuredDaysTotal: "2100",
    daysWorked: 21,
    hoursWorked: 168,
    qualificationGroup: 2,
    activityCode: "4690",
    summedWorkingTimeCode: "0000",
    insurableIncome: person.gross,
    pensionRateEmployer: 12.62,
    pensionRateInsured: 9.78,
    healthRateEmployer: 4.8,
    healthRateInsured: 3.2,
    accidentRate: 0.4,
    universalFundRateEmployer: 2.8,
    universalFundRateInsured: 2.2,
    grossSalary: person.gross,
    guaranteeFundRate: 0.1,
    taxableIncome: taxable,
    monthlyTax: tax,
    netSalary: Math.round((person.gross - insured - tax) * 100) / 100,
    sourceFlag: "NRAD12008",
  };
}

const D1: D1Record[] = [
  d1({ id: egn("850315123"), surname: "ПЕТРОВ", initials: "ИГ", gross: 2500 }),
  d1({ id: egn("880512456"), surname: "ИВАНОВА", initials: "МС", gross: 3120.5 }),
  d1({ id: egn("780722789"), surname: "ДИМИТРОВ-ЧЕРНЕВ", initials: "ГП", gross: 1850.75 }),
];

function d6(paymentType: number, amounts: number[]): D6Record {
  const r: D6Record = {
    ...defaults<D6Record>(D6_FIELDS),
    eik: FILER_EIK,
    name: FILER_NAME,
    fundMember: 0,
    email: "office@eko-trade.bg",
    phone: "029876543",
    mobile: "0888123456",
    block1Month: 8,
    block1Year: 2026,
    block1PaymentDate: "2026-09-25",
    block1CorrectionCode: 0,
    block1PaymentType: paymentType,
    sourceFlag: "NRAD62007",
  };
  const keys = [
    "PensionInsurance",
    "TeachersPensionFund",
    "UniversalPensionFund",
    "ProfessionalPensionFund",
    "HealthInsurance",
    "GuaranteeFund",
    "IncomeTax1",
    "IncomeTax2",
  ] as const;
  keys.forEach((k, i) => ((r as Record<string, unknown>)[`block1${k}`] = amounts[i]));
  return r;
}
const D6: D6Record[] = [
  d6(1, [1630.84, 0, 299.07, 0, 596.06, 7.47, 0, 0]),
  d6(2, [0, 0, 0, 0, 0, 0, 612.69, 0]),
];

interface Fixture {
  kind: string;
  dir: string;
  file: string;
  /** null: no fixture holds what the records write back to (the reading fixtures). */
  canonicalFile: string | null;
  writeOptions?: Record<string, unknown>;
  /** Absent when the fixture expects an error. */
  records?: unknown[];
  text: string;
  /** Raw bytes (UTF-8, UTF-16, a byte-order mark…) instead of `encodeCp1251(text)`. */
  bytes?: Uint8Array;
  /** Reading warnings expected (code, line). */
  warnings?: Array<{ code: string; line?: number }>;
  /** The error expected instead of records. */
  error?: { code: string; message: string; details: Record<string, unknown> };
}

function fixtures(): Fixture[] {
  const pok = writePokupki(POKUPKI);
  const pok272 = POKUPKI.map((r) => ({ ...r, specialCode: "" }));
  const prod422 = PRODAGBI.map((r) => ({ ...r, specialCode: "" }));
  const d1Text = writeD1(D1);
  const f = (
    kind: string,
    file: string,
    records: unknown[],
    text: string,
    extra: Partial<Fixture> = {},
  ): Fixture => ({ kind, dir: kind, file, canonicalFile: file, records, text, ...extra });
  return [
    f("deklar", "DEKLAR.TXT", [buildDeklar()], writeDeklar(buildDeklar())),
    f("pokupki", "POKUPKI.TXT", POKUPKI, pok),
    f("pokupki", "POKUPKI_272.TXT", pok272, writePokupki(pok272, { lineWidth: 272 }), {
      writeOptions: { lineWidth: 272 },
    }),
    // LF-only, no break after the last line: parsed like the canonical file.
    f("pokupki", "POKUPKI_LF.TXT", POKUPKI, pok.replaceAll("\r\n", "\n").slice(0, -1), {
      canonicalFile: "POKUPKI.TXT",
    }),
    f("pokupki", "POKUPKI_EMPTY.TXT", [], writePokupki([])),
    f("prodagbi", "PRODAGBI.TXT", PRODAGBI, writeProdagbi(PRODAGBI)),
    f("prodagbi", "PRODAGBI_422.TXT", prod422, writeProdagbi(prod422, { lineWidth: 422 }), {
      writeOptions: { lineWidth: 422 },
    }),
    f("vies", "VIES.TXT", buildVies(), writeVies(buildVies())),
    f("d1", "EMPL2021.TXT", D1, d1Text),
    // LF line ends and no 0x1A end marker: parsed like the canonical file.
    f("d1", "EMPL2021_LF.TXT", D1, d1Text.replaceAll("\r\n", "\n").replace("\x1a", ""), {
      canonicalFile: "EMPL2021.TXT",
    }),
    f("d6", "NRA62007.TXT", D6, writeD6(D6)),
    ...issue16CrossCheckAndAnnualFixtures(),
    // docs/formats.md: files as other programs, editors and `copy /b` leave them.
    ...readingFixtures({
      pokupki: POKUPKI,
      prodagbi: PRODAGBI,
      deklar: buildDeklar(),
      vies: buildVies(),
      d1: D1,
      d6: D6,
    }),
  ];
}

// --- VAT cross-checks and D6 periods (DEKLAR ↔ VIES; annual D6, empty ≠ 0) ------------------

/**
 * Item 6: VIES.TXT as a small VAT tool writes it for a period with intra-EU supplies — VHR
 * with 0 lines, VDR, VTR and a TTR of zeros, but no VIR line. Beside DEKLAR.TXT (01-15 =
 * 3100.55, 01-17 = 750.00) and PRODAGBI.TXT it must give VIES_DEKLAR_MISMATCH and
 * VIES_LEDGER_MISMATCH warnings, where it used to pass silently.
 * Item 7: the annual D6 (month 13, docs/nra-formats.md §2.2) as GO-D1D6 leaves it: block 1 with the
 * year's income tax, every other number empty (null, written as an empty field), and the 0s
 * that are written kept as 0.
 */
function issue16CrossCheckAndAnnualFixtures(): Fixture[] {
  const [vhr, vdr, vtr] = buildVies();
  if (!vhr || !vdr || !vtr) throw new Error("buildVies() must start with VHR, VDR, VTR");
  const noVir: ViesRecord[] = [
    { ...vhr, lineCount: 0 } as ViesRecord,
    vdr,
    vtr,
    { recordType: "TTR", totalBase: 0, goodsBase: 0 },
  ];
  const annual = { ...defaults<D6Record>(D6_FIELDS) } as Record<string, unknown>;
  for (const x of D6_FIELDS) if (x.type !== "text") annual[x.name] = null;
  Object.assign(annual, {
    eik: FILER_EIK,
    name: FILER_NAME,
    fundMember: 0,
    block1Month: 13,
    block1Year: 2026,
    block1PaymentDate: "2027-01-29",
    block1CorrectionCode: 0,
    block1IncomeTax1: 412.37,
    sourceFlag: "NRAD62007",
  });
  const d6 = [annual as D6Record];
  const one = (kind: string, file: string, records: unknown[], text: string): Fixture => ({
    kind,
    dir: kind,
    file,
    canonicalFile: file,
    records,
    text,
  });
  return [
    one("vies", "VIES_NO_VIR.TXT", noVir, writeVies(noVir)),
    one("d6", "NRA62007_ANNUAL.TXT", d6, writeD6(d6)),
  ];
}

async function main(): Promise<void> {
  const written: string[] = [];
  for (const fx of fixtures()) {
    const path = join(ROOT, fx.dir, fx.file);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, fx.bytes ?? encodeCp1251(fx.text, fx.file));
    const expected = {
      kind: fx.kind,
      file: fx.file,
      canonicalFile: fx.canonicalFile,
      ...(fx.writeOptions ? { writeOptions: fx.writeOptions } : {}),
      ...(fx.records ? { records: fx.records } : {}),
      ...(fx.warnings ? { warnings: fx.warnings } : {}),
      ...(fx.error ? { error: fx.error } : {}),
    };
    await writeFile(path + ".expected.json", JSON.stringify(expected, null, 2) + "\n");
    written.push(path + ".expected.json");
    console.log(
      `wrote ${join(fx.dir, fx.file)} (${
        fx.error ? fx.error.code : `${fx.records?.length} records`
      })`,
    );
  }
  const fmt = new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", ...written] });
  const { code } = await fmt.output();
  if (code !== 0) throw new Error("deno fmt failed on the expected JSON files");
}

await main();
