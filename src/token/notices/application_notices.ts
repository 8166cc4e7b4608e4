/**
 * The mails of an application's decisions (docs/token-service.md § Mails to the integrator):
 * one when an application is received, one when it is approved (the contract, its dates and
 * the administrator's note) and one when it is rejected (with the reason). Drafts go into the
 * same notice queue as the expiry notices (notice_drafts.ts), so they are sent once across
 * instances and retried like them, in the language the integrator chose at sign-up, to the
 * application's contact e-mail. Pure texts: same notice, same mail.
 * @module
 */
import { draft, type DraftContext } from "./notice_drafts.ts";
import type {
  ApplicationRecord,
  ContractRecord,
  Locale,
  NoticeDraft,
  NoticeKind,
} from "../store/mod.ts";

/** A rendered notice. */
export interface RenderedNotice {
  readonly subject: string;
  readonly text: string;
}

const GREETING: Readonly<Record<Locale, string>> = { bg: "Здравейте,", en: "Hello," };

/**
 * A notice's mail: the greeting in its language, an empty line, then its lines.
 * @param locale bg or en (the greeting's language)
 * @param subject the subject
 * @param lines the lines after the greeting
 * @returns subject and plain text (lines joined by `\n`)
 */
export const letter = (
  locale: Locale,
  subject: string,
  lines: readonly string[],
): RenderedNotice => ({ subject, text: [GREETING[locale], "", ...lines].join("\n") });

/** The notices of an application's way. */
export type ApplicationNoticeKind = Extract<NoticeKind, `application_${string}`>;

/** @returns whether a notice is one of an application's */
export const isApplicationNotice = (k: NoticeKind): k is ApplicationNoticeKind =>
  k.startsWith("application_");

/**
 * Draft of an application's mail, due at once.
 * @param kind received, approved or rejected
 * @param a the application (after the decision, for approved and rejected)
 * @param contract the contract an approval made, or null
 * @param at its integrator (locale; recipient when the application has no contact), the time
 *   (the draft is due then) and the random source
 * @returns the draft (subject: the application's id)
 */
export function applicationNoticeDraft(
  kind: ApplicationNoticeKind,
  a: ApplicationRecord,
  contract: ContractRecord | null,
  at: DraftContext,
): NoticeDraft {
  return draft({
    kind,
    subjectId: a.id,
    dueAt: at.now,
    integratorId: a.integratorId,
    recipient: a.contactEmail || at.integrator?.email || null,
    params: {
      applicationId: a.id,
      company: a.company,
      note: a.decisionNote,
      contractId: contract?.id ?? null,
      startsAt: contract?.startsAt ?? null,
      endsAt: contract?.endsAt ?? null,
    },
  }, at);
}

type Params = Readonly<Record<string, string | number | null>>;

const ymd = (v: string | number | null | undefined) =>
  v == null ? "—" : new Date(Number(v)).toISOString().slice(0, 10);

const TEXTS: Record<Locale, Record<ApplicationNoticeKind, (p: Params) => RenderedNotice>> = {
  bg: {
    application_received: (p) =>
      letter("bg", `Заявката ${p.applicationId} е получена`, [
        `Получихме заявката за договор ${p.applicationId} на ${p.company}.`,
        `Администратор ще я прегледа; ще ви пишем, когато реши. Състоянието ѝ е и в профила ` +
        `ви, на страницата „Договор“.`,
      ]),
    application_approved: (p) =>
      letter("bg", `Заявката ${p.applicationId} е одобрена`, [
        `Заявката ${p.applicationId} на ${p.company} е одобрена: договор ${p.contractId} ` +
        `от ${ymd(p.startsAt)}` +
        (p.endsAt == null ? ", без краен срок." : ` до ${ymd(p.endsAt)}.`),
        `Реалните ви ключове вече са без срок и без ограничение на ЕИК.`,
        ...(p.note ? [`Бележка на администратора: ${p.note}`] : []),
      ]),
    application_rejected: (p) =>
      letter("bg", `Заявката ${p.applicationId} е отказана`, [
        `Заявката ${p.applicationId} на ${p.company} е отказана.`,
        `Причина: ${p.note || "не е посочена"}.`,
        `Можете да подадете нова заявка от профила си.`,
      ]),
  },
  en: {
    application_received: (p) =>
      letter("en", `Application ${p.applicationId} received`, [
        `We received the contract application ${p.applicationId} of ${p.company}.`,
        `An administrator will review it; we will write when it is decided. Its state is ` +
        `also on the Contract page of your profile.`,
      ]),
    application_approved: (p) =>
      letter("en", `Application ${p.applicationId} approved`, [
        `Application ${p.applicationId} of ${p.company} is approved: contract ${p.contractId} ` +
        `from ${ymd(p.startsAt)}` +
        (p.endsAt == null ? ", open-ended." : ` until ${ymd(p.endsAt)}.`),
        `Your live keys now have no expiry and no EIK limit.`,
        ...(p.note ? [`The administrator's note: ${p.note}`] : []),
      ]),
    application_rejected: (p) =>
      letter("en", `Application ${p.applicationId} rejected`, [
        `Application ${p.applicationId} of ${p.company} is rejected.`,
        `Reason: ${p.note || "none given"}.`,
        `You can submit a new application from your profile.`,
      ]),
  },
};

/**
 * Render an application's notice.
 * @param kind received, approved or rejected
 * @param locale bg or en
 * @param params the notice's stored parameters
 * @returns subject and plain text
 * @example
 * ```ts
 * import { equal, match } from "node:assert/strict";
 * const m = renderApplicationNotice("application_rejected", "en", {
 *   applicationId: "app_1", company: "One Ltd", note: "no company number",
 * });
 * equal(m.subject, "Application app_1 rejected");
 * match(m.text, /Reason: no company number\./);
 * ```
 */
export function renderApplicationNotice(
  kind: ApplicationNoticeKind,
  locale: Locale,
  params: Params,
): RenderedNotice {
  return TEXTS[locale][kind](params);
}
