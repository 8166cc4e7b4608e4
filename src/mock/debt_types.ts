/**
 * The one global table of debt and payment types of the test portal (NRA revenue kinds only:
 * no local taxes, no customs duties), and the `debt_payments_types` generator. Codes are the
 * NRA's budget payment codes ("код за вид плащане"): 110000 taxes to the central budget,
 * 551111 ДОО / ГВРС / УчПФ, 561111 health insurance, 581111 ДЗПО; null where a type has no
 * payment code of its own. Implements interface-spec.md § DebtPaymentsTypesResult ("a global
 * table, identical for all taxpayers").
 * @module
 */
import type { DebtPaymentsTypesResult } from "../contract/mod.ts";

/** One debt type. */
export interface DebtType {
  readonly id: string;
  readonly name: string;
  readonly code: string | null;
  readonly groupId: string;
}

/** Groups: 1 taxes (central budget), 2 ДОО (НОИ), 3 ЗО (НЗОК), 4 ДЗПО, 5 other public claims. */
export const DEBT_TYPES: readonly DebtType[] = [
  { id: "1", name: "Данък върху добавената стойност (ДДС)", code: "110000", groupId: "1" },
  { id: "2", name: "Корпоративен данък", code: "110000", groupId: "1" },
  { id: "3", name: "Авансови вноски за корпоративен данък", code: "110000", groupId: "1" },
  { id: "4", name: "Данък върху разходите по чл. 204 ЗКПО", code: "110000", groupId: "1" },
  { id: "5", name: "Данък при източника по чл. 195 ЗКПО", code: "110000", groupId: "1" },
  {
    id: "6",
    name: "Данък върху доходите на физическите лица по трудови правоотношения (чл. 42 ЗДДФЛ)",
    code: "110000",
    groupId: "1",
  },
  {
    id: "7",
    name: "Окончателен данък върху дивиденти и ликвидационни дялове (чл. 38 ЗДДФЛ)",
    code: "110000",
    groupId: "1",
  },
  {
    id: "8",
    name: "Данък върху доходите на физическите лица по годишна декларация (чл. 50 ЗДДФЛ)",
    code: "110000",
    groupId: "1",
  },
  { id: "9", name: "Авансов данък по чл. 67 ЗДДФЛ", code: "110000", groupId: "1" },
  { id: "10", name: "Данък върху застрахователните премии", code: "110000", groupId: "1" },
  { id: "11", name: "Държавно обществено осигуряване (ДОО)", code: "551111", groupId: "2" },
  {
    id: "12",
    name: "Фонд Гарантирани вземания на работниците и служителите (ГВРС)",
    code: "551111",
    groupId: "2",
  },
  { id: "13", name: "Учителски пенсионен фонд (УчПФ)", code: "551111", groupId: "2" },
  {
    id: "14",
    name: "Осигурителни вноски за ДОО на самоосигуряващи се лица",
    code: "551111",
    groupId: "2",
  },
  { id: "15", name: "Здравно осигуряване (ЗО)", code: "561111", groupId: "3" },
  {
    id: "16",
    name: "Здравноосигурителни вноски на самоосигуряващи се лица",
    code: "561111",
    groupId: "3",
  },
  {
    id: "17",
    name: "Допълнително задължително пенсионно осигуряване в УПФ (ДЗПО-УПФ)",
    code: "581111",
    groupId: "4",
  },
  {
    id: "18",
    name: "Допълнително задължително пенсионно осигуряване в ППФ (ДЗПО-ППФ)",
    code: "581111",
    groupId: "4",
  },
  { id: "19", name: "Глоби и имуществени санкции", code: "110000", groupId: "5" },
  { id: "20", name: "Лихви за просрочени публични задължения", code: null, groupId: "5" },
  { id: "21", name: "Такси за административни услуги на НАП", code: "110000", groupId: "5" },
];

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
 * Implements interface-spec.md § DebtPaymentsTypesResult.
 * @returns status ok, rowCount and the items
 * @throws nothing
 * @example
 * ```ts
 * debtPaymentsTypes().rowCount; // 21
 * ```
 */
export function debtPaymentsTypes(): DebtPaymentsTypesResult {
  return {
    status: "ok",
    rowCount: DEBT_TYPES.length,
    items: DEBT_TYPES.map((t) => ({ id: t.id, name: t.name, code: t.code, groupId: t.groupId })),
    error: null,
  };
}
