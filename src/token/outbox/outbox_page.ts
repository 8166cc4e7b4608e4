/**
 * The demo outbox's page, `GET /demo/outbox` (docs/token-service.md § The demo outbox): every
 * mail the demo's token service sent, newest first — to whom, when, the subject, its links as
 * links and its text. No session: the demo serves on loopback for the person who started it,
 * and app.ts mounts this page only when the service's mailer is a {@link DemoOutbox}.
 * @module
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { t } from "../../web_page.ts";
import { bi } from "../../contract/mod.ts";
import {
  languageRoute,
  type WebApp,
  webApp,
  webAssetRoutes,
  type WebEnv,
  webLang,
} from "../web/mod.ts";
import type { DemoOutbox, OutboxMail } from "./demo_outbox.ts";

/** Where the outbox page is served. */
export const OUTBOX_PATH = "/demo/outbox";

/** The outbox as a web application of one page (its files under `/demo/outbox/assets/`). */
const OUTBOX_APP: WebApp = webApp(OUTBOX_PATH, bi("Демо: изпратена поща", "Demo: outbox"), []);

/** `2026-11-28 23:40:12 UTC` */
const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;

/** One mail as a card. */
const mailCard = (m: OutboxMail, i: number) =>
  html`<section class="card mail" id="mail-${i}" data-to="${m.to}">
    <p><strong>${m.subject}</strong></p>
    <p class="muted">${t("До", "To")}: <span class="mail-to">${m.to}</span> · ${when(m.at)}</p>
    ${m.links.map((l) => html`<p><a class="mail-link" href="${l}">${l}</a></p>`)}
    <details><summary>${t("Целият текст", "The whole text")}</summary><pre>${m.text}</pre></details>
  </section>`;

/**
 * The outbox page's routes (mounted at {@link OUTBOX_PATH} by app.ts, for a demo outbox only).
 * @param outbox the demo's outbox
 * @returns the sub-app: `GET /` the page, `GET /assets/:file` its style sheets and scripts
 */
export function outboxRoutes(outbox: DemoOutbox): Hono<WebEnv> {
  const r = new Hono<WebEnv>();
  // The profile's language (the same cookie: web/lang.ts), with its own switch.
  r.use("*", webLang());
  webAssetRoutes(r);
  languageRoute(r, OUTBOX_PATH);
  r.get("/", (c) =>
    OUTBOX_APP.page(
      c,
      "outbox",
      bi("Изпратена поща", "Outbox"),
      html`
        <p class="muted" id="outbox-note">${t(
          "Само в демото: писмата, които услугата би изпратила (връзки за вход, покани, известия), стоят тук. В реална инсталация те отиват по SMTP.",
          "Demo only: the mails the service would send (sign-in links, invitations, notices) are kept here. A real installation sends them by SMTP.",
        )}</p>
        <p><a href="/profile" id="to-profile">${t("Към профила", "To the profile")}</a></p>
        ${outbox.mails.length
          ? html`<div id="mails">${outbox.mails.map(mailCard)}</div>`
          : html`<p class="muted" id="mails">${
            t(
              "Още няма писма. Регистрирайте се в профила и презаредете страницата.",
              "No mail yet. Sign up on the profile and reload this page.",
            )
          }</p>`}
      `,
    ));
  return r;
}
