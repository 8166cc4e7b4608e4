/**
 * The console's status page (`GET /`, docs/console.md): version and whether a newer one is known,
 * port, data folder, start at login (a toggle that really registers or removes the login
 * entry: `POST /console/autostart`), the modes integrators used, whether the token service
 * and the portal answer, and the integrators (page origins) that called in the last 30 days.
 * @module
 */
import { Hono } from "hono";
import { html } from "hono/html";
import valid from "semver/functions/valid.js";
import gt from "semver/functions/gt.js";
import { expiryBanner, senderCertificates } from "./certificate_view.ts";
import type { ConsoleContext } from "./deps.ts";
import { csrfField, type Markup, t, tableOr } from "./layout.ts";
import { type ConsoleEnv, doneAndGo, errorFlash, formOf, sendPage } from "./respond.ts";

/** Whether a URL answers at all within 3 s (any HTTP status counts: the server is there). */
export async function reachable(
  url: string,
  fetchFn: typeof fetch = fetch,
): Promise<{ ok: boolean; detail: string }> {
  try {
    const r = await fetchFn(url, { signal: AbortSignal.timeout(3_000) });
    await r.body?.cancel();
    return { ok: true, detail: `HTTP ${r.status}` };
  } catch (e) {
    return { ok: false, detail: e instanceof Error ? e.message : String(e) };
  }
}

const yesNo = (ok: boolean, yes: Markup, no: Markup) =>
  ok ? html`<span class="ok">${yes}</span>` : html`<span class="bad">${no}</span>`;

/** Whether the server at `url` answered ({@link reachable}), with the address and the detail. */
const answered = (probe: { ok: boolean; detail: string }, url: string) =>
  html`${yesNo(probe.ok, t("отговаря", "reachable"), t("не отговаря", "unreachable"))}
<span class="muted small"><code>${url}</code> ${probe.detail}</span>`;

/**
 * The status page's routes.
 * @param ctx the console's context
 * @returns `GET /` and `POST /console/autostart`
 */
export function statusRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  const cd = ctx.console;

  r.get("/", async (c) => {
    const f = cd?.fetch ?? fetch;
    const senders = ctx.senders.current();
    const [token, live, auto, certs] = await Promise.all([
      cd ? reachable(new URL("/health", cd.tokenServiceUrl).href, f) : null,
      cd?.livePortalUrl ? reachable(cd.livePortalUrl, f) : null,
      cd?.autostart?.status().catch(() => null) ?? null,
      // Only the certificates kept beside agent.json: the status never opens a token.
      senderCertificates(senders, ctx.clock.now(), false),
    ]);
    const latest = ctx.latestVersion();
    const newer = latest !== null && valid(latest) !== null && gt(latest, ctx.version);
    const callers = ctx.callers?.list() ?? [];
    const modes = [...new Set(callers.flatMap((x) => x.modes))].sort();
    const csrf = c.get("session").csrf;
    const body = html`
      ${expiryBanner(senders, certs)}
      <div class="card">
        <table id="status">
          <tr>
            <th>${t("Версия", "Version")}</th>
            <td id="version">${ctx.version} ${newer
              ? html`<span class="warn" id="update">${
                t(`има по-нова: ${latest}`, `a newer one is out: ${latest}`)
              }</span>`
              : html`<span class="muted">${
                latest
                  ? t("последната", "the latest")
                  : t("няма данни за по-нова", "no newer one known")
              }</span>`}</td>
          </tr>
          <tr>
            <th>${t("Порт", "Port")}</th>
            <td id="port">${ctx.port()}</td>
          </tr>
          <tr>
            <th>${t("Папка с данни", "Data folder")}</th>
            <td><code id="data-dir">${cd?.dataDir ?? "—"}</code></td>
          </tr>
          <tr>
            <th>${t("Стартиране при влизане", "Start at login")}</th>
            <td id="autostart">${auto
              ? html`${
                yesNo(auto.installed, t("включено", "on"), t("изключено", "off"))
              } <span class="muted small">${auto.location}</span>
<form class="inline" method="post" action="/console/autostart">${csrfField(csrf)}
<input type="hidden" name="on" value="${auto.installed ? "0" : "1"}">
<button id="autostart-toggle">${
                auto.installed ? t("Изключи", "Turn off") : t("Включи", "Turn on")
              }</button></form>`
              : t("не може да се управлява тук", "cannot be managed here")}</td>
          </tr>
          <tr>
            <th>${t("Режими", "Modes")}</th>
            <td id="modes">${modes.length
              ? modes.map((m) => m === "test" ? t("тестов", "test") : t("реален", "live"))
              : t("още няма заявки", "no calls yet")}</td>
          </tr>
          <tr>
            <th>${t("Услуга за токени", "Token service")}</th>
            <td id="token-service">${token ? answered(token, cd!.tokenServiceUrl) : "—"}</td>
          </tr>
          <tr>
            <th>${t("Портал на НАП", "NRA portal")}</th>
            <td id="portal">${live ? answered(live, cd!.livePortalUrl!) : t(
              "тестовият портал е вграден; реален портал не е настроен",
              "the test portal is built in; no live portal is configured",
            )}</td>
          </tr>
        </table>
      </div>
      <h2>${t("Интегратори през последните 30 дни", "Integrators in the last 30 days")}</h2>
      ${tableOr(
        "integrators",
        [
          ["Интегратор", "Integrator"],
          ["Страница", "Page origin"],
          ["Режим", "Mode"],
          ["Последно", "Last call"],
          ["Заявки", "Calls"],
        ],
        callers.map((x) =>
          html`
            <tr>
              <td>${x.integratorName}</td>
              <td><code>${x.origin === "local" ? "—" : x.origin}</code></td>
              <td>${x.modes.join(", ")}</td>
              <td>${x.lastAt.slice(0, 16).replace("T", " ")} UTC</td>
              <td>${x.calls}</td>
            </tr>
          `
        ),
        t(
          "Никой не е викал агента през последните 30 дни.",
          "Nobody called the agent in the last 30 days.",
        ),
      )}
      <form method="post" action="/console/sign-out" class="small">${csrfField(csrf)}
      <button id="sign-out">${t("Изход", "Sign out")}</button></form>
    `;
    return sendPage(c, "status", { bg: "Състояние", en: "Status" }, body);
  });

  r.post("/console/autostart", async (c) => {
    const what = { bg: "Стартиране при влизане", en: "Start at login" };
    const on = (await formOf(c)).on === "1";
    try {
      if (!cd?.autostart) throw new Error("not available on this machine");
      const st = await cd.autostart.set(on);
      ctx.log("info", "console autostart", { on, installed: st.installed });
      return doneAndGo(c, "/", {
        kind: "ok",
        bg: `${what.bg}: ${st.installed ? "включено" : "изключено"}`,
        en: `${what.en}: ${st.installed ? "on" : "off"} (${st.location})`,
      });
    } catch (e) {
      return doneAndGo(c, "/", errorFlash(e, what));
    }
  });
  return r;
}
