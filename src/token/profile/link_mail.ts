/**
 * The e-mails of the sign-in side (docs/token-service.md § The profile): the link that
 * confirms a sign-up, and the sign-in link (also sent when someone signs up again with an
 * address that has an account, so the answer on the page never tells whether it exists). In one
 * language, the one of the page the person asked from (docs/token-service.md § Languages); the
 * link works once, for 30 minutes.
 * @module
 */
import type { Lang } from "../../contract/mod.ts";
import type { MailMessage } from "../notices/mod.ts";
import { linkMailText } from "../web/mod.ts";

/** What a link mail is for. */
export type LinkMailKind = "signup" | "signin" | "admin-invite";

/**
 * A link mail.
 * @param kind sign-up confirmation, sign-in, or an administrator's invitation
 * @param to the address
 * @param url the one-time link
 * @param messageId a unique id for the Message-ID header
 * @param lang the language of the page it was asked from (`bg` or `en`)
 * @returns the message, in that language only
 */
export function linkMail(
  kind: LinkMailKind,
  to: string,
  url: string,
  messageId: string,
  lang: Lang,
): MailMessage {
  const texts = {
    signup: {
      subject: { bg: "Потвърдете адреса си", en: "Confirm your e-mail address" },
      bg:
        "Някой (надяваме се вие) създаде профил на интегратор с този адрес. Отворете връзката, за да го потвърдите и да влезете.",
      en:
        "Someone (we hope you) signed up as an integrator with this address. Open the link to confirm it and sign in.",
    },
    signin: {
      subject: { bg: "Вход в профила", en: "Sign in to your profile" },
      bg:
        "Ето връзката за вход в профила ви (поискана при вход или при повторна регистрация с този адрес).",
      en:
        "Here is the link to sign in to your profile (asked for at sign-in, or by signing up again with this address).",
    },
    "admin-invite": {
      subject: { bg: "Покана за администратор", en: "Administrator invitation" },
      bg:
        "Поканени сте като администратор на услугата за токени. Отворете връзката и създайте своя passkey.",
      en:
        "You are invited as an administrator of the token service. Open the link and create your passkey.",
    },
  }[kind];
  return linkMailText(
    to,
    { bg: texts.subject.bg, en: texts.subject.en },
    texts,
    url,
    messageId,
    lang,
  );
}
