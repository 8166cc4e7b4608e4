/**
 * Pools of fictitious Bulgarian names: people, company names with their legal form (ООД, ЕООД,
 * АД, ЕТ), towns and streets, goods and services, EU trading partners, plus the official
 * streamlined transliteration (Закон за транслитерацията) for e-mail addresses. Every string is
 * encodable in Windows-1251, so it can go into NRA files. Implements the "realistic" part of
 * docs/test-portal.md § Test portal.
 * @module
 */
import type { Rng } from "./rng.ts";

// deno-fmt-ignore
const MALE_FIRST = [
  "Иван", "Георги", "Димитър", "Петър", "Николай", "Христо", "Стефан", "Тодор", "Васил",
  "Александър", "Костадин", "Атанас", "Милен", "Кирил", "Емил", "Светослав", "Борис", "Радослав",
];
// deno-fmt-ignore
const FEMALE_FIRST = [
  "Мария", "Елена", "Йорданка", "Десислава", "Гергана", "Надежда", "Виктория", "Ралица",
  "Цветелина", "Милена", "Теодора", "Антония", "Стефка", "Силвия", "Петя", "Ивелина",
];
// deno-fmt-ignore
const SURNAME_ROOTS = [
  "Петров", "Иванов", "Георгиев", "Димитров", "Николов", "Стоянов", "Тодоров", "Христов",
  "Атанасов", "Ангелов", "Василев", "Костов", "Маринов", "Колев", "Павлов", "Михайлов", "Попов",
  "Илиев", "Йорданов", "Славов", "Русев", "Каменов",
];
// deno-fmt-ignore
const BRANDS = [
  "Алфа", "Витоша", "Родопа", "Балкан", "Тракия", "Пирин", "Марица", "Дунав", "Странджа", "Искър",
  "Янтра", "Арда", "Мусала", "Ирис", "Зора", "Еделвайс", "Орион", "Вега", "Лъч", "Омега", "Сакар",
  "Огоста", "Камчия", "Тунджа", "Мизия", "Хемус", "Одесос", "Сердика",
];
// deno-fmt-ignore
const SECTORS = [
  "Трейд", "Консулт", "Строй", "Транс", "Инвест", "Агро", "Софт", "Логистик", "Медикал", "Фууд",
  "Текс", "Енерджи", "Проект", "Дизайн", "Сервиз", "Мебел", "Принт", "Турс",
];
/** Legal forms with their weight out of 100. */
const LEGAL_FORMS: ReadonlyArray<readonly [LegalForm, number]> = [
  ["ЕООД", 42],
  ["ООД", 33],
  ["АД", 10],
  ["ЕТ", 15],
];
const TOWNS: ReadonlyArray<readonly [string, string]> = [
  ["София", "1000"],
  ["Пловдив", "4000"],
  ["Варна", "9000"],
  ["Бургас", "8000"],
  ["Русе", "7000"],
  ["Стара Загора", "6000"],
  ["Плевен", "5800"],
  ["Велико Търново", "5000"],
  ["Благоевград", "2700"],
  ["Шумен", "9700"],
  ["Габрово", "5300"],
  ["Хасково", "6300"],
];
// deno-fmt-ignore
const STREETS = [
  "ул. Раковски", "бул. Витоша", "ул. Граф Игнатиев", "бул. Христо Ботев", "ул. Шипка",
  "бул. България", "ул. Иван Вазов", "ул. Цар Симеон", "бул. Васил Левски", "ул. Опълченска",
];
// deno-fmt-ignore
const GOODS = [
  "Стоки за препродажба", "Счетоводни услуги", "Транспортни услуги", "Горива", "Наем офис",
  "Строителни материали", "Компютърна техника", "Консултантски услуги", "Резервни части",
  "Хранителни продукти", "Канцеларски материали", "Реклама", "Електроенергия", "Софтуер",
  "Ремонтни услуги", "Опаковки",
];
const EU_PARTNERS: ReadonlyArray<readonly [string, string]> = [
  ["DE", "Handelshaus Nord GmbH"],
  ["RO", "Carpati Distributie SRL"],
  ["GR", "Aegean Supplies AE"],
  ["AT", "Alpen Logistik GmbH"],
  ["IT", "Ferro Componenti SRL"],
  ["NL", "Delta Trading BV"],
  ["PL", "Wisla Handel Sp z oo"],
];

