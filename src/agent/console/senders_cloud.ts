/**
 * Cloud senders on the console's Senders page (docs/signing.md § 11): a provider from
 * `csc_providers.json` or a CSC API v2 service URL and client id; "Sign in at the provider" sends
 * the browser to the provider's sign-in page (OAuth 2.0 + PKCE, scope `service`); the provider
 * sends it back to `GET /remote/sign-in/callback` (outside `/console`: a navigation coming from
 * the provider is cross-site, and the console refuses those; the `state` picks the sign-in, once),
 * which links back into the console, where the credentials are listed with their certificate
 * facts and one is added as a sender. A cloud sender whose sign-in expired or was revoked gets
 * "Sign in again" in its row: the same steps, the new refresh token sealed in its file.
 *
 * Routes: `POST /console/senders/cloud/sign-in`, `GET /remote/sign-in/callback`,
 * `GET /console/senders/cloud/:id`, `POST /console/senders/cloud/:id/add`,
 * `POST /console/senders/:id/sign-in-again`.
 * @module
 */
import { errorMessage } from "../../error_message.ts";
import { Hono } from "hono";
import { html } from "hono/html";
import { AppError } from "../../contract/mod.ts";
import {
  addSender,
  beginCscSignIn,
  type CscCredential,
  type CscSignIn,
  describeCertificate,
  newTokenFile,
  readCscProviders,
  senderKeyStore,
} from "../senders/mod.ts";
import { certCells } from "./certificate_view.ts";
import type { ConsoleContext } from "./deps.ts";
import { both, csrfField, type Flash, type Markup, tableOr, w } from "./layout.ts";
import { type ConsoleC, type ConsoleEnv, doneAndGo, formOf, sendPage } from "./respond.ts";

const signing = () => import("../../signing/mod.ts");

/** One sign-in under way or ended (memory only; forgotten after 15 minutes). */
interface CloudSignIn {
  readonly id: string;
  readonly state: string;
  readonly signIn: CscSignIn;
  readonly ref: {
    serviceUrl: string;
    clientId: string;
    tokenFile: string;
    caFile?: string | undefined;
  };
  /** The sender signing in again, or null for a new one. */
  readonly senderId: string | null;
  credentials: CscCredential[] | null;
  error: string | null;
}

/** What the page and its routes need. */
export interface CloudKit {
  readonly ctx: ConsoleContext;
  readonly dataDir: () => string;
  readonly failed: (e: unknown, what: { bg: string; en: string }) => Flash;
  readonly page: (c: ConsoleC, picked?: Markup | null, flash?: Flash | null) => Promise<Response>;
}

/**
 * The cloud section of the Senders page.
 * @param dataDir the data folder (its csc_providers.json)
 * @param csrf the session's CSRF token
 * @returns markup
 */
export async function cloudSection(dataDir: string | null, csrf: string): Promise<Markup> {
  const providers = dataDir ? await readCscProviders(dataDir).catch(() => []) : [];
  return html`
    <h2 id="cloud">${w("senders.cloud_title")}</h2>
    <p class="small">${w("senders.cloud_explain")}</p>
    <form method="post" action="/console/senders/cloud/sign-in" id="cloud-form">${csrfField(csrf)}
      ${providers.length
        ? html`<label>${w("senders.cloud_provider")} <select name="provider">
          <option value="">—</option>
          ${providers.map((p) => html`<option value="${p.name}">${p.name}</option>`)}
        </select></label><br>`
        : html`<p class="small muted">${w("senders.cloud_no_providers")}</p>`}
      <label>${w("senders.cloud_service_url")} <input name="serviceUrl" type="url" size="40"
        placeholder="https://…/csc/v2"></label>
      <label>${w("senders.cloud_client_id")} <input name="clientId" size="16"></label>
      <button class="primary" id="cloud-sign-in">${w("senders.cloud_sign_in")}</button>
    </form>
  `;
}

/** The form's service: a listed provider, or the URL and client id typed. */
async function serviceOf(h: CloudKit, f: Record<string, string>) {
  if (f.provider) {
    const p = (await readCscProviders(h.dataDir())).find((x) => x.name === f.provider);
    if (p) {
      return {
        serviceUrl: p.serviceUrl,
        clientId: p.clientId,
        ...(p.caFile ? { caFile: p.caFile } : {}),
      };
    }
  }
  if (!/^https:\/\/\S+$/.test(f.serviceUrl ?? "") || !f.clientId) {
    throw new AppError(
      "CONSOLE_INPUT_INVALID",
      "Choose a provider, or type its https:// address and client id",
      {
        field: "serviceUrl",
        bg: "Изберете доставчик или въведете адреса му (https://) и идентификатора на клиента",
      },
    );
  }
  // non-null: the https:// test above refused a missing serviceUrl
  return { serviceUrl: f.serviceUrl!, clientId: f.clientId };
}

