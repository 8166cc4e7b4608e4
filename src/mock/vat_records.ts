/**
 * The structured VAT return of a fictitious taxpayer for one month: the sales ledger
 * (PRODAGBI), the purchase ledger (POKUPKI), the VIES lines for intra-EU supplies and the
 * DEKLAR totals computed from the ledgers, all amounts in integer cents of the period's
 * currency. Seed: `${eik}|vat|${year}|${month}`. Implements the data behind docs/test-portal.md
 * § Portal files (files of docs/nra-formats.md §1.2–§1.5).
 * @module
 */
import { daysInMonth, isoDate, pad2 } from "./dates.ts";
import { randomEik } from "./ids.ts";
import { type Currency, currencyOf, shareCents, sumCents } from "./money.ts";
import { fullName, randomEuPartner, randomGoods } from "./names.ts";
import { companyProfile, ticketRange, vatNumberOf } from "./profile.ts";
import { rngFor } from "./rng.ts";

/** Fields shared by sales and purchase ledger lines (docs/nra-formats.md §1.3, §1.4, fields 3–10). */
export interface VatLedgerLine {
  readonly runningNumber: number;
  /** "01" invoice, "02" debit note, "03" credit note. */
  readonly documentType: string;
  readonly documentNumber: string;
  /** ISO date. */
  readonly documentDate: string;
  /** Counterparty VAT number ("BG…", "DE…") or "999999999999999" for a private person. */
  readonly counterpartyId: string;
  readonly counterpartyName: string;
  readonly goodsDescription: string;
}

/** A sales ledger line; amounts in cents (negative on credit notes). */
export interface VatSaleLine extends VatLedgerLine {
  readonly base20: number;
  readonly vat20: number;
  /** 0 % intra-EU supply (ВОД), 02-15. */
  readonly baseZeroIntraEuSupplies: number;
}

/** A purchase ledger line; amounts in cents. */
export interface VatPurchaseLine extends VatLedgerLine {
  readonly baseFullCredit: number;
  readonly vatFullCredit: number;
  /** Base plus VAT of a purchase without tax credit, 03-30. */
  readonly baseAndVatNoCredit: number;
}

/** A VIES line: one per EU customer, amounts in cents. */
export interface ViesLine {
  readonly lineNumber: number;
  readonly counterpartyVat: string;
  readonly goodsBase: number;
}

/** DEKLAR totals in cents (the non-zero cells of docs/nra-formats.md §1.2). */
export interface VatTotals {
  readonly totalTaxableBase: number;
  readonly totalVatCharged: number;
  readonly base20: number;
  readonly vat20: number;
  readonly baseZeroIntraEuSupplies: number;
  readonly purchasesNoCredit: number;
  readonly baseFullCredit: number;
  readonly vatFullCredit: number;
  readonly totalTaxCredit: number;
  readonly vatPayable: number;
  readonly vatRefundable: number;
}

/** The VAT return of one month. */
export interface VatReturnData {
  readonly eik: string;
  /** "BG" + the 9-digit EIK (or the 10-digit EGN). */
  readonly vatNumber: string;
  readonly name: string;
  readonly year: number;
  readonly month: number;
  /** "YYYYMM". */
  readonly period: string;
  readonly currency: Currency;
  /** Person submitting (00-04): the manager's name. */
  readonly submitter: string;
  readonly declarantEgn: string;
  readonly town: string;
  readonly postcode: string;
  readonly street: string;
  readonly sales: readonly VatSaleLine[];
  readonly purchases: readonly VatPurchaseLine[];
  /** Empty when the company made no intra-EU supplies (then no VIES.TXT). */
  readonly vies: readonly ViesLine[];
  readonly totals: VatTotals;
}

/**
 * The VAT return of (eik, year, month); a pure function of its arguments.
 *
 * Implements docs/test-portal.md § Portal files.
 * @param eik the filer's EIK (the first 9 digits make the VAT number)
 * @param year the period's year
 * @param month the period's month 1–12
 * @returns ledgers, VIES lines and totals in cents
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * const r = vatReturnData("121212121", 2025, 3);
 * deepStrictEqual(r.totals.vat20 === r.sales.reduce((s, l) => s + l.vat20, 0), true);
 * ```
 */
