/**
 * The pages' words, drawn in the language of the request ({@link currentLang}): a text of the
 * catalogs by key ({@link w}), with `{name}` placeholders filled in; a count with its plural
 * form from `Intl.PluralRules` ({@link count}); a {@link Bilingual} made elsewhere (a doctor
 * check, a file's warning, a sender's message) in the current language ({@link say}); and the
 * time in the computer's local zone with its offset ({@link when}).
 * @module
 */
import { bi, type Bilingual, type Lang } from "../../contract/mod.ts";
import { localTime } from "../../local_time.ts";
import { BG, type Plural } from "./bg.ts";
import { EN } from "./en.ts";
import { currentLang } from "./lang.ts";

/** The catalogs, one per language (docs/console.md § Languages: where a new text goes). */
export const CATALOGS: Readonly<Record<Lang, Readonly<Record<string, string | Plural>>>> = {
  bg: BG,
  en: EN,
};

type Catalog = typeof BG;
/** A key of a plain text in the catalogs. */
export type TextKey = {
  [K in keyof Catalog]: Catalog[K] extends string ? K : never;
}[keyof Catalog];
/** A key of a count's text (one form per plural category). */
export type CountKey = {
  [K in keyof Catalog]: Catalog[K] extends Plural ? K : never;
}[keyof Catalog];

/** Values for a text's `{name}` placeholders. */
export type Vars = Readonly<Record<string, string | number>>;

const fill = (s: string, vars?: Vars): string =>
  vars ? s.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m)) : s;

/**
 * A text of the catalogs in the current language.
 * @param key the text's key (a missing one is a compile error; the catalogs test checks both)
 * @param vars values for its `{name}` placeholders
 * @returns the text
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * import { w, withLang } from "./mod.ts";
 * deepStrictEqual(withLang("en", () => w("nav.status")), "Status");
 * ```
 */
export function w(key: TextKey, vars?: Vars): string {
  return fill(CATALOGS[currentLang()][key] as string, vars);
}

/**
 * A text of the catalogs in both languages (for a message kept until the next page).
 * @param key the text's key
 * @param vars values for its placeholders
 */
export function both(key: TextKey, vars?: Vars): Bilingual {
  return bi(fill(BG[key] as string, vars), fill(EN[key] as string, vars));
}

/**
 * A text of the catalogs in both languages, each with its own values (a state's word, a
 * duration) — for a message kept until the next page or sent to a page's script.
 * @param key the text's key
 * @param vars the values for a language
 */
export function bothWith(key: TextKey, vars: (lang: Lang) => Vars): Bilingual {
  return bi(fill(BG[key] as string, vars("bg")), fill(EN[key] as string, vars("en")));
}

const rules = new Map<Lang, Intl.PluralRules>();
/** The plural rules of a language (Bulgarian and English: `one` and `other`). */
export function pluralRules(lang: Lang): Intl.PluralRules {
  let r = rules.get(lang);
  if (!r) rules.set(lang, r = new Intl.PluralRules(lang));
  return r;
}

/**
 * A count with the form its number takes in the current language: "1 ред", "2 реда".
 * @param key the count's key (its text has a form per plural category, `{n}` the number)
 * @param n the number
 * @param vars other placeholders
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * import { count, withLang } from "./mod.ts";
 * deepStrictEqual(withLang("bg", () => count("count.rows", 1)), "1 ред");
 * ```
 */
export function count(key: CountKey, n: number, vars?: Vars): string {
  const lang = currentLang();
  const forms = CATALOGS[lang][key] as Plural;
  const cat = pluralRules(lang).select(n) as keyof Plural;
  return fill(forms[cat] ?? forms.other, { ...vars, n });
}

/**
 * A log line's message in the current language: its text from the catalogs (`log.<message>`),
 * or the message as logged when the catalogs have none.
 * @param msg the message as logged (English, src/log.ts)
 */
export function logWords(msg: string): string {
  const text = (CATALOGS[currentLang()] as Record<string, unknown>)[`log.${msg}`];
  return typeof text === "string" ? text : msg;
}

/**
 * A text made elsewhere in both languages, in the current one.
 * @param b the text
 */
export const say = (b: Bilingual): string => b[currentLang()];

/**
 * A time as the accountant reads it: Bulgaria's local time with its offset
 * (src/local_time.ts), or "—".
 * @param at an ISO 8601 time or null
 * @param seconds whether to show the seconds
 */
export const when = (at: string | Date | null | undefined, seconds = false): string =>
  localTime(at ?? null, { seconds }) || "—";
