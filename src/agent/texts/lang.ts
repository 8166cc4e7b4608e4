/**
 * The language a page is drawn in: Bulgarian by default, English on the switch. The choice is
 * a cookie of the agent's origin ({@link LANG_COOKIE}), so the console and the confirmation
 * page (same origin) follow it. While a request is answered its language is held in an
 * `AsyncLocalStorage` ({@link withLang}), so every text helper ({@link currentLang}) draws that
 * language without threading it through each function.
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Lang } from "../../contract/mod.ts";

export type { Lang };

/** The languages of the pages, the default first. */
export const LANGS: readonly Lang[] = ["bg", "en"];

/** The cookie that remembers the choice (`bg` or `en`; anything else means Bulgarian). */
export const LANG_COOKIE = "svc_lang";

const store = new AsyncLocalStorage<Lang>();

/**
 * The language a cookie's value names.
 * @param v the cookie's value (or a query parameter)
 * @returns `en` for "en", else `bg`
 */
export const langOf = (v: string | null | undefined): Lang => v === "en" ? "en" : "bg";

/**
 * Run `fn` with `lang` as the language of every text drawn inside it (awaits included).
 * @param lang the language
 * @param fn what draws the page
 * @returns what `fn` returns
 */
export const withLang = <T>(lang: Lang, fn: () => T): T => store.run(lang, fn);

/** The language of the page being drawn (`bg` outside {@link withLang}). */
export const currentLang = (): Lang => store.getStore() ?? "bg";