export function vatReturnData(eik: string, year: number, month: number): VatReturnData {
  return buildVatReturn(eik, year, month, (other) => companyProfile(other).name);
}

/**
 * The DEKLAR totals of (eik, year, month) without resolving counterparty names (the same draws
 * as {@link vatReturnData}, several times faster; used by the debts report).
 * @param eik the filer's EIK
 * @param year the period's year
 * @param month the period's month 1–12
 * @returns the totals in cents
 * @throws nothing
 */
export function vatReturnTotals(eik: string, year: number, month: number): VatTotals {
  return buildVatReturn(eik, year, month, () => "").totals;
}

/** What the lines of one VAT return are drawn with (in this order: sales, then purchases). */
interface VatDraw {
  readonly rng: ReturnType<typeof rngFor>;
  readonly profile: ReturnType<typeof companyProfile>;
  readonly currency: ReturnType<typeof currencyOf>;
  /** A document date in the period (one draw). */
  readonly date: () => string;
  readonly nameOf: (eik: string) => string;
  /** The period's first invoice number. */
  readonly invoiceBase: number;
}

/** The sales ledger: domestic invoices (some credit notes, some to private persons), then the
 * intra-EU supplies of an EU trader. */
function drawSales(v: VatDraw): VatSaleLine[] {
  const { rng, profile, currency, date, nameOf, invoiceBase } = v;
  const sales: VatSaleLine[] = [];
  const nDomestic = rng.int(2, Math.min(40, 3 + profile.scale * 2));
  const nEu = profile.euTrader ? rng.int(1, 3) : 0;
  for (let i = 0; i < nDomestic + nEu; i++) {
    const runningNumber = i + 1;
    const documentNumber = String(invoiceBase + i).padStart(10, "0");
    if (i >= nDomestic) {
      const [vat, name] = randomEuPartner(rng);
      const [lo, hi] = ticketRange(profile, 500, 6000, currency);
      sales.push({
        runningNumber,
        documentType: "01",
        documentNumber,
        documentDate: date(),
        counterpartyId: vat,
        counterpartyName: name,
        goodsDescription: randomGoods(rng),
        base20: 0,
        vat20: 0,
        baseZeroIntraEuSupplies: rng.cents(lo, hi),
      });
      continue;
    }
    const credit = i > 0 && rng.chance(0.05);
    const [lo, hi] = ticketRange(profile, 40, 2500, currency);
    const base = rng.cents(lo, hi) * (credit ? -1 : 1);
    const privatePerson = rng.chance(0.1);
    const customer = randomEik(rng);
    sales.push({
      runningNumber,
      documentType: credit ? "03" : "01",
      documentNumber,
      documentDate: date(),
      counterpartyId: privatePerson ? "999999999999999" : `BG${customer}`,
      counterpartyName: privatePerson ? "Физическо лице" : nameOf(customer),
      goodsDescription: randomGoods(rng),
      base20: base,
      vat20: base < 0 ? -shareCents(-base, 2000) : shareCents(base, 2000),
      baseZeroIntraEuSupplies: 0,
    });
  }
  return sales;
}

/** The purchase ledger: invoices from suppliers, about one in ten without a tax credit. */
function drawPurchases(v: VatDraw): VatPurchaseLine[] {
  const { rng, profile, currency, date, nameOf } = v;
  const purchases: VatPurchaseLine[] = [];
  const nPurchases = rng.int(1 + (profile.scale >> 1), Math.min(40, 3 + profile.scale * 2));
  for (let i = 0; i < nPurchases; i++) {
    const supplier = randomEik(rng);
    const [lo, hi] = ticketRange(profile, 30, 1500, currency);
    const base = rng.cents(lo, hi);
    const noCredit = rng.chance(0.1);
    purchases.push({
      runningNumber: i + 1,
      documentType: "01",
      documentNumber: rng.digits(10),
      documentDate: date(),
      counterpartyId: `BG${supplier}`,
      counterpartyName: nameOf(supplier),
      goodsDescription: randomGoods(rng),
      baseFullCredit: noCredit ? 0 : base,
      vatFullCredit: noCredit ? 0 : shareCents(base, 2000),
      baseAndVatNoCredit: noCredit ? base + shareCents(base, 2000) : 0,
    });
  }
  return purchases;
}