/** A legal form of a Bulgarian business. */
export type LegalForm = "ЕООД" | "ООД" | "АД" | "ЕТ";

/** A fictitious person. */
export interface Person {
  readonly first: string;
  readonly middle: string;
  readonly last: string;
  readonly female: boolean;
}

/**
 * A fictitious person: first name, patronymic and family name (feminine forms for women).
 * @param rng the stream
 * @returns the person
 * @throws nothing
 */
export function randomPerson(rng: Rng): Person {
  const female = rng.chance(0.5);
  const first = rng.pick(female ? FEMALE_FIRST : MALE_FIRST);
  const middleRoot = rng.pick(SURNAME_ROOTS);
  const lastRoot = rng.pick(SURNAME_ROOTS);
  return {
    first,
    middle: female ? `${middleRoot}а` : middleRoot,
    last: female ? `${lastRoot}а` : lastRoot,
    female,
  };
}

/**
 * The full name "Име Презиме Фамилия".
 * @param p the person
 * @returns the name
 * @throws nothing
 */
export function fullName(p: Person): string {
  return `${p.first} ${p.middle} ${p.last}`;
}

/**
 * A legal form drawn with realistic weights.
 * @param rng the stream
 * @returns ЕООД, ООД, АД or ЕТ
 * @throws nothing
 */
export function randomLegalForm(rng: Rng): LegalForm {
  let r = rng.int(0, 99);
  for (const [form, w] of LEGAL_FORMS) {
    if (r < w) return form;
    r -= w;
  }
  return "ЕООД";
}

/**
 * A company name in the usual Bulgarian register style: `"Вега Консулт" ЕООД`, or for a sole
 * trader `ЕТ "Иван Петров – 77"`.
 * @param rng the stream
 * @param form the legal form
 * @param owner the owner (used by ЕТ)
 * @returns the registered name
 * @throws nothing
 */
export function companyName(rng: Rng, form: LegalForm, owner: Person): string {
  if (form === "ЕТ") return `ЕТ "${owner.first} ${owner.last} – ${rng.int(1, 99)}"`;
  const brand = rng.pick(BRANDS);
  const base = rng.chance(0.8) ? `${brand} ${rng.pick(SECTORS)}` : brand;
  return `"${base}" ${form}`;
}

/** A postal address. */
export interface Address {
  readonly town: string;
  readonly postcode: string;
  readonly street: string;
}

/**
 * A fictitious address in a Bulgarian town.
 * @param rng the stream
 * @returns the address
 * @throws nothing
 */
export function randomAddress(rng: Rng): Address {
  const [town, postcode] = rng.pick(TOWNS);
  return { town, postcode, street: `${rng.pick(STREETS)} № ${rng.int(1, 180)}` };
}

/**
 * A goods or service description for a ledger line.
 * @param rng the stream
 * @returns the description
 * @throws nothing
 */
export function randomGoods(rng: Rng): string {
  return rng.pick(GOODS);
}

/**
 * An EU trading partner (VIES): VAT number with country prefix and a Latin name.
 * @param rng the stream
 * @returns `[vatNumber, name]`
 * @throws nothing
 */
export function randomEuPartner(rng: Rng): [string, string] {
  const [country, name] = rng.pick(EU_PARTNERS);
  return [`${country}${rng.digits(9)}`, name];
}

// deno-fmt-ignore
const TRANSLIT: Readonly<Record<string, string>> = {
  а: "a", б: "b", в: "v", г: "g", д: "d", е: "e", ж: "zh", з: "z", и: "i", й: "y", к: "k", л: "l",
  м: "m", н: "n", о: "o", п: "p", р: "r", с: "s", т: "t", у: "u", ф: "f", х: "h", ц: "ts",
  ч: "ch", ш: "sh", щ: "sht", ъ: "a", ь: "y", ю: "yu", я: "ya",
};

/**
 * Transliterate Bulgarian Cyrillic to Latin (streamlined system, lower case), keeping only
 * letters, digits and single dashes: fit for the local part or domain of an e-mail address.
 * @param text Cyrillic or Latin text
 * @returns a lower-case slug such as "vega-konsult"
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(slug("Вега Консулт"), "vega-konsult");
 * ```
 */
export function slug(text: string): string {
  const latin = [...text.toLowerCase()].map((c) => TRANSLIT[c] ?? c).join("");
  return latin.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
}
