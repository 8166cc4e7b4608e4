/**
 * The `nap_catalog` generator: a fixed catalog of 40 NRA e-service links in 6 categories, the
 * same for every caller, with a case-insensitive substring filter on the name, the category
 * (the spec's "title") and the URL. NATIVE links are the portal's own (REST) services, LEGACY
 * links the older PL/SQL ("pls") pages. The names are Bulgarian, the URLs fictitious paths on
 * https://portal.nra.bg. Implements docs/test-portal.md § nap_catalog (NapCatalogResult) and
 * README.md § Operations (NapCatalogRequest: "substring of name, title or URL; empty means all").
 * @module
 */
import type { NapCatalogEntry, NapCatalogResult } from "../contract/mod.ts";

const BASE = "https://portal.nra.bg";

type Row = readonly [name: string, path: string, serviceId: string | null, systemId: string | null];

// deno-fmt-ignore
const CATEGORIES: ReadonlyArray<readonly [string, readonly Row[]]> = [
  ["Данък върху добавената стойност", [
    ["Подаване на справка-декларация по ЗДДС и VIES-декларация", "/details/dds-deklaracia", "1101", "DDS"],
    ["Справка за подадени справки-декларации по ЗДДС", "/details/dds-spravka-podadeni", "1102", "DDS"],
    ["Изтегляне на файлове от подадена справка-декларация", "/details/dds-failove", "1103", "DDS"],
    ["Заявление за регистрация по ЗДДС", "/pls/pub/dds_registracia", "1104", "PLS"],
    ["Заявление за дерегистрация по ЗДДС", "/pls/pub/dds_deregistracia", "1105", "PLS"],
    ["Проверка на валиден идентификационен номер по ДДС", "/details/dds-proverka-nomer", "1106", null],
    ["Искане за възстановяване на ДДС от друга държава членка", "/pls/pub/dds_vazstanoviavane", "1107", "PLS"],
  ]],
  ["Социално и здравно осигуряване", [
    ["Подаване на декларации обр. 1 и обр. 6", "/details/d1-d6", "2101", "SOI"],
    ["Справка за подадени декларации обр. 1 и обр. 6", "/details/d1-d6-spravka", "2102", "SOI"],
    ["Уведомление по чл. 62, ал. 5 от Кодекса на труда", "/details/etz-62", "2103", "ETZ"],
    ["Уведомление по чл. 123, ал. 5 от Кодекса на труда", "/details/etz-123", "2104", "ETZ"],
    ["Справка за осигурителния доход и осигурителния стаж", "/pls/pub/soi_dohod_staj", "2105", "PLS"],
    ["Справка за здравноосигурителния статус", "/details/zo-status", "2106", "SOI"],
    ["Справка за сключени и прекратени трудови договори", "/pls/pub/etz_dogovori", "2107", "PLS"],
  ]],
  ["Данъци върху доходите", [
    ["Годишна данъчна декларация по чл. 50 ЗДДФЛ", "/details/gdd-50", "3101", "ZDDFL"],
    ["Годишна данъчна декларация по чл. 92 ЗКПО", "/details/gdd-92", "3102", "ZKPO"],
    ["Справка по чл. 73, ал. 1 ЗДДФЛ за изплатени доходи", "/details/spravka-73", "3103", "ZDDFL"],
    ["Декларация по чл. 55, ал. 1 ЗДДФЛ", "/details/deklaracia-55", "3104", "ZDDFL"],
    ["Декларация за дължими данъци при източника по чл. 201 ЗКПО", "/pls/pub/zkpo_201", "3105", "PLS"],
    ["Справка за подадени данъчни декларации", "/details/spravka-deklaracii", "3106", null],
    ["Декларация обр. 736 за изплатени доходи", "/details/deklaracia-736", "3107", "ZDDFL"],
  ]],
  ["Задължения и плащания", [
    ["Справка за задължения и плащания", "/details/zadalzhenia-plashtania", "4101", "DOPK"],
    ["Справка за дължими суми", "/details/dalzhimi-sumi", "4102", "DOPK"],
    ["Плащане на задължения с банкова карта", "/details/plashtane-karta", "4103", "POS"],
    ["Искане за прихващане или възстановяване", "/pls/pub/prihvashtane", "4104", "PLS"],
    ["Справка за наложени обезпечителни мерки", "/pls/pub/obezpechenia", "4105", "PLS"],
    ["Справка за банковите сметки на НАП", "/details/smetki-nap", "4106", null],
  ]],
  ["Удостоверения и справки", [
    ["Удостоверение за наличие или липса на задължения", "/details/udostoverenie-87", "5101", "DOPK"],
    ["Удостоверение за платени и удържани данъци", "/details/udostoverenie-danaci", "5102", "ZDDFL"],
    ["Удостоверение за статут на местно лице", "/pls/pub/udostoverenie_mestno", "5103", "PLS"],
    ["Справка за подадени документи и входящи номера", "/details/vhodiashti-nomera", "5104", null],
    ["Получаване на документи от НАП (електронна кутия)", "/details/e-kutia", "5105", "EDELIVERY"],
    ["Справка за издадени актове и наказателни постановления", "/pls/pub/aktove", "5106", "PLS"],
  ]],
  ["Регистрации, уведомления и пълномощни", [
    ["Уведомление за превоз на стоки с висок фискален риск", "/details/vfr-uvedomlenie", "6101", "VFR"],
    ["Подаване на стандартизиран одиторски файл (Н-18)", "/details/odit-n18", "6102", "N18"],
    ["Регистриране на пълномощно за електронни услуги", "/details/palnomoshtno", "6103", "PAS"],
    ["Справка за регистрираните пълномощни", "/details/palnomoshtni-spravka", "6104", "PAS"],
    ["Регистрация и дерегистрация на фискално устройство", "/pls/pub/fu_registracia", "6105", "PLS"],
    ["Заявление за издаване на персонален идентификационен код", "/pls/pub/pik", "6106", "PLS"],
    ["Уведомление по чл. 52м от Наредба Н-18 (електронен магазин)", "/details/e-magazin", "6107", "N18"],
  ]],
];

