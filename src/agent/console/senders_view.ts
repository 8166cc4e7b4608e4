/**
 * The pieces of the console's Senders page (docs/console.md § Senders): a sender's row (its
 * certificate in words, state and actions) and, for a certificate found on this computer, the form
 * that adds it or the note that a sender already uses it.
 * @module
 */
import { html } from "hono/html";
import {
  failedInWords,
  type FoundCertificate,
  parseKeyStoreRef,
  type SenderConfig,
} from "../senders/mod.ts";
import { expiryNote, notQualifiedMark, sourceWords } from "./certificate_view.ts";
import { csrfField, type Markup, say, w, when } from "./layout.ts";

/** Whether a sender's key store reference names this found certificate. */
function sameCertificate(keystore: unknown, c: FoundCertificate): boolean {
  const ref = parseKeyStoreRef(keystore) as Record<string, unknown> | null;
  const b = c.ref as Record<string, unknown>;
  if (!ref || ref.type !== b.type) return false;
  return ["module", "tokenLabel", "certId", "file", "thumbprint", "label"].every((k) =>
    ref[k] === undefined || b[k] === undefined || ref[k] === b[k]
  );
}

/** "Already a sender: …" for a certificate a sender uses, else the form that adds it. */
export function alreadyOr(
  senders: readonly SenderConfig[],
  c: FoundCertificate,
  csrf: string,
): Markup {
  const added = senders.find((s) => sameCertificate(s.keystore, c));
  return added
    ? html`<span class="ok small already">${
      w("senders.already_a_sender", { name: added.displayName })
    }</span>`
    : addForm(c, csrf);
}

/** The form that adds a found certificate as a sender. */
function addForm(c: FoundCertificate, csrf: string, extra: Markup | null = null): Markup {
  return html`
    <form method="post" action="/console/senders/add"
      class="add-sender">${csrfField(csrf)}<input type="hidden" name="key" value="${c.key}">${extra}
    <label class="small">${w("senders.name_on_the_confirmation")}
    <input name="displayName" value="${c.holderName}" required maxlength="200"></label>
    <label class="small">${w("senders.pin_if_the_token")}
    <input type="password" name="pin" autocomplete="off" maxlength="64"></label>
    <label class="small"><input type="checkbox" name="force" value="1"> ${w(
      "senders.add_even_if_a",
    )}</label>
    <button class="primary">${w("senders.add_as_sender")}</button></form>
  `;
}

/** What unlocks a sender's key, in words: a signature file's password, a token's PIN (the
 * OS stores ask in their own dialog; their field is the PIN a card behind them may need). */
const secretWord = (type: string | undefined): string =>
  type === "pkcs12" ? w("senders.secret_password") : w("senders.secret_pin");

/**
 * A sender's row in the Senders table: name (marked when not a QES) and where its key is, the
 * certificate (holder, masked EGN, issuer, validity, failed checks), state, and the forms that
 * test it (with the PIN), make it active and remove it.
 * @param s the sender
 * @param cert its certificate as read now (null when its token is not inserted)
 * @param senders all senders (a lone active sender has no "make active")
 * @param csrf the session's CSRF token
 * @returns `<tr data-sender>`
 */
export function senderRow(
  s: SenderConfig,
  cert: FoundCertificate | null,
  senders: readonly SenderConfig[],
  csrf: string,
): Markup {
  const ref = (() => {
    try {
      return parseKeyStoreRef(s.keystore);
    } catch {
      return null;
    }
  })();
  return html`
    <tr data-sender="${s.id}" data-qualified="${String(cert?.qualified ?? s.qualified ?? "")}">
      <td><strong>${s.displayName}</strong>${(cert?.qualified ?? s.qualified) === false
        ? html`
          ${notQualifiedMark()}
        `
        : ""}<br><span class="small muted sender-where">${ref
        ? sourceWords(ref.type, ref.type === "csc" ? new URL(ref.serviceUrl).host : undefined)
        : "—"}</span></td>
      <td class="small sender-cert">${cert
        ? html`
          <span class="holder">${cert.holderName}</span>${cert.personalIdMasked
            ? html`
              <span class="mono personal-id">${cert.personalIdMasked}</span>
            `
            : ""}<br><span
            class="issuer">${cert.issuer}</span><br>${when(cert.notBefore)} – ${when(
              cert.notAfter,
            )} ${expiryNote(cert)}${cert.checks.some((x) => !x.ok)
              ? html`<br><span class="bad failed-checks">${say(failedInWords(cert.checks))}</span>`
              : ""}
        `
        : html`<span class="muted">${w("senders.shown_when_the_token")}</span>`}</td>
      <td>${s.active
        ? html`<span class="ok">${w("senders.active")}</span>`
        : html`<span class="muted">${w("senders.inactive")}</span>`}</td>
      <td><form method="post" action="/console/senders/${s
        .id}/test" class="inline">${csrfField(csrf)}
    <input type="password" name="pin" placeholder="${secretWord(
      ref?.type,
    )}" aria-label="${secretWord(
      ref?.type,
    )}" autocomplete="off" maxlength="64" size="8">
    <button class="test-sender">${w("senders.test")}</button></form>
    ${s.active && senders.filter((x) => x.active).length === 1 ? "" : html`
      <form method="post" action="/console/senders/${s.id}/activate"
        class="inline">${csrfField(csrf)}<button class="activate-sender">${w(
          "senders.make_active",
        )}</button></form>
    `}
    ${(s.keystore as { type?: unknown } | undefined)?.type === "csc"
      ? html`
        <form method="post" action="/console/senders/${s.id}/sign-in-again"
          class="inline">${csrfField(csrf)}<button class="sign-in-again">${w(
            "senders.cloud_sign_in_again",
          )}</button></form>
      `
      : ""}
    <form method="post" action="/console/senders/${s
      .id}/remove" class="inline">${csrfField(csrf)}
    <button class="danger remove-sender">${w("senders.remove")}</button></form></td>
    </tr>
  `;
}
