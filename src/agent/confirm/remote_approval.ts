/**
 * The approval of a cloud signature at its provider (docs/signing.md § 11), for
 * credentials whose `authMode` is `oauth2code`: after the accountant confirmed the batch, the
 * agent opens its own page `GET /remote/:id` in the default browser. The page says where to
 * approve ("Одобрете подписа в приложението на доставчика"), how many signatures and, when the
 * provider limits the hashes of one approval, which part of how many; it links to the
 * provider's page (OAuth 2.0 authorization code + PKCE, scope `credential`, the batch's hashes)
 * and reloads itself every 2 s while it waits. The provider sends the browser back to
 * `GET /remote/callback` (the `state` picks the approval, once); the code is exchanged for the
 * credential token that signs exactly those hashes. A declined approval, or none within the time
 * limit (default 5 minutes), refuses the batch (SENDER_NOT_CHOSEN).
 *
 * An `explicit` credential that asks a one-time code gets the same page as a form instead
 * (`GET /remote/:id` asking the code, `POST /remote/:id/otp`): the PIN was typed on the
 * confirmation page, the code is asked for each authorization right after the provider sent it
 * (`credentials/sendOTP`, `online`) or from the holder's device (`offline`). The code goes to
 * `credentials/authorize` once and is neither kept nor logged.
 * @module
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { AppError } from "../../contract/mod.ts";
import type { Logger } from "../../log.ts";
import type { CscApprove, CscAskOtp, CscClient } from "../../signing/mod.ts";
import { type Markup, pageHeaders } from "../../web_page.ts";
import { type AgentEnv, errorResponse } from "../http/mod.ts";
import { count, w } from "../texts/mod.ts";
import { pageDocument } from "./page.ts";

const signing = () => import("../../signing/mod.ts");

/** What the approvals need. */
export interface RemoteApprovalDeps {
  /** The agent's HTTP port on 127.0.0.1 (the callback's address). */
  readonly port: () => number;
  readonly openBrowser: (url: string) => void;
  readonly log: Logger;
  /** How long one approval may take, ms (default 5 minutes). */
  readonly timeoutMs?: number;
}

type Status = "waiting" | "approved" | "declined" | "expired";

interface Approval {
  readonly id: string;
  /** `provider`: approved at the provider; `otp`: a one-time code typed on the page (`online`:
   * the provider sent it). */
  readonly kind: "provider" | "otp";
  readonly online?: boolean;
  readonly state: string;
  readonly verifier: string;
  readonly providerUrl: string;
  readonly signatures: number;
  readonly part: number;
  readonly parts: number;
  /** The client whose token endpoint takes the code (`provider` only). */
  readonly client?: CscClient;
  status: Status;
  readonly done: PromiseWithResolvers<string>;
}

/** The pending approvals of this agent and their pages. */
export class RemoteApprovals {
  readonly #deps: RemoteApprovalDeps;
  readonly #byId = new Map<string, Approval>();

  constructor(deps: RemoteApprovalDeps) {
    this.#deps = deps;
  }