/** The page the provider sends the browser back to (no session: a link into the console). */
function callbackPage(s: CloudSignIn | null): string {
  const body = !s ? html`<h1>${w("senders.cloud_unknown")}</h1>` : s.error !== null
    ? html`
      <h1 id="cloud-failed">${w("senders.cloud_failed")}</h1>
      <p>${s.error}</p>
    `
    : html`<h1 id="cloud-signed-in">${w("senders.cloud_signed_in")}</h1>`;
  const next = s && s.error === null && s.senderId === null
    ? `/console/senders/cloud/${s.id}`
    : "/console/senders";
  return String(html`
    <!doctype html>
    <html lang="bg">
      <head>
        <meta charset="utf-8">
        <title>${w("senders.cloud_title")}</title>
      </head>
      <body>${body}
        <p><a id="cloud-continue" href="${next}">${w("senders.cloud_continue")}</a></p></body>
    </html>
  `);
}

/** The sign-ins under way and how a new one starts. */
interface Cloud {
  readonly h: CloudKit;
  readonly pending: Map<string, CloudSignIn>;
}

/** Begin a sign-in and answer the page that leads to the provider. */
async function startSignIn(
  k: Cloud,
  c: ConsoleC,
  ref: CloudSignIn["ref"],
  senderId: string | null,
): Promise<Response> {
  const callback = `http://127.0.0.1:${k.h.ctx.port()}/remote/sign-in/callback`;
  const signIn = await beginCscSignIn(ref, callback);
  const id = crypto.randomUUID();
  const state = new URL(signIn.url).searchParams.get("state") ?? "";
  k.pending.set(id, { id, state, signIn, ref, senderId, credentials: null, error: null });
  setTimeout(() => k.pending.delete(id), 15 * 60_000);
  k.h.ctx.log("info", "console cloud sign-in started", { service: ref.serviceUrl });
  // A link, not a redirect: the console's pages may send forms to the agent only
  // (`form-action 'self'`), and a redirect after a form counts as the form's target.
  const body = html`
    <h2>${w("senders.cloud_title")}</h2>
    <p>${signIn.provider}</p>
    <p><a id="cloud-go" class="button primary" href="${signIn.url}">${w("senders.cloud_go")}</a></p>
  `;
  return sendPage(c, "senders", both("senders.cloud_title"), body);
}

/** `POST /console/senders/cloud/sign-in`: a new cloud sender's sign-in. */
async function signInAction(k: Cloud, c: ConsoleC): Promise<Response> {
  try {
    const service = await serviceOf(k.h, await formOf(c));
    return await startSignIn(k, c, { ...service, tokenFile: newTokenFile(k.h.dataDir()) }, null);
  } catch (e) {
    return k.h.page(c, null, k.h.failed(e, both("senders.cloud_title")));
  }
}

/** `POST /console/senders/:id/sign-in-again`: a cloud sender's new sign-in, same token file. */
async function signInAgainAction(k: Cloud, c: ConsoleC): Promise<Response> {
  try {
    const { sender, ref } = await senderKeyStore(k.h.dataDir(), c.req.param("id") ?? "");
    if (ref.type !== "csc") throw new AppError("CONSOLE_INPUT_INVALID", "Not a cloud sender");
    return await startSignIn(k, c, ref, sender.id);
  } catch (e) {
    return k.h.page(c, null, k.h.failed(e, both("senders.cloud_title")));
  }
}

/** `GET /remote/sign-in/callback`: the provider sent the browser back. */
async function callbackHandler(k: Cloud, c: ConsoleC): Promise<Response> {
  const q = new URL(c.req.url).searchParams;
  const s = [...k.pending.values()].find((x) => x.state === q.get("state") && !x.credentials);
  if (s) {
    try {
      s.credentials = await s.signIn.finish(q);
      k.h.ctx.log("info", "console cloud sign-in finished", { senderId: s.senderId });
    } catch (e) {
      s.error = errorMessage(e);
      k.h.ctx.log("warn", "console cloud sign-in failed", {});
    }
  }
  return c.html(callbackPage(s ?? null), s ? 200 : 404);
}

