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
 * @module
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { AppError } from "../../contract/mod.ts";
import type { Logger } from "../../log.ts";
import type { CscApprove, CscClient } from "../../signing/mod.ts";
import { type Markup, pageHeaders } from "../../web_page.ts";
import { styleLink } from "../../web_assets.ts";
import { type AgentEnv, errorResponse } from "../http/mod.ts";
import { count, currentLang, w } from "../texts/mod.ts";
import { CONFIRM_CSS } from "./assets/mod.ts";

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
  readonly state: string;
  readonly verifier: string;
  readonly providerUrl: string;
  readonly signatures: number;
  readonly part: number;
  readonly parts: number;
  readonly client: CscClient;
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
      const id = crypto.randomUUID();
      const a: Approval = {
        id,
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
        status: "waiting",
        done: Promise.withResolvers<string>(),
      };
      this.#byId.set(id, a);
      const timer = setTimeout(() => {
        if (a.status !== "waiting") return;
        a.status = "expired";
        a.done.reject(
          new AppError(
            "SENDER_NOT_CHOSEN",
            "The signature was not approved at the provider in time",
          ),
        );
      }, this.#deps.timeoutMs ?? 5 * 60_000);
      const url = `http://127.0.0.1:${this.#deps.port()}/remote/${id}`;
      this.#deps.log("info", "remote approval page opened", { url, signatures: hashes.length });
      this.#deps.openBrowser(url);
      try {
        return await a.done.promise;
      } finally {
        clearTimeout(timer);
        // The page stays readable for a while (it shows how the approval ended).
        setTimeout(() => this.#byId.delete(id), 10 * 60_000).unref?.();
      }
    };
  }

  #callback(): string {
    return `http://127.0.0.1:${this.#deps.port()}/remote/callback`;
  }

  /** The provider came back: the approval whose `state` it names ends. */
  async #finish(q: URLSearchParams): Promise<Approval | null> {
    const a = [...this.#byId.values()].find((x) => x.state === q.get("state"));
    if (!a || a.status !== "waiting") return null;
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
  return String(html`
    <!doctype html>
    <html lang="${currentLang()}">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width,initial-scale=1">
        ${waiting ? html`<meta http-equiv="refresh" content="2">` : ""}
        <title>${w("confirm.remote_approve_in_app")}</title>
        ${styleLink("", CONFIRM_CSS)}
      </head>
      <body>${body}</body>
    </html>
  `);
}
