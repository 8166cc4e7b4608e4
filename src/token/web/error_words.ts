/**
 * The errors of the profile and the desk in words (docs/token-service.md § Languages): what the
 * page says for an error of the catalog (src/contract/error_catalog.ts), in the page's language.
 * English shows the error's own message (it names the field or the thing); Bulgarian shows the
 * code's words here, with the form field's name when the error names one. Pure.
 * @module
 */
import type { AppError, Bilingual } from "../../contract/mod.ts";

const w = (bg: string, en: string): Bilingual => ({ bg, en });

/** The Bulgarian words of the codes the pages answer with. */
const WORDS: Readonly<Record<string, Bilingual>> = {
  WEB_SESSION_REQUIRED: w("Влезте отново.", "Sign in first."),
  WEB_CSRF_INVALID: w(
    "Страницата е остаряла: презаредете я и опитайте отново.",
    "The page is out of date: reload it and try again.",
  ),
  WEB_CROSS_SITE: w(
    "Заявки от други сайтове не се приемат.",
    "Cross-site requests are refused.",
  ),
  WEB_ORIGIN_REQUIRED: w(
    "Промяната не идва от страница на услугата.",
    "The change does not come from a page of this service.",
  ),
  WEB_FORBIDDEN: w("Тази страница не е за този профил.", "This page is not for this account."),
  WEB_INPUT_INVALID: w(
    "Поле на формата липсва или е невалидно.",
    "A form field is missing or invalid.",
  ),
  NOT_FOUND: w("Няма такъв запис.", "Not found."),
  CONFLICT: w("Промяната не е възможна в сегашното състояние.", "The change is not possible now."),
  RATE_LIMITED: w("Твърде много опити: опитайте по-късно.", "Too many attempts: try again later."),
  BODY_TOO_LARGE: w("Заявката е твърде голяма.", "The request is too large."),
  INVALID_JSON: w("Заявката не може да бъде прочетена.", "The request could not be read."),
  VALIDATION_FAILED: w("Поле липсва или е невалидно.", "A field is missing or invalid."),
  EIK_LIMIT_REACHED: w(
    "Лимитът от фирми (ЕИК) е изчерпан.",
    "The company (EIK) limit is used up.",
  ),
  LIVE_TRIAL_OVER: w(
    "Седемте дни за реални ключове без договор изтекоха.",
    "The 7 days of live keys without a contract are over.",
  ),
  DATABASE_UNAVAILABLE: w(
    "Базата данни е временно недостъпна: опитайте след малко.",
    "The database is unavailable for a moment: try again shortly.",
  ),
};

/** The Bulgarian words of a refusal that names its reason (`details.reason`). */
const REASONS: Readonly<Record<string, string>> = {
  admin_exists: "Този адрес е на администратор: той влиза със своя passkey.",
  self: "Друг администратор ви премахва, не вие себе си.",
  last_admin: "Бюрото трябва да има поне един администратор.",
  no_smtp: "Последният passkey се премахва с връзка по пощата, а пощата не е настроена.",
};

/** The team's roles as the Bulgarian pages name them (profile/members_page.ts). */
const ROLES: Readonly<Record<string, string>> = {
  owner: "собственик",
  developer: "разработчик",
  readonly: "само преглед",
};

/** The forms' fields as the Bulgarian page names them. */
const FIELDS: Readonly<Record<string, string>> = {
  email: "имейл",
  role: "роля",
  eiks: "ЕИК",
  company: "фирма",
  contactEmail: "имейл за връзка",
  intendedUse: "предназначение",
  endsAt: "крайна дата",
  passkey: "passkey",
};

/**
 * An error of the catalog in both languages, for a page or a message on top of one.
 * @param e the error (its `code`, `message` and `details.field`)
 * @returns `{bg, en}`: Bulgarian from the code's words (general words for a code without its
 *   own), English the error's own message
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { AppError } from "../../contract/mod.ts";
 * const e = new AppError("WEB_INPUT_INVALID", "An EIK has 9 or 13 digits", { field: "eiks" });
 * equal(errorWords(e).en, "An EIK has 9 or 13 digits");
 * equal(errorWords(e).bg, "Поле на формата липсва или е невалидно. (поле: ЕИК)");
 * ```
 */
export function errorWords(e: AppError): Bilingual {
  const reason = e.details?.reason;
  const said = typeof reason === "string" ? REASONS[reason] : undefined;
  const { role, needs } = e.details ?? {};
  const roleWords = typeof role === "string" && typeof needs === "string"
    ? `Вашата роля (${ROLES[role] ?? role}) не позволява тази промяна: нужна е ${
      ROLES[needs] ?? needs
    }.`
    : undefined;
  const bg = said ?? roleWords;
  const own = bg ? { bg, en: e.message } : WORDS[e.code];
  const name = e.details?.field;
  const field = typeof name === "string" ? ` (поле: ${FIELDS[name] ?? name})` : "";
  return {
    bg: own ? `${own.bg}${field}` : `Заявката не е изпълнена (код ${e.code}).`,
    en: e.message || own?.en || e.code,
  };
}
