/**
 * A signing certificate as the accountant sees it on the console: holder, the EGN/PNOBG masked
 * as the log masks it, issuer, valid from/to, qualified or not, and the checks in words
 * (senders/check_words.ts); the mark of a non-qualified sender; the warnings 30 and 7 days
 * before a certificate expires (Status and Senders).
 * @module
 */
import { html } from "hono/html";
import {
  certificateWithoutPin,
  checkWords,
  describeCertificate,
  type FoundCertificate,
  parseKeystoreRef,
  type SenderConfig,
} from "../senders/mod.ts";
import { type Markup, t } from "./layout.ts";

/** Days before the end of validity when the console warns, then warns louder. */
export const EXPIRY_WARN_DAYS = 30;
/** See {@link EXPIRY_WARN_DAYS}. */
export const EXPIRY_URGENT_DAYS = 7;

const SOURCE_WORDS: Record<string, { bg: string; en: string }> = {
  pkcs11: { bg: "карта / токен", en: "card / token" },
  pkcs12: { bg: "файл с подпис (.p12, .pfx)", en: "signature file (.p12, .pfx)" },
  windows: { bg: "хранилище на Windows", en: "Windows certificate store" },
  macos: { bg: "Keychain на macOS", en: "macOS Keychain" },
};

/** Where a certificate is kept, in words. */
export const sourceWords = (type: string): Markup =>
  SOURCE_WORDS[type] ? t(SOURCE_WORDS[type].bg, SOURCE_WORDS[type].en) : html`—`;

const day = (iso: string) => iso.slice(0, 10);

/** The mark of a sender whose certificate is not qualified (shown wherever the sender is). */
export const notQualifiedMark = (): Markup =>
  html`<span class="warn not-qualified">${t("не е КЕП", "not a QES")}</span>`;

/** "qualified" or the not-qualified mark. */
export const qualifiedWords = (c: Pick<FoundCertificate, "qualified">): Markup =>
  c.qualified
    ? html`<span class="ok qualified">${t("квалифициран (КЕП)", "qualified (QES)")}</span>`
    : notQualifiedMark();

/**
 * The expiry note of a certificate: expired; fewer than 7 days; fewer than 30 days; else none.
 * @param c the certificate
 * @returns the note, or "" when more than 30 days are left
 */
export function expiryNote(c: Pick<FoundCertificate, "expired" | "expiresInDays">): Markup {
  if (c.expired) {
    return html`<span class="bad expiry" data-expiry="expired">${t("изтекъл", "expired")}</span>`;
  }
  if (c.expiresInDays >= EXPIRY_WARN_DAYS) return html``;
  const urgent = c.expiresInDays < EXPIRY_URGENT_DAYS;
  return html`<span class="${urgent ? "bad" : "warn"} expiry" data-expiry="${
    urgent ? "7" : "30"
  }">${
    t(
      `изтича след ${c.expiresInDays} ${c.expiresInDays === 1 ? "ден" : "дни"}`,
      `expires in ${c.expiresInDays} day${c.expiresInDays === 1 ? "" : "s"}`,
    )
  }</span>`;
}

/**
 * One certificate's facts as table cells: holder with the masked id, issuer, validity, kind,
 * where.
 */
export function certCells(c: FoundCertificate): Markup {
  return html`<td><strong class="holder">${c.holderName}</strong>${
    c.personalIdMasked ? html`<br><span class="mono small">${c.personalIdMasked}</span>` : ""
  }</td>
<td class="small">${c.issuer}</td>
<td class="small">${day(c.notBefore)} – ${day(c.notAfter)} ${expiryNote(c)}</td>
<td>${qualifiedWords(c)}</td>
<td class="small">${sourceWords(c.source)}<br><span class="muted">${c.sourceLabel}</span></td>`;
}

/**
 * The whole certificate, as a card: every fact and every check in words (failed ones first).
 * @param c the certificate
 * @param id the element's id
 */
