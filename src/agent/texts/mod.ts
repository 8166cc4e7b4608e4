/**
 * The pages' languages: the Bulgarian and English catalogs, the request's language, counts with
 * their plural forms, local times, and the page pieces drawn from them (docs/console.md §
 * Languages).
 * @module
 */
export { currentLang, type Lang, LANG_COOKIE, langOf, LANGS, withLang } from "./lang.ts";
export {
  both,
  bothWith,
  CATALOGS,
  count,
  type CountKey,
  logWords,
  pluralRules,
  say,
  type TextKey,
  type Vars,
  w,
  when,
} from "./words.ts";
export { headRow, langSwitch, tableOr } from "./markup.ts";
export type { Plural } from "./bg.ts";
