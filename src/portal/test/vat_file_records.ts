/**
 * Maps the mock's structured VAT return (src/mock/vat_records.ts, integer cents) to the format
 * module's DEKLAR, POKUPKI, PRODAGBI and VIES records (amounts in currency units, 2 decimals).
 * Cells the test portal never fills are written as 0.00; the DEKLAR coefficient 01-33 is
 * blank. Implements the data side of docs/test-portal.md § Portal files with the layouts
 * of docs/nra-formats.md §1.2–§1.5.
 * @module
 */
import type { DeklarRecord, PokupkiRecord, ProdagbiRecord, ViesRecord } from "../../formats/mod.ts";
import { toAmount, type VatReturnData } from "../../mock/mod.ts";

/**
 * The DEKLAR record of a VAT return (zero cells written as 0.00, coefficient blank).
 * @param d the structured return
 * @returns the record for `writeDeklar`
 * @throws nothing
 */
export function deklarRecordOf(d: VatReturnData): DeklarRecord {
  const t = d.totals;
  const a = toAmount;
  return {
    vatNumber: d.vatNumber,
    name: d.name,
    period: d.period,
    submitter: d.submitter,
    salesDocumentCount: d.sales.length,
    purchaseDocumentCount: d.purchases.length,
    totalTaxableBase: a(t.totalTaxableBase),
    totalVatCharged: a(t.totalVatCharged),
    base20: a(t.base20),
    vat20: a(t.vat20),
    baseIntraEuAcquisitionsArt82: 0,
    vatIntraEuAcquisitionsArt82: 0,
    vatPrivateUse: 0,
    base9: 0,
    vat9: 0,
    baseZeroChapter3: 0,
    baseZeroIntraEuSupplies: a(t.baseZeroIntraEuSupplies),
    baseZeroOther: 0,
    baseServicesArt21: 0,
    baseDistanceSales: 0,
    baseExempt: 0,
    purchasesNoCredit: a(t.purchasesNoCredit),
    baseFullCredit: a(t.baseFullCredit),
    vatFullCredit: a(t.vatFullCredit),
    basePartialCredit: 0,
    vatPartialCredit: 0,
    annualAdjustment: 0,
    proRataCoefficient: null,
    totalTaxCredit: a(t.totalTaxCredit),
    vatPayable: a(t.vatPayable),
    vatRefundable: a(t.vatRefundable),
    payableOffsetArt92: 0,
    payablePaid: a(t.vatPayable),
    refundArt92Para1: a(t.vatRefundable),
    refundArt92Para3: 0,
    refundArt92Para4: 0,
  };
}

/**
 * The PRODAGBI records of a VAT return.
 * @param d the structured return
 * @returns one record per sales ledger line
 * @throws nothing
 */
export function prodagbiRecordsOf(d: VatReturnData): ProdagbiRecord[] {
  return d.sales.map((s) => ({
    vatNumber: d.vatNumber,
    period: d.period,
    branch: 0,
    runningNumber: s.runningNumber,
    documentType: s.documentType,
    documentNumber: s.documentNumber,
    documentDate: s.documentDate,
    counterpartyId: s.counterpartyId,
    counterpartyName: s.counterpartyName,
    goodsDescription: s.goodsDescription,
    totalBase: toAmount(s.base20 + s.baseZeroIntraEuSupplies),
    totalVat: toAmount(s.vat20),
    base20: toAmount(s.base20),
    vat20: toAmount(s.vat20),
    baseIntraEuAcquisitions: 0,
    baseArt82: 0,
    vatIntraEuAcquisitionsArt82: 0,
    vatPrivateUse: 0,
    base9: 0,
    vat9: 0,
    baseZeroChapter3: 0,
    baseZeroIntraEuSupplies: toAmount(s.baseZeroIntraEuSupplies),
    baseZeroOther: 0,
    baseServicesArt21: 0,
    baseDistanceSales: 0,
    baseExempt: 0,
    baseTriangular: 0,
    specialCode: "",
  }));
}

/**
 * The POKUPKI records of a VAT return.
 * @param d the structured return
 * @returns one record per purchase ledger line
 * @throws nothing
 */
export function pokupkiRecordsOf(d: VatReturnData): PokupkiRecord[] {
  return d.purchases.map((p) => ({
    vatNumber: d.vatNumber,
    period: d.period,
    branch: 0,
    runningNumber: p.runningNumber,
    documentType: p.documentType,
    documentNumber: p.documentNumber,
    documentDate: p.documentDate,
    counterpartyId: p.counterpartyId,
    counterpartyName: p.counterpartyName,
    goodsDescription: p.goodsDescription,
    baseAndVatNoCredit: toAmount(p.baseAndVatNoCredit),
    baseFullCredit: toAmount(p.baseFullCredit),
    vatFullCredit: toAmount(p.vatFullCredit),
    basePartialCredit: 0,
    vatPartialCredit: 0,
    annualAdjustment: 0,
    baseTriangular: 0,
    specialCode: "",
  }));
}

/**
 * The VIES records of a VAT return in TEMPO order (VHR, VDR, VTR, TTR, VIR…), or [] when the
 * return has no intra-EU supplies.
 * @param d the structured return
 * @returns the records
 * @throws nothing
 */
export function viesRecordsOf(d: VatReturnData): ViesRecord[] {
  if (d.vies.length === 0) return [];
  const total = d.vies.reduce((s, l) => s + l.goodsBase, 0);
  const address = `${d.postcode} ${d.town}, ${d.street}`;
  return [
    { recordType: "VHR", period: d.period, lineCount: d.vies.length },
    {
      recordType: "VDR",
      declarantId: d.declarantEgn,
      name: d.submitter,
      city: d.town,
      postcode: d.postcode,
      address: d.street,
      capacity: "R",
    },
    { recordType: "VTR", vatNumber: d.vatNumber, name: d.name, address },
    { recordType: "TTR", totalBase: toAmount(total), goodsBase: toAmount(total) },
    ...d.vies.map((l): ViesRecord => ({
      recordType: "VIR",
      lineNumber: l.lineNumber,
      counterpartyVat: l.counterpartyVat,
      goodsBase: toAmount(l.goodsBase),
      triangularBase: 0,
      servicesBase: 0,
      period: null,
    })),
  ];
}
