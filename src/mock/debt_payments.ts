/**
 * The `debt_payments` generator: the debts and payments of a taxpayer for one year, optionally
 * narrowed to one debt type. One row per obligation (see obligations.ts): what was due, what was
 * paid by the cut-off, what is outstanding (dueAmount − paidAmount, exact in cents) and the
 * interest on it; paidAllAmount is the total paid for the row's debt type in the result.
 * Amounts are in the year's currency (BGN up to 2025, EUR from 2026). Implements
 * docs/test-portal.md § debt_payments (DebtPaymentsResult) and README.md § Operations
 * (DebtPaymentsRequest: type "0" means all kinds).
 * @module
 */
import type { ReportItemOf, ReportResultOf } from "../contract/mod.ts";
import { toAmount } from "./money.ts";
import { yearObligations } from "./obligations.ts";

/** The request as the generator reads it (a validated DebtPaymentsRequest). */
export interface DebtPaymentsInput {
  readonly eik: string;
  readonly year: number;
  /** Debt type id, "0" (the default) for all. */
  readonly type?: string;
}

/**
 * Debts and payments of (eik, year), filtered by debt type.
 *
 * Implements docs/test-portal.md § debt_payments (DebtPaymentsResult).
 * @param req eik, year, type ("0" = all; an id of debt_payments_types; an unknown id gives [])
 * @param now the injected clock's instant (cut-off: min(now, 31 December of the year))
 * @returns status ok with the rows (possibly none: the agent reports NO_DATA)
 * @throws nothing
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * const r = debtPayments({ eik: "121212121", year: 2025 }, new Date("2026-03-15T10:00:00Z"));
 * ok(r.items.length > 0);
 * ok(r.items.every((i) =>
 *   Math.round(i.outstandingAmount * 100) === Math.round((i.dueAmount - i.paidAmount) * 100)
 * ));
 * ```
 */
export function debtPayments(req: DebtPaymentsInput, now: Date): ReportResultOf<"debtPayments"> {
  const type = req.type ?? "0";
  const rows = yearObligations(req.eik, req.year, now)
    .filter((o) => type === "0" || o.typeId === type);
  const paidByType = new Map<string, number>();
  for (const o of rows) {
    paidByType.set(o.typeId, (paidByType.get(o.typeId) ?? 0) + (o.payment?.cents ?? 0));
  }
  const items = rows.map((o): ReportItemOf<"debtPayments"> => {
    const paid = o.payment?.cents ?? 0;
    return {
      debtTypeName: o.debtTypeName,
      dueAmount: toAmount(o.dueCents),
      paidAmount: toAmount(paid),
      paidAllAmount: toAmount(paidByType.get(o.typeId) ?? 0),
      outstandingAmount: toAmount(o.dueCents - paid),
      outstandingInterest: toAmount(o.interestCents),
      datePayment: o.payment?.date ?? null,
      debtPeriod: o.debtPeriod,
      documentDate: o.documentDate,
      documentNumber: o.documentNumber,
      documentType: o.documentType,
      dueDate: o.dueDate,
      paymentTypeName: o.payment?.typeName ?? "",
    };
  });
  return { status: "ok", rowCount: items.length, year: req.year, type, items, error: null };
}
