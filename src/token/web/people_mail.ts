/**
 * The e-mails of a team and of taking access back (docs/token-service.md § Team and roles,
 * § Taking access back): an owner's invitation to join an integrator's profile, and the link
 * that confirms removing a person's last passkey. Bulgarian with English below, like the other
 * link mails; the link works once, for 30 minutes.
 * @module
 */
import type { MailMessage } from "../notices/mod.ts";

/** What a people mail is for. */
export type PeopleMailKind = "member-invite" | "passkey-remove";

/**
 * A people mail.
 * @param kind an invitation to a team, or the confirmation of removing the last passkey
 * @param to the address
 * @param url the one-time link
 * @param messageId a unique id for the Message-ID header
 * @param o who invites, to which company, with which role (invitations)
 * @returns the message
 */
export function peopleMail(
  kind: PeopleMailKind,
  to: string,
  url: string,
  messageId: string,
  o: { by?: string; company?: string; role?: string } = {},
): MailMessage {
  const roleBg = { owner: "собственик", developer: "разработчик", readonly: "само преглед" }[
    o.role ?? ""
  ] ?? o.role;
  const texts = {
    "member-invite": {
      subject: `Покана за профила на ${o.company} / Invitation to ${o.company}'s profile`,
      bg: `${o.by} ви кани в профила на интегратора ${o.company} с роля „${roleBg}“. ` +
        "Отворете връзката, за да влезете, и създайте своя passkey.",
      en: `${o.by} invites you to the integrator profile of ${o.company} as ${o.role}. ` +
        "Open the link to sign in, then create your own passkey.",
    },
    "passkey-remove": {
      subject: "Премахване на последния passkey / Removing your last passkey",
      bg: "Поискахте да премахнете последния си passkey. Отворете връзката, за да потвърдите. " +
        "Без passkey интеграторите влизат с връзка по пощата, а администраторите " +
        "искат нова покана от друг администратор.",
      en: "You asked to remove your last passkey. Open the link to confirm. " +
        "Without a passkey, integrators sign in with a mailed link, and administrators ask " +
        "another administrator for a new invitation.",
    },
  }[kind];
  return {
    to,
    subject: texts.subject,
    messageId: `<${messageId}@svc-token-service>`,
    text: [
      texts.bg,
      "",
      url,
      "",
      "Връзката важи веднъж, 30 минути. Ако не сте я поискали, не правете нищо.",
      "",
      "---",
      "",
      texts.en,
      "",
      url,
      "",
      "The link works once, for 30 minutes. If you did not ask for it, do nothing.",
    ].join("\n"),
  };
}
