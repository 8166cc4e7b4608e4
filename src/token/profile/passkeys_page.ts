/**
 * The profile's passkeys page (docs/token-service.md § The profile): the signed-in person's
 * passkeys (created, last used) and the button that registers one more (web/passkeys.ts); each
 * can be removed (web/passkey_list.ts).
 * @module
 */
import type { Hono } from "hono";
import { html } from "hono/html";
import { t } from "../../web_page.ts";
import { bi } from "../../contract/mod.ts";
import { passkeyTable, signedInOf, type WebEnv } from "../web/mod.ts";
import type { ProfileContext } from "./deps.ts";

/**
 * The passkeys page.
 * @param r the profile's router
 * @param ctx store, sessions
 */
export function passkeysPage(r: Hono<WebEnv>, ctx: ProfileContext): void {
  r.get("/passkeys", async (c) => {
    const s = signedInOf(c);
    const list = await ctx.store.listPasskeys(s.user.id);
    return ctx.app.page(
      c,
      "passkeys",
      bi("Passkeys за вход", "Passkeys to sign in"),
      html`
        <div class="card">
          <p>${t(
            "Passkey е ключ за вход в телефона, компютъра или USB ключа ви. Писмо с връзка остава за първия вход и когато загубите passkey.",
            "A passkey is a sign-in key in your phone, computer or security key. A mailed link remains for the first sign-in and when a passkey is lost.",
          )}</p>
          <button type="button" class="primary" id="passkey-register" data-base="${ctx.app.base}"
            data-csrf="${s.session.csrf}">${t("Създай passkey", "Create a passkey")}</button>
          <p id="passkey-status" role="status"></p>
        </div>
        ${passkeyTable(c, ctx.app, list)}
      `,
    );
  });
}
