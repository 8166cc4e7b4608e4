/**
 * Bulgarian and English texts of the e-mail notices (docs/token-service.md § Access phases), chosen
 * by the integrator's locale. Dates are shown in Bulgarian time (Europe/Sofia), with the exact
 * UTC instant in ISO 8601 alongside. Pure: same notice, same text.
 * @module
 */
import type { Locale, NoticeKind } from "../store/mod.ts";
import { bulgarianTime, localTime } from "../../local_time.ts";
import {
  type ApplicationNoticeKind,
  isApplicationNotice,
  letter,
  renderApplicationNotice,
  type RenderedNotice,
} from "./application_notices.ts";

export type { RenderedNotice };

/**
 * A date in Bulgarian time for a notice.
 * @param ms epoch ms
 * @param locale bg → `30.01.2027 10:00 ч.`, en → `2027-01-30 10:00`
 * @returns the formatted date
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(formatNoticeDate(Date.UTC(2027, 0, 30, 8), "bg"), "30.01.2027 10:00 ч.");
 * ```
 */
export function formatNoticeDate(ms: number, locale: Locale): string {
  return locale === "bg"
    ? `${bulgarianTime(ms, { seconds: false })} ч.`
    : localTime(ms, { seconds: false, offset: false });
}

type Params = Readonly<Record<string, string | number | null>>;

const iso = (v: unknown) => new Date(Number(v)).toISOString();
const date = (v: unknown, l: Locale) => formatNoticeDate(Number(v), l);

const TEXTS: Record<
  Locale,
  Record<Exclude<NoticeKind, ApplicationNoticeKind>, (p: Params) => RenderedNotice>
> = {
  bg: {
    key_expiring: (p) =>
      letter("bg", `API ключът ${p.keyId} изтича на ${date(p.expiresAt, "bg")}`, [
        `API ключът ${p.keyId}${p.label ? ` („${p.label}“)` : ""} (${
          p.mode === "live" ? "реален" : "тестов"
        }) на ${p.integratorName} изтича на ${date(p.expiresAt, "bg")} българско време ` +
        `(${iso(p.expiresAt)}).`,
        `След този момент услугата ще отговаря с 401. Създайте нов ключ в профила си.`,
      ]),
    contract_expiring: (p) =>
      letter("bg", `Договорът ${p.contractId} изтича на ${date(p.endsAt, "bg")}`, [
        `Договорът ${p.contractId} с ${p.company} изтича на ${date(p.endsAt, "bg")} ` +
        `българско време (${iso(p.endsAt)}).`,
        `След това реалните ключове отново ще важат 7 дни и за до 3 ЕИК. ` +
        `Подайте нова заявка, за да го подновите.`,
      ]),
    contract_terminated: (p) =>
      letter("bg", `Договорът ${p.contractId} е прекратен`, [
        `Договорът ${p.contractId} с ${p.company} е прекратен на ${date(p.terminatedAt, "bg")} ` +
        `българско време (${iso(p.terminatedAt)}).` + (p.reason ? ` Причина: ${p.reason}.` : ""),
        `Реалните ви ключове важат до ${date(p.keysExpireAt, "bg")} (${iso(p.keysExpireAt)}) ` +
        `и за до 3 ЕИК на ключ.`,
      ]),
  },
  en: {
    key_expiring: (p) =>
      letter("en", `API key ${p.keyId} expires on ${date(p.expiresAt, "en")}`, [
        `The ${p.mode} API key ${p.keyId}${p.label ? ` ("${p.label}")` : ""} of ` +
        `${p.integratorName} expires on ${date(p.expiresAt, "en")} Bulgarian time ` +
        `(${iso(p.expiresAt)}).`,
        `After that the service answers 401. Create a new key in your profile.`,
      ]),
    contract_expiring: (p) =>
      letter("en", `Contract ${p.contractId} expires on ${date(p.endsAt, "en")}`, [
        `Contract ${p.contractId} with ${p.company} expires on ${date(p.endsAt, "en")} ` +
        `Bulgarian time (${iso(p.endsAt)}).`,
        `After that, live keys last 7 days and cover up to 3 EIKs again. ` +
        `Submit a new application to renew it.`,
      ]),
    contract_terminated: (p) =>
      letter("en", `Contract ${p.contractId} has been terminated`, [
        `Contract ${p.contractId} with ${p.company} was terminated on ` +
        `${date(p.terminatedAt, "en")} Bulgarian time (${iso(p.terminatedAt)}).` +
        (p.reason ? ` Reason: ${p.reason}.` : ""),
        `Your live keys remain valid until ${date(p.keysExpireAt, "en")} ` +
        `(${iso(p.keysExpireAt)}) and cover up to 3 EIKs each.`,
      ]),
  },
};

/**
 * Render a notice.
 * @param kind the notice kind
 * @param locale bg or en
 * @param params the notice's stored parameters
 * @returns subject and plain text
 */
export function renderNotice(kind: NoticeKind, locale: Locale, params: Params): RenderedNotice {
  if (isApplicationNotice(kind)) return renderApplicationNotice(kind, locale, params);
  return TEXTS[locale][kind](params);
}