/** The whole catalog, in display order (40 entries, 6 categories). */
export const NAP_CATALOG: readonly NapCatalogEntry[] = CATEGORIES.flatMap(([category, rows]) =>
  rows.map(([name, path, serviceId, systemId]): NapCatalogEntry => ({
    name,
    category,
    linkType: path.startsWith("/pls/") ? "LEGACY" : "NATIVE",
    serviceId,
    systemId,
    url: BASE + path,
  }))
);

/**
 * True when an entry matches a filter: a case-insensitive substring of its name, category or
 * URL (after trimming the filter); an empty filter matches everything.
 * @param entry the catalog entry
 * @param filter the filter text
 * @returns whether it matches
 * @throws nothing
 */
export function catalogEntryMatches(entry: NapCatalogEntry, filter: string): boolean {
  const f = filter.trim().toLocaleLowerCase("bg");
  if (f === "") return true;
  return [entry.name, entry.category, entry.url ?? ""].some((s) =>
    s.toLocaleLowerCase("bg").includes(f)
  );
}

/**
 * The portal service catalog, filtered.
 *
 * Implements docs/test-portal.md § nap_catalog (NapCatalogResult): totalLinks counts the whole
 * catalog, matchedLinks the entries after the filter, categories the distinct categories among them.
 * @param req `filter` (optional; empty = all)
 * @returns status ok with the matching entries in catalog order
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(napCatalog({ filter: "ддс" }).matchedLinks > 0, true);
 * ```
 */
export function napCatalog(req: { readonly filter?: string | undefined }): NapCatalogResult {
  const items = NAP_CATALOG.filter((e) => catalogEntryMatches(e, req.filter ?? ""));
  return {
    status: "ok",
    items,
    totalLinks: NAP_CATALOG.length,
    matchedLinks: items.length,
    categories: new Set(items.map((e) => e.category)).size,
    error: null,
  };
}