function buildVatReturn(
  eik: string,
  year: number,
  month: number,
  nameOf: (eik: string) => string,
): VatReturnData {
  const profile = companyProfile(eik);
  const rng = rngFor(eik, "vat", year, month);
  const currency = currencyOf(year);
  const period = `${year}${pad2(month)}`;
  const lastDay = daysInMonth(year, month);
  const date = () => isoDate(year, month, rng.int(1, lastDay));
  const invoiceBase = 1000 + ((year - 2020) * 12 + month - 1) * 80;
  const v: VatDraw = { rng, profile, currency, date, nameOf, invoiceBase };
  // The draws' order is part of the answer (the same period gives the same lines).
  const sales = drawSales(v);
  const purchases = drawPurchases(v);
  return {
    eik,
    vatNumber: vatNumberOf(eik),
    name: profile.name,
    year,
    month,
    period,
    currency,
    submitter: fullName(profile.manager),
    declarantEgn: profile.managerEgn,
    town: profile.address.town,
    postcode: profile.address.postcode,
    street: profile.address.street,
    sales,
    purchases,
    vies: viesLines(sales),
    totals: vatTotals(sales, purchases),
  };
}

/**
 * Group intra-EU supplies by customer VAT number into VIES lines (first-seen order).
 * @param sales the sales ledger
 * @returns the VIES lines, numbered from 1
 * @throws nothing
 */
export function viesLines(sales: readonly VatSaleLine[]): ViesLine[] {
  const byVat = new Map<string, number>();
  for (const s of sales) {
    if (s.baseZeroIntraEuSupplies === 0) continue;
    byVat.set(s.counterpartyId, (byVat.get(s.counterpartyId) ?? 0) + s.baseZeroIntraEuSupplies);
  }
  return [...byVat].map(([counterpartyVat, goodsBase], i) => ({
    lineNumber: i + 1,
    counterpartyVat,
    goodsBase,
  }));
}

/**
 * DEKLAR totals from the ledgers: 01-01 = Σ02-10, 01-20 = Σ02-20, 01-41 = Σ03-41,
 * 01-40 = 01-41 (no partial credit), 01-50 = max(0, 01-20 − 01-40), 01-60 = max(0, 01-40 − 01-20).
 * @param sales the sales ledger
 * @param purchases the purchase ledger
 * @returns the totals in cents
 * @throws nothing
 */
export function vatTotals(
  sales: readonly VatSaleLine[],
  purchases: readonly VatPurchaseLine[],
): VatTotals {
  const base20 = sumCents(sales.map((s) => s.base20));
  const vat20 = sumCents(sales.map((s) => s.vat20));
  const baseZeroIntraEuSupplies = sumCents(sales.map((s) => s.baseZeroIntraEuSupplies));
  const vatFullCredit = sumCents(purchases.map((p) => p.vatFullCredit));
  const totalVatCharged = vat20;
  const totalTaxCredit = vatFullCredit;
  return {
    totalTaxableBase: base20 + baseZeroIntraEuSupplies,
    totalVatCharged,
    base20,
    vat20,
    baseZeroIntraEuSupplies,
    purchasesNoCredit: sumCents(purchases.map((p) => p.baseAndVatNoCredit)),
    baseFullCredit: sumCents(purchases.map((p) => p.baseFullCredit)),
    vatFullCredit,
    totalTaxCredit,
    vatPayable: Math.max(0, totalVatCharged - totalTaxCredit),
    vatRefundable: Math.max(0, totalTaxCredit - totalVatCharged),
  };
}
