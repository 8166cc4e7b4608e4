/**
 * A person's sessions, to see and to end (docs/token-service.md § Taking access back), for the
 * profile and the desk alike: every session of the signed-in person with the device it was
 * opened on, when it began and when it was last seen (written at most once a minute), this
 * browser's marked; ending one deletes it from the store, so it stops at once on every
 * instance (each request reads its session from the store: sessions.ts; nothing caches it).
 * Sessions are named on the page by the first 16 hex digits of their id's SHA-256, never by
 * the id itself.
 * @module
 */
import type { Hono } from "hono";
import { html } from "hono/html";
import { AppError, bi } from "../../contract/mod.ts";
import { t, tableOr } from "../../web_page.ts";
import { formOf, signedInOf, type WebC, type WebEnv } from "./guard.ts";
import { lead, postForm } from "./layout.ts";
import { auditCredential, type CredentialDeps } from "./passkey_list.ts";

const when = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");
const handle = (idHash: string) => idHash.slice(0, 16);

/**
 * Add `GET {base}/sessions` and `POST {base}/sessions/end` (form `session`: the handle).
 * @param r the router (signed in)
 * @param d store, clock, sessions, app
 */
export function sessionRoutes(r: Hono<WebEnv>, d: CredentialDeps): void {
  r.get("/sessions", (c) => sessionsPage(d, c));
  r.post("/sessions/end", (c) => endHandler(d, c));
}

async function sessionsPage(d: CredentialDeps, c: WebC): Promise<Response> {
  const me = signedInOf(c);
  const list = await d.store.listSessions(me.user.id);
  return d.app.page(
    c,
    "sessions",
    bi("Сесии", "Sessions"),
    html`${
      lead(t(
        "Всяко влизане е сесия. Прекратете сесия, която не познавате: тя спира веднага.",
        "Every sign-in is a session. End one you do not recognise: it stops at once.",
      ))
    }
    ${
      tableOr(
        "sessions",
        [["Устройство", "Device"], ["Начало (UTC)", "Started (UTC)"], [
          "Последно видяна (UTC)",
          "Last seen (UTC)",
        ], null],
        list.map((s) => {
          const mine = s.idHash === me.session.idHash;
          return html`
            <tr data-session="${handle(s.idHash)}" ${mine ? html`data-current="1"` : ""}>
              <td>${s.device || "—"}${mine
                ? html`
                  <strong>(${t("тази", "this one")})</strong>
                `
                : ""}</td>
              <td>${when(s.createdAt)}</td>
              <td>${when(s.lastSeen)}</td>
              <td>
                ${postForm(
                  c,
                  `${d.app.base}/sessions/end`,
                  html`
                    <input type="hidden" name="session" value="${handle(s.idHash)}">
                    <button class="danger session-end">${t("Прекрати", "End")}</button>
                  `,
                )}
              </td>
            </tr>
          `;
        }),
        t("Няма.", "None."),
      )
    }`,
  );
}

/**
 * POST /sessions/end: end one of the person's sessions (this one too: then to the sign-in).
 * @returns 303 to the sessions page, or to the application's start after ending this one
 * @throws AppError NOT_FOUND when no session of the person has that handle
 */
async function endHandler(d: CredentialDeps, c: WebC): Promise<Response> {
  const me = signedInOf(c);
  const h = (await formOf(c)).session ?? "";
  const target = /^[0-9a-f]{16}$/.test(h)
    ? (await d.store.listSessions(me.user.id)).find((s) => handle(s.idHash) === h)
    : undefined;
  if (!target || !(await d.store.endSession(me.user.id, target.idHash))) {
    throw new AppError("NOT_FOUND", "No such session of yours");
  }
  await auditCredential(d, c, me.user, "session.end", h);
  if (target.idHash === me.session.idHash) {
    await d.auth.signOut(c);
    return c.redirect(d.app.base, 303);
  }
  return c.redirect(`${d.app.base}/sessions`, 303);
}