/** One credential's row: its certificate facts and the form that adds it. */
async function credentialRow(
  k: Cloud,
  s: CloudSignIn,
  cred: CscCredential,
  csrf: string,
): Promise<Markup> {
  const { toCertificateInfo } = await signing();
  const ref = { type: "csc" as const, ...s.ref, certId: cred.id, authMode: cred.authMode };
  const facts = await describeCertificate(
    // non-null: the CSC client refuses a credential without certificates (csc/client.ts)
    toCertificateInfo(cred.certificates[0]!, cred.id),
    { ...ref, pin: cred.pin },
    `${s.signIn.provider || "CSC"} (${new URL(s.ref.serviceUrl).host})`,
    k.h.ctx.clock.now(),
  );
  return html`
    <tr class="cloud-cred">${certCells(facts)}</tr>
    <tr>
      <td colspan="5">
        <form method="post" action="/console/senders/cloud/${s.id}/add">${csrfField(csrf)}
          <input type="hidden" name="credentialId" value="${cred.id}">
          <label>${w("senders.cloud_name")} <input name="displayName" required maxlength="200"
            value="${facts.holderName}"></label>
          <span class="small muted">${cred.authMode === "oauth2code"
            ? w("senders.cloud_mode_app")
            : cred.otp
            ? w("senders.cloud_mode_otp")
            : w("senders.cloud_mode_pin")}</span>
          <button class="primary add-cloud">${w("senders.add_as_sender")}</button></form>
      </td>
    </tr>
  `;
}

/** `GET /console/senders/cloud/:id`: the signed-in user's credentials, to choose one. */
async function credentialsPage(k: Cloud, c: ConsoleC): Promise<Response> {
  const s = k.pending.get(c.req.param("id") ?? "");
  if (!s?.credentials) {
    return doneAndGo(c, "/console/senders", { kind: "error", ...both("senders.cloud_unknown") });
  }
  const csrf = c.get("session").csrf;
  const rows = await Promise.all(s.credentials.map((cred) => credentialRow(k, s, cred, csrf)));
  const body = html`<h2>${w("senders.cloud_choose")}</h2>${
    tableOr(
      "cloud-creds",
      ["senders.holder", "senders.issuer", "senders.valid", "senders.kind", "senders.where"],
      rows,
      w("senders.no_certificate_found_on"),
    )
  }`;
  return sendPage(c, "senders", both("senders.cloud_title"), body);
}

/** `POST /console/senders/cloud/:id/add`: the chosen credential becomes a sender. */
async function addCloudAction(k: Cloud, c: ConsoleC): Promise<Response> {
  const s = k.pending.get(c.req.param("id") ?? "");
  const f = await formOf(c);
  const cred = s?.credentials?.find((x) => x.id === f.credentialId);
  try {
    if (!s || !cred) {
      throw new AppError("CONSOLE_INPUT_INVALID", "This sign-in has ended; sign in again");
    }
    const added = await addSender(k.h.dataDir(), {
      displayName: f.displayName ?? "",
      ref: { type: "csc", ...s.ref, certId: cred.id, authMode: cred.authMode, pin: cred.pin },
    }, k.h.ctx.clock.now());
    k.pending.delete(s.id);
    await k.h.ctx.senders.reload();
    k.h.ctx.log("info", "console added sender", { senderId: added.sender.id });
    return doneAndGo(c, "/console/senders", {
      kind: "ok",
      ...both("senders.added", { name: added.sender.displayName }),
    });
  } catch (e) {
    return k.h.page(c, null, k.h.failed(e, both("senders.adding_a_sender")));
  }
}

/**
 * The cloud sender routes.
 * @param h the Senders page's kit
 * @returns the routes
 */
export function cloudRoutes(h: CloudKit): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  const k: Cloud = { h, pending: new Map() };
  r.post("/console/senders/cloud/sign-in", (c) => signInAction(k, c));
  r.post("/console/senders/:id/sign-in-again", (c) => signInAgainAction(k, c));
  r.get("/remote/sign-in/callback", (c) => callbackHandler(k, c));
  r.get("/console/senders/cloud/:id", (c) => credentialsPage(k, c));
  r.post("/console/senders/cloud/:id/add", (c) => addCloudAction(k, c));
  return r;
}