export function certificateCard(c: FoundCertificate, id = "cert-view"): Markup {
  const checks = [...c.checks].sort((a, b) => Number(a.ok) - Number(b.ok));
  return html`
    <div class="card cert-view" id="${id}" data-qualified="${String(c.qualified)}">
      <dl class="cert">
        <dt>${t("Титуляр", "Holder")}</dt>
        <dd class="holder"><strong>${c.holderName}</strong></dd>
        <dt>${t("ЕГН / ЛНЧ", "Personal id")}</dt>
        <dd class="mono personal-id">${c.personalIdMasked ?? "—"}</dd>
        <dt>${t("Издател", "Issuer")}</dt>
        <dd class="issuer">${c.issuer}</dd>
        <dt>${t("Валиден от", "Valid from")}</dt>
        <dd class="valid-from">${day(c.notBefore)}</dd>
        <dt>${t("Валиден до", "Valid to")}</dt>
        <dd class="valid-to">${day(c.notAfter)} ${expiryNote(c)}</dd>
        <dt>${t("Вид", "Kind")}</dt>
        <dd>${qualifiedWords(c)}</dd>
        <dt>${t("Проверки", "Checks")}</dt>
        <dd>
          <ul class="checks">${checks.map((x) => {
            const w = checkWords(x);
            return html`<li class="${x.ok ? "ok" : "bad"}" data-check="${x.check}" data-ok="${
              String(x.ok)
            }">${x.ok ? "✓" : "✗"} ${t(w.bg, w.en)}</li>`;
          })}</ul>
        </dd>
      </dl>
    </div>
  `;
}

/**
 * The senders' certificates as far as they can be read without a PIN: the certificate kept
 * beside agent.json (`certificateFile`), else — only when `openStores` — the key store itself.
 * @param senders the senders
 * @param now epoch ms
 * @param openStores whether to open key stores (PKCS#11 modules) for senders without a kept file
 * @returns per sender id, the certificate or null (unknown)
 */
export async function senderCertificates(
  senders: readonly SenderConfig[],
  now: number,
  openStores: boolean,
): Promise<Map<string, FoundCertificate | null>> {
  const out = new Map<string, FoundCertificate | null>();
  for (const s of senders) {
    let found: FoundCertificate | null = null;
    try {
      const ref = parseKeystoreRef(s.keystore);
      if (ref && (ref.certificateFile || openStores)) {
        const cert = await certificateWithoutPin(ref);
        if (cert) found = await describeCertificate(cert, ref, s.displayName, now);
      }
    } catch {
      found = null;
    }
    out.set(s.id, found);
  }
  return out;
}

/**
 * The banner of senders whose certificate ends within 30 days (or has ended), or "".
 * @param senders the senders
 * @param certs their certificates ({@link senderCertificates})
 */
export function expiryBanner(
  senders: readonly SenderConfig[],
  certs: ReadonlyMap<string, FoundCertificate | null>,
): Markup {
  const soon = senders.flatMap((s) => {
    const c = certs.get(s.id);
    return c && (c.expired || c.expiresInDays < EXPIRY_WARN_DAYS) ? [{ s, c }] : [];
  });
  if (soon.length === 0) return html``;
  const urgent = soon.some(({ c }) => c.expired || c.expiresInDays < EXPIRY_URGENT_DAYS);
  return html`<div class="banner ${urgent ? "urgent" : ""}" id="expiry-banner" role="status">
<strong>${t("Сертификат изтича скоро", "A certificate expires soon")}</strong><ul>${
    soon.map(({ s, c }) =>
      html`<li data-sender="${s.id}">${s.displayName}: ${expiryNote(c)} (${day(c.notAfter)})</li>`
    )
  }</ul>${
    t(
      "Подновете го при доставчика на КЕП навреме и добавете новия сертификат в „Подписи“.",
      'Renew it with your QES provider in time and add the new certificate under "Senders".',
    )
  }</div>`;
}