  /**
   * The approval step of a cloud sender's key store: opens the page, waits for the callback.
   * @param client the sender's CSC client
   * @returns the step (its result is the credential token)
   * @throws (the step) AppError SENDER_NOT_CHOSEN (declined or timed out), and the token
   *   endpoint's codes
   */
  approveWith(client: CscClient): CscApprove {
    return async ({ credentialId, hashes, part, parts }) => {
      const { authorizeUrl, newPkceRequest } = await signing();
      const info = await client.info();
      const pkce = await newPkceRequest();
      return await this.#awaitOnPage(
        {
          kind: "provider",
          state: pkce.state,
          verifier: pkce.verifier,
          providerUrl: authorizeUrl(info.oauth2, client.clientId, this.#callback(), pkce, {
            scope: "credential",
            credentialId,
            hashes,
          }),
          signatures: hashes.length,
          part,
          parts,
          client,
        },
        "The signature was not approved at the provider in time",
        "remote approval page opened",
        { signatures: hashes.length },
      );
    };
  }

  /**
   * The person's steps of a cloud sender's key store on this agent's pages.
   * @param client the sender's CSC client
   * @returns the approval at the provider and the one-time code step
   */
  stepsFor(client: CscClient): { approve: CscApprove; askOtp: CscAskOtp } {
    return { approve: this.approveWith(client), askOtp: this.askOtp() };
  }

  /**
   * The one-time code step: opens the page asking the code, waits for it.
   * @returns the step (its result is the code typed, passed on once, never kept)
   * @throws (the step) AppError SENDER_NOT_CHOSEN (declined on the page or timed out)
   */
  askOtp(): CscAskOtp {
    return async ({ online, signatures, part, parts }) => {
      return await this.#awaitOnPage(
        {
          kind: "otp",
          online,
          state: crypto.randomUUID(),
          verifier: "",
          providerUrl: "",
          signatures,
          part,
          parts,
        },
        "The signature's one-time code was not typed in time",
        "one-time code page opened",
        { signatures, online },
      );
    };
  }

  /**
   * Keep a new approval (`approval` with a new id, waiting), open its page in the default
   * browser and wait for how it ends: the provider's signature activation data, or
   * SENDER_NOT_CHOSEN once the timeout (default 5 minutes) passes while it still waits. The page
   * stays readable for 10 minutes after (it shows how the approval ended).
   */
  async #awaitOnPage(
    approval: Omit<Approval, "id" | "status" | "done">,
    expired: string,
    opened: string,
    fields: Record<string, unknown>,
  ): Promise<string> {
    const id = crypto.randomUUID();
    const a: Approval = {
      ...approval,
      id,
      status: "waiting",
      done: Promise.withResolvers<string>(),
    };
    this.#byId.set(id, a);
    const timer = setTimeout(() => {
      if (a.status !== "waiting") return;
      a.status = "expired";
      a.done.reject(new AppError("SENDER_NOT_CHOSEN", expired));
    }, this.#deps.timeoutMs ?? 5 * 60_000);
    const url = `http://127.0.0.1:${this.#deps.port()}/remote/${id}`;
    this.#deps.log("info", opened, { url, ...fields });
    this.#deps.openBrowser(url);
    try {
      return await a.done.promise;
    } finally {
      clearTimeout(timer);
      setTimeout(() => this.#byId.delete(id), 10 * 60_000).unref?.();
    }
  }

  /** The code typed on the page (or the decline): the OTP approval `id` ends, once. */
  #otp(id: string, form: Record<string, unknown>): Approval | null {
    const a = this.#byId.get(id);
    if (!a || a.kind !== "otp" || a.status !== "waiting" || form.state !== a.state) return null;
    if (form.decision === "decline") {
      a.status = "declined";
      a.done.reject(new AppError("SENDER_NOT_CHOSEN", "The signature was declined on the page"));
      return a;
    }
    const otp = typeof form.otp === "string" ? form.otp.trim() : "";
    if (!/^[0-9A-Za-z]{1,16}$/.test(otp)) {
      throw new AppError("VALIDATION_FAILED", "The one-time code is 1 to 16 letters or digits", {
        field: "otp",
      });
    }
    a.status = "approved";
    a.done.resolve(otp);
    return a;
  }

  /** The code must come from the agent's own page (its Origin, else Sec-Fetch-Site). */
  #assertOwnPage(origin: string | undefined, site: string | undefined): void {
    const own = [`http://127.0.0.1:${this.#deps.port()}`, `http://localhost:${this.#deps.port()}`];
    const bad = origin && origin !== "null"
      ? !own.includes(origin)
      : site === undefined || site !== "same-origin";
    if (bad) {
      throw new AppError("ORIGIN_NOT_ALLOWED", "The code can only come from the agent's own page");
    }
  }

  #callback(): string {
    return `http://127.0.0.1:${this.#deps.port()}/remote/callback`;
  }

  /** The provider came back: the approval whose `state` it names ends. */
  async #finish(q: URLSearchParams): Promise<Approval | null> {
    const a = [...this.#byId.values()].find((x) =>
      x.kind === "provider" && x.state === q.get("state")
    );
    if (!a?.client || a.status !== "waiting") return null;
    const error = q.get("error");
    if (error) {
      a.status = "declined";
      a.done.reject(
        new AppError("SENDER_NOT_CHOSEN", "The signature was declined at the provider", {
          providerError: error,
          providerDescription: q.get("error_description"),
        }),
      );
      return a;
    }
    try {
      const t = await a.client.exchangeCode(q.get("code") ?? "", a.verifier, this.#callback());
      a.status = "approved";
      a.done.resolve(t.accessToken);
    } catch (e) {
      a.status = "declined";
      a.done.reject(e);
    }
    return a;
  }

  /**
   * The routes mounted at `/remote`: the page and the provider's callback.
   * @returns a Hono sub-app
   */
  routes(): Hono<AgentEnv> {
    const r = new Hono<AgentEnv>();
    r.onError((err, c) => errorResponse(c, err, this.#deps.log));
    r.get("/callback", async (c) => {
      const a = await this.#finish(new URL(c.req.url).searchParams);
      if (!a) return c.html(remotePage(null), 404, pageHeaders([]));
      return c.redirect(`/remote/${a.id}`, 303);
    });
    r.post("/:id/otp", async (c) => {
      this.#assertOwnPage(c.req.header("origin"), c.req.header("sec-fetch-site"));
      let form: Record<string, unknown>;
      try {
        form = await c.req.parseBody();
      } catch {
        throw new AppError("VALIDATION_FAILED", "The form could not be read", { field: "otp" });
      }
      const a = this.#otp(c.req.param("id"), form);
      if (!a) return c.html(remotePage(null), 404, pageHeaders([]));
      return c.redirect(`/remote/${a.id}`, 303);
    });
    r.get("/:id", (c) => {
      const a = this.#byId.get(c.req.param("id"));
      return c.html(remotePage(a ?? null), a ? 200 : 404, pageHeaders([]));
    });
    return r;
  }
}

/** The page of one approval (or of none: no longer known). */
function remotePage(a: Approval | null): string {
  const waiting = a?.status === "waiting";
  let body: Markup;
  if (!a) body = html`<h1 id="remote-closed">${w("confirm.remote_unknown")}</h1>`;
  else if (a.kind === "otp") body = otpBody(a);
  else if (waiting) {
    body = html`
      <h1 id="remote-wait">${w("confirm.remote_approve_in_app")}</h1>
      <p id="remote-count">${count("count.remote_signatures", a.signatures)}</p>
      ${a.parts > 1
        ? html`<p id="remote-parts">${
          w("confirm.remote_part", {
            part: String(a.part),
            parts: String(a.parts),
          })
        }</p>`
        : ""}
      <p><progress id="remote-progress" aria-label="${w("confirm.remote_waiting")}"></progress>
        ${w("confirm.remote_waiting")}</p>
      <p><a id="remote-open" class="button" href="${a.providerUrl}">${w(
        "confirm.remote_open_provider",
      )}</a></p>
      <p class="muted">${w("confirm.remote_declining")}</p>
    `;
  } else if (a.status === "approved") {
    body = html`
      <h1 id="remote-approved">${w("confirm.remote_approved")}</h1>
      <p>${w("confirm.you_can_close_this")}</p>
    `;
  } else {
    body = html`
      <h1 id="remote-declined">${w("confirm.remote_declined")}</h1>
      <p>${w("confirm.you_can_close_this")}</p>
    `;
  }
  return pageDocument(
    a?.kind === "otp" ? "confirm.otp_title" : "confirm.remote_approve_in_app",
    body,
    null,
    waiting && a?.kind === "provider" ? html`<meta http-equiv="refresh" content="2">` : "",
  );
}

/** The one-time code's page: the form while it waits, then how it ended. */
function otpBody(a: Approval): Markup {
  if (a.status === "approved") {
    return html`
      <h1 id="otp-given">${w("confirm.otp_given")}</h1>
      <p>${w("confirm.you_can_close_this")}</p>
    `;
  }
  if (a.status !== "waiting") {
    return html`
      <h1 id="remote-declined">${w("confirm.remote_declined")}</h1>
      <p>${w("confirm.you_can_close_this")}</p>
    `;
  }
  return html`
    <h1 id="otp-ask">${w("confirm.otp_title")}</h1>
    <p id="otp-where">${w(a.online ? "confirm.otp_sent" : "confirm.otp_device")}</p>
    <p id="remote-count">${count("count.remote_signatures", a.signatures)}</p>
    ${a.parts > 1
      ? html`<p id="remote-parts">${
        w("confirm.remote_part", { part: String(a.part), parts: String(a.parts) })
      }</p>`
      : ""}
    <form method="post" action="/remote/${a.id}/otp" id="otp-form">
      <input type="hidden" name="state" value="${a.state}">
      <p><label>${w("confirm.otp_label")}
        <input type="text" name="otp" id="otp" inputmode="numeric" autocomplete="one-time-code"
          maxlength="16" required autofocus></label>
        <br><span id="otp-note">${w("confirm.otp_note")}</span></p>
      <div class="actions">
        <button class="ok" type="submit" name="decision" value="confirm"
          id="otp-sign">${w(
            "confirm.otp_sign",
          )}</button>
        <button type="submit" name="decision" value="decline" id="otp-decline"
          formnovalidate>${w(
            "confirm.otp_decline",
          )}</button>
      </div>
    </form>
    <p class="muted">${w("confirm.otp_declining")}</p>
  `;
}
