/**
 * The one global table of debt and payment types of the test portal (NRA revenue kinds only:
 * no local taxes, no customs duties), and the `debt_payments_types` generator. Codes are the
 * NRA's budget payment codes ("код за вид плащане"): 110000 taxes to the central budget,
 * 551111 ДОО / ГВРС / УчПФ, 561111 health insurance, 581111 ДЗПО; null where a type has no
 * payment code of its own. Implements docs/test-portal.md § debt_payments_types
 * (DebtPaymentsTypesResult) ("a global table, identical for all taxpayers").
 * @module
 */
import type { ReportResultOf } from "../contract/mod.ts";

/** One debt type. */
export interface DebtType {
  readonly id: string;
  readonly name: string;
  readonly code: string | null;
  readonly groupId: string;
}

/**
 * [id, group, payment code, name] — one row per type, in the table's order. Groups: 1 taxes
 * (central budget), 2 ДОО (НОИ), 3 ЗО (НЗОК), 4 ДЗПО, 5 other public claims.
 */
// deno-fmt-ignore
const ROWS: readonly (readonly [string, string, string | null, string])[] = [
  ["1", "1", "110000", "Данък върху добавената стойност (ДДС)"],
  ["2", "1", "110000", "Корпоративен данък"],
  ["3", "1", "110000", "Авансови вноски за корпоративен данък"],
  ["4", "1", "110000", "Данък върху разходите по чл. 204 ЗКПО"],
  ["5", "1", "110000", "Данък при източника по чл. 195 ЗКПО"],
  ["6", "1", "110000", "Данък върху доходите на физическите лица по трудови правоотношения (чл. 42 ЗДДФЛ)"],
  ["7", "1", "110000", "Окончателен данък върху дивиденти и ликвидационни дялове (чл. 38 ЗДДФЛ)"],
  ["8", "1", "110000", "Данък върху доходите на физическите лица по годишна декларация (чл. 50 ЗДДФЛ)"],
  ["9", "1", "110000", "Авансов данък по чл. 67 ЗДДФЛ"],
  ["10", "1", "110000", "Данък върху застрахователните премии"],
  ["11", "2", "551111", "Държавно обществено осигуряване (ДОО)"],
  ["12", "2", "551111", "Фонд Гарантирани вземания на работниците и служителите (ГВРС)"],
  ["13", "2", "551111", "Учителски пенсионен фонд (УчПФ)"],
  ["14", "2", "551111", "Осигурителни вноски за ДОО на самоосигуряващи се лица"],
  ["15", "3", "561111", "Здравно осигуряване (ЗО)"],
  ["16", "3", "561111", "Здравноосигурителни вноски на самоосигуряващи се лица"],
  ["17", "4", "581111", "Допълнително задължително пенсионно осигуряване в УПФ (ДЗПО-УПФ)"],
  ["18", "4", "581111", "Допълнително задължително пенсионно осигуряване в ППФ (ДЗПО-ППФ)"],
  ["19", "5", "110000", "Глоби и имуществени санкции"],
  ["20", "5", null, "Лихви за просрочени публични задължения"],
  ["21", "5", "110000", "Такси за административни услуги на НАП"],
];

/** The debt and payment types (golden outputs pin this table). */
export const DEBT_TYPES: readonly DebtType[] = ROWS.map(([id, groupId, code, name]) => ({
  id,
  name,
  code,
  groupId,
}));

const BY_ID: ReadonlyMap<string, DebtType> = new Map(DEBT_TYPES.map((t) => [t.id, t]));

/**
 * A debt type by id.
 * @param id the type id ("1"…"21")
 * @returns the type, or undefined for an unknown id
 * @throws nothing
 */
export function debtTypeById(id: string): DebtType | undefined {
  return BY_ID.get(id);
}

/**
 * The `debt_payments_types` result: the global table, identical for every caller.
 *
 * Implements docs/test-portal.md § debt_payments_types (DebtPaymentsTypesResult).
 * @returns status ok, rowCount and the items
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(debtPaymentsTypes().rowCount, 21);
 * ```
 */
export function debtPaymentsTypes(): ReportResultOf<"debtPaymentsTypes"> {
  return {
    status: "ok",
    rowCount: DEBT_TYPES.length,
    items: DEBT_TYPES.map((t) => ({ id: t.id, name: t.name, code: t.code, groupId: t.groupId })),
    error: null,
  };
}
