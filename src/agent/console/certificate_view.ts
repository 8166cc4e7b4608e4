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
  parseKeyStoreRef,
  type SenderConfig,
} from "../senders/mod.ts";
import { both, count, type Markup, say, w, when } from "./layout.ts";

/** Days before the end of validity when the console warns, then warns louder. */
export const EXPIRY_WARN_DAYS = 30;
/** See {@link EXPIRY_WARN_DAYS}. */
export const EXPIRY_URGENT_DAYS = 7;

const SOURCE_WORDS: Record<string, { bg: string; en: string }> = {
  pkcs11: both("cert.card_token"),
  pkcs12: both("cert.signature_file_p12_pfx"),
  windows: both("cert.windows_certificate_store"),
  macos: both("cert.macos_keychain"),
};

/**
 * Where a certificate is kept, in words.
 * @param type the key store's type (`pkcs11`, `pkcs12`, `windows`, `macos`, `csc`)
 * @param provider a cloud signature's provider (name and/or host), shown after "cloud QES at"
 */
export const sourceWords = (type: string, provider?: string): Markup =>
  type === "csc"
    ? html`${provider ? w("cert.cloud_qes_at", { where: provider }) : w("cert.cloud_qes")}`
    : SOURCE_WORDS[type]
    // non-null: SOURCE_WORDS[type] was tested on the line above
    ? html`${say(SOURCE_WORDS[type]!)}`
    : html`—`;

/** A certificate's time as the accountant reads it: local, with its offset. */
const day = (iso: string) => when(iso);

/** The mark of a sender whose certificate is not qualified (shown wherever the sender is). */
export const notQualifiedMark = (): Markup =>
  html`<span class="warn not-qualified">${w("cert.not_a_qes")}</span>`;

/** "qualified" or the not-qualified mark. */
export const qualifiedWords = (c: Pick<FoundCertificate, "qualified">): Markup =>
  c.qualified
    ? html`<span class="ok qualified">${w("cert.qualified_qes")}</span>`
    : notQualifiedMark();

/**
 * The expiry note of a certificate: expired; fewer than 7 days; fewer than 30 days; else none.
 * @param c the certificate
 * @returns the note, or "" when more than 30 days are left
 */
export function expiryNote(c: Pick<FoundCertificate, "expired" | "expiresInDays">): Markup {
  if (c.expired) {
    return html`<span class="bad expiry" data-expiry="expired">${w("cert.expired")}</span>`;
  }
  if (c.expiresInDays >= EXPIRY_WARN_DAYS) return html``;
  const urgent = c.expiresInDays < EXPIRY_URGENT_DAYS;
  return html`<span class="${urgent ? "bad" : "warn"} expiry" data-expiry="${
    urgent ? "7" : "30"
  }">${count("count.expires_in_days", c.expiresInDays)}</span>`;
}

/**
 * One certificate's facts as table cells: holder with the masked id, issuer, validity, kind,
 * where.
 */
export function certCells(c: FoundCertificate): Markup {
  return html`
    <td><strong class="holder">${c.holderName}</strong>${c.personalIdMasked
      ? html`<br><span class="mono small">${c.personalIdMasked}</span>`
      : ""}</td>
    <td class="small">${c.issuer}</td>
    <td class="small">${day(c.notBefore)} – ${day(c.notAfter)} ${expiryNote(c)}</td>
    <td>${qualifiedWords(c)}</td>
    <td
      class="small where">${c.source === "csc"
        ? sourceWords(c.source, c.sourceLabel)
        : html`${sourceWords(c.source)}<details class="muted"><summary>${
          w(
            "cert.where_exactly",
          )
        }</summary>${c.sourceLabel}</details>`}</td>
  `;
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
        <dt>${w("cert.holder")}</dt>
        <dd class="holder"><strong>${c.holderName}</strong></dd>
        <dt>${w("cert.personal_id")}</dt>
        <dd class="mono personal-id">${c.personalIdMasked ?? "—"}</dd>
        <dt>${w("cert.issuer")}</dt>
        <dd class="issuer">${c.issuer}</dd>
        <dt>${w("cert.valid_from")}</dt>
        <dd class="valid-from">${day(c.notBefore)}</dd>
        <dt>${w("cert.valid_to")}</dt>
        <dd class="valid-to">${day(c.notAfter)} ${expiryNote(c)}</dd>
        <dt>${w("cert.kind")}</dt>
        <dd>${qualifiedWords(c)}</dd>
        <dt>${w("cert.checks")}</dt>
        <dd>
          <ul class="checks">${checks.map((x) => {
            const cw = checkWords(x);
            return html`<li class="${x.ok ? "ok" : "bad"}" data-check="${x.check}" data-ok="${
              String(x.ok)
            }">${x.ok ? "✓" : "✗"} ${say(cw)}</li>`;
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
      const ref = parseKeyStoreRef(s.keystore);
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
<strong>${w("cert.a_certificate_expires_soon")}</strong><ul>${
    soon.map(({ s, c }) =>
      html`<li data-sender="${s.id}">${s.displayName}: ${expiryNote(c)} (${day(c.notAfter)})</li>`
    )
  }</ul>${w("cert.renew_it_with_your")}</div>`;
}
