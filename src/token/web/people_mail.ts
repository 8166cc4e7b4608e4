/**
 * The e-mails of a team and of taking access back (docs/token-service.md § Team and roles,
 * § Taking access back): an owner's invitation to join an integrator's profile, and the link
 * that confirms removing a person's last passkey. In one language, the one of the page it was
 * asked from (docs/token-service.md § Languages), like the other link mails; the link works once,
 * for 30 minutes.
 * @module
 */
import type { Bilingual, Lang } from "../../contract/mod.ts";
import type { MailMessage } from "../notices/mod.ts";

/** What a people mail is for. */
export type PeopleMailKind = "member-invite" | "passkey-remove";

/**
 * A people mail.
 * @param kind an invitation to a team, or the confirmation of removing the last passkey
 * @param to the address
 * @param url the one-time link
 * @param messageId a unique id for the Message-ID header
 * @param lang the language to write it in (`bg` or `en`): the page's it was asked from
 * @param o who invites, to which company, with which role (invitations)
 * @returns the message, in that language only
 */
export function peopleMail(
  kind: PeopleMailKind,
  to: string,
  url: string,
  messageId: string,
  lang: Lang,
  o: { by?: string; company?: string; role?: string } = {},
): MailMessage {
  const roleBg = { owner: "собственик", developer: "разработчик", readonly: "само преглед" }[
    o.role ?? ""
  ] ?? o.role;
  const texts = {
    "member-invite": {
      subject: {
        bg: `Покана за профила на ${o.company}`,
        en: `Invitation to ${o.company}'s profile`,
      },
      bg: `${o.by} ви кани в профила на интегратора ${o.company} с роля „${roleBg}“. ` +
        "Отворете връзката, за да влезете, и създайте своя passkey.",
      en: `${o.by} invites you to the integrator profile of ${o.company} as ${o.role}. ` +
        "Open the link to sign in, then create your own passkey.",
    },
    "passkey-remove": {
      subject: { bg: "Премахване на последния passkey", en: "Removing your last passkey" },
      bg: "Поискахте да премахнете последния си passkey. Отворете връзката, за да потвърдите. " +
        "Без passkey интеграторите влизат с връзка по пощата, а администраторите " +
        "искат нова покана от друг администратор.",
      en: "You asked to remove your last passkey. Open the link to confirm. " +
        "Without a passkey, integrators sign in with a mailed link, and administrators ask " +
        "another administrator for a new invitation.",
    },
  }[kind];
  return linkMailText(to, texts.subject, texts, url, messageId, lang);
}

/**
 * A one-time link's mail in one language: the text, the link, and how long it works.
 * @param to the address
 * @param subject the subject in both languages
 * @param body the text before the link in both languages
 * @param url the one-time link
 * @param messageId a unique id for the Message-ID header
 * @param lang the language to write it in
 * @returns the message
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const m = linkMailText("a@b.c", { bg: "Вход", en: "Sign in" }, { bg: "Ето", en: "Here" },
 *   "https://x/l?code=1", "m1", "en");
 * equal(m.subject, "Sign in");
 * equal(m.text.includes("Ето"), false);
 * ```
 */
export function linkMailText(
  to: string,
  subject: Bilingual,
  body: Bilingual,
  url: string,
  messageId: string,
  lang: Lang,
): MailMessage {
  const lasts = {
    bg: "Връзката важи веднъж, 30 минути. Ако не сте я поискали, не правете нищо.",
    en: "The link works once, for 30 minutes. If you did not ask for it, do nothing.",
  };
  return {
    to,
    subject: subject[lang],
    messageId: `<${messageId}@svc-token-service>`,
    text: [body[lang], "", url, "", lasts[lang]].join("\n"),
  };
}
