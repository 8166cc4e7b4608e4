/**
 * The console's status page (`GET /`, docs/console.md): version and whether a newer one is known,
 * port, data folder, start at login (a toggle that really registers or removes the login
 * entry: `POST /console/autostart`), the modes integrators used, whether the token service
 * and the portal answer, and the integrators (page origins) that called in the last 30 days.
 * @module
 */
import { errorMessage } from "../../error_message.ts";
import { Hono } from "hono";
import { html } from "hono/html";
import valid from "semver/functions/valid.js";
import gt from "semver/functions/gt.js";
import { expiryBanner, senderCertificates } from "./certificate_view.ts";
import type { AutostartStatus } from "../host/mod.ts";
import type { CallerBook } from "../http/mod.ts";
import type { ConsoleContext } from "./deps.ts";
import { both, csrfField, type Markup, tableOr, w, when } from "./layout.ts";
import {
  type ConsoleC,
  type ConsoleEnv,
  doneAndGo,
  errorFlash,
  formOf,
  sendPage,
} from "./respond.ts";
import { UserError } from "../../user_error.ts";

/** What a probe of a server found ({@link reachable}). */
type Probe = { ok: boolean; detail: string };

/** An integrator (page origin) that called the agent, as the caller book lists it. */
type CallerSummary = ReturnType<CallerBook["list"]>[number];

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
    return { ok: false, detail: errorMessage(e) };
  }
}

const yesNo = (ok: boolean, yes: string, no: string) =>
  ok ? html`<span class="ok">${yes}</span>` : html`<span class="bad">${no}</span>`;

/** Whether the server answered ({@link reachable}), in words. */
const answered = (probe: { ok: boolean; detail: string }) =>
  yesNo(probe.ok, w("status.reachable"), w("status.unreachable"));

/** The address and what it answered, for the technical details. */
const probed = (probe: { ok: boolean; detail: string } | null, url: string | null | undefined) =>
  url ? html`<code>${url}</code> <span class="muted small">${probe?.detail ?? ""}</span>` : "—";

/** A mode in words. */
const modeWords = (m: string) => m === "test" ? w("status.test") : w("status.live");

/** What the status card shows, probed for this request. */
interface StatusFacts {
  readonly newer: boolean;
  readonly latest: string | null;
  readonly auto: AutostartStatus | null;
  readonly modes: readonly string[];
  readonly token: Probe | null;
  readonly live: Probe | null;
}

/**
 * The status card: version (and a newer one), start at login with its switch, the kinds of calls
 * made, the token service and the NRA portal in words; port, data folder and addresses under
 * "technical details".
 */
function statusCard(ctx: ConsoleContext, s: StatusFacts, csrf: string): Markup {
  const cd = ctx.console;
  const { newer, latest, auto, modes, token, live } = s;
  return html`
    <div class="card">
      <table id="status">
        <tr>
          <th>${w("status.version")}</th>
          <td id="version">${ctx.version} ${newer
            ? html`<span class="warn" id="update">${
              w("status.newer", { version: latest ?? "" })
            }</span>`
            : html`<span class="muted">${
              latest ? w("status.the_latest") : w("status.no_newer_one_known")
            }</span>`}</td>
        </tr>
        <tr>
          <th>${w("status.start_at_login")}</th>
          <td id="autostart">${auto
            ? html`${
              yesNo(auto.installed, w("status.on"), w("status.off"))
            } <span class="muted small">${auto.location}</span>
<form class="inline" method="post" action="/console/autostart">${csrfField(csrf)}
<input type="hidden" name="on" value="${auto.installed ? "0" : "1"}">
<button id="autostart-toggle">${
              auto.installed ? w("status.turn_off") : w("status.turn_on")
            }</button></form>`
            : w("status.cannot_be_managed_here")}</td>
        </tr>
        <tr>
          <th>${w("status.modes")}</th>
          <td id="modes">${modes.length
            ? modes.map(modeWords).join(", ")
            : w("status.no_calls_yet")}</td>
        </tr>
        <tr>
          <th>${w("status.token_service")}</th>
          <td id="token-service">${token ? answered(token) : "—"}</td>
        </tr>
        <tr>
          <th>${w("status.nra_portal")}</th>
          <td id="portal">${live ? answered(live) : w("status.the_test_portal_is")}</td>
        </tr>
      </table>
      <details id="technical" class="small">
        <summary>${w("status.technical_details")}</summary>
        <table>
          <tr>
            <th>${w("status.port")}</th>
            <td id="port">${ctx.port()}</td>
          </tr>
          <tr>
            <th>${w("status.data_folder")}</th>
            <td><code id="data-dir">${cd?.dataDir ?? "—"}</code></td>
          </tr>
          <tr>
            <th>${w("status.token_service")}</th>
            <td>${probed(token, cd?.tokenServiceUrl)}</td>
          </tr>
          <tr>
            <th>${w("status.nra_portal")}</th>
            <td>${probed(live, cd?.livePortalUrl)}</td>
          </tr>
        </table>
      </details>
    </div>
  `;
}

/** The integrators that called the agent lately: name, page origin, modes, last call, calls. */
function callersTable(callers: readonly CallerSummary[]): Markup {
  return html`
    <h2>${w("status.integrators_in_the_last")}</h2>
    ${tableOr(
      "integrators",
      [
        "status.integrator",
        "status.page_origin",
        "status.mode",
        "status.last_call",
        "status.calls",
      ],
      callers.map((x) =>
        html`
          <tr>
            <td>${x.integratorName}</td>
            <td><code>${x.origin === "local" ? "—" : x.origin}</code></td>
            <td>${x.modes.map(modeWords).join(", ")}</td>
            <td class="nowrap">${when(x.lastAt)}</td>
            <td>${x.calls}</td>
          </tr>
        `
      ),
      w("status.nobody_called_the_agent"),
    )}
  `;
}

/** `GET /`: the status page. */
async function statusPage(ctx: ConsoleContext, c: ConsoleC): Promise<Response> {
  const cd = ctx.console;
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
    ${statusCard(ctx, { newer, latest, auto, modes, token, live }, csrf)}
    ${callersTable(callers)}
    <form method="post" action="/console/sign-out" class="small inline">${csrfField(csrf)}
    <button id="sign-out">${w("status.sign_out")}</button></form>
    <form method="get" action="/console/stop" class="small inline">
    <button id="stop-agent">${w("stop.stop_the_agent")}</button></form>
  `;
  return sendPage(c, "status", both("status.status"), body);
}

/** `POST /console/autostart`: turn start at login on (`on=1`) or off. */
async function setAutostart(ctx: ConsoleContext, c: ConsoleC): Promise<Response> {
  const cd = ctx.console;
  const what = both("status.start_at_login");
  const on = (await formOf(c)).on === "1";
  try {
    if (!cd?.autostart) throw new UserError("not available on this machine");
    const st = await cd.autostart.set(on);
    ctx.log("info", "console autostart", { on, installed: st.installed });
    return doneAndGo(c, "/", {
      kind: "ok",
      ...both(st.installed ? "status.autostart_on" : "status.autostart_off"),
    });
  } catch (e) {
    return doneAndGo(c, "/", errorFlash(e, what));
  }
}

/**
 * The status page's routes.
 * @param ctx the console's context
 * @returns `GET /` and `POST /console/autostart`
 */
export function statusRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  r.get("/", (c) => statusPage(ctx, c));
  r.post("/console/autostart", (c) => setAutostart(ctx, c));
  return r;
}
