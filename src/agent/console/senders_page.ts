/**
 * The console's Senders page: the agent's senders, each with its certificate (holder, EGN
 * masked, issuer, validity with the warnings 30 and 7 days before the end, qualified or not —
 * certificate_view.ts), and the certificates this computer offers, found without typing paths —
 * every PKCS#11 module of the Bulgarian QES providers installed here with the tokens inserted
 * and their certificates, the Windows store / macOS Keychain — and a signature file (PKCS#12)
 * dropped on the page, chosen, typed or picked (senders_file.ts). Actions: add as sender (a display name; a failed certificate
 * check refuses it unless "add anyway" is ticked, for test certificates), test (the PIN typed
 * here; the agent signs a test document and verifies the signature; the PIN is never stored),
 * make active (the others become inactive), remove. Failures read as one sentence in both
 * languages (senders/messages.ts), never a stack trace.
 *
 * A cloud signature (CSC API v2) is added by signing in at its provider (senders_cloud.ts).
 *
 * Routes: `GET /console/senders`, `POST /console/senders/add`,
 * `POST /console/senders/:id/test|activate|remove` (here; the rows: senders_view.ts), and
 * senders_file.ts's.
 * @module
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { AppError } from "../../contract/mod.ts";
import {
  addSender,
  certificateByKey,
  describePkcs12,
  removeSender,
  scanCertificates,
  senderErrorText,
  senderKeyStore,
  setActiveSender,
  testSender,
} from "../senders/mod.ts";
import { certCells, expiryBanner, senderCertificates } from "./certificate_view.ts";
import type { ConsoleContext } from "./deps.ts";
import { both, bothWith, type Flash, type Markup, say, tableOr, w } from "./layout.ts";
import {
  fileRoutes,
  fileSection,
  forgetPassword,
  PASSWORD_MEMORY_MS,
  passwordFor,
  pkcs12Form,
} from "./senders_file.ts";
import { alreadyOr, senderRow } from "./senders_view.ts";
import { cloudRoutes, cloudSection } from "./senders_cloud.ts";
import { type ConsoleC, type ConsoleEnv, doneAndGo, formOf, sendPage } from "./respond.ts";

/** What the Senders handlers share: the context, the clock, discovery, the page and its errors. */
interface SendersKit {
  readonly ctx: ConsoleContext;
  readonly now: () => number;
  readonly discovery: () => Parameters<typeof scanCertificates>[0];
  /** The data folder. @throws AppError KEYSTORE_UNAVAILABLE when the console has none */
  readonly dataDir: () => string;
  /** A failed action as a message (logged with its errorCode only). */
  readonly failed: (e: unknown, what: { bg: string; en: string }) => Flash;
  /** The page, with a PKCS#12 section of its own (`picked`) and a message. */
  readonly page: (c: ConsoleC, picked?: Markup | null, flash?: Flash | null) => Promise<Response>;
}

/** The kit of a console context. */
function sendersKit(ctx: ConsoleContext): SendersKit {
  const now = () => ctx.clock.now();
  const kit: SendersKit = {
    ctx,
    now,
    discovery: () => ({ now, ...(ctx.console?.discovery ?? {}) }),
    dataDir: () => {
      if (!ctx.console) throw new AppError("KEYSTORE_UNAVAILABLE", "No data folder");
      return ctx.console.dataDir;
    },
    failed: (e, what) => {
      const x = senderErrorText(e);
      ctx.log("warn", "console sender action failed", { errorCode: x.code });
      return {
        kind: "error",
        ...bothWith("console.failed", (l) => ({ what: what[l], detail: x[l] })),
      };
    },
    page: (c, picked = null, flash = null) => sendersPage(kit, c, picked, flash),
  };
  return kit;
}

/**
 * `GET /console/senders` (and every action's answer when it fails): the agent's senders, the
 * certificates found on this computer, where the agent looked, and the signature-file section.
 */
async function sendersPage(
  h: SendersKit,
  c: ConsoleC,
  picked: Markup | null,
  flash: Flash | null,
): Promise<Response> {
  const title = both("senders.senders_signing_certificates");
  const csrf = c.get("session").csrf;
  const senders = h.ctx.senders.current();
  const scan = await scanCertificates(h.discovery()).catch(() => null);
  const certs = await senderCertificates(senders, h.now(), true);
  const mine = senders.map((s) => senderRow(s, certs.get(s.id) ?? null, senders, csrf));
  const found = scan?.certificates ?? [];
  // A store that cannot exist on this OS (the Windows store on Linux, the Keychain off
  // macOS) is not listed at all.
  const shownSources = (scan?.sources ?? []).filter((s) => s.status !== "not_available");
  const body = html`
    ${expiryBanner(senders, certs)}
    <h2>${w("senders.the_agent_s_senders")}</h2>
    ${tableOr(
      "senders",
      [
        "senders.sender",
        "senders.certificate",
        "senders.state",
        "senders.actions",
      ],
      mine,
      w("senders.no_senders_yet_in"),
    )}
    <h2>${w("senders.certificates_on_this_computer")}</h2>
    ${tableOr(
      "found",
      [
        "senders.holder",
        "senders.issuer",
        "senders.valid",
        "senders.kind",
        "senders.where",
      ],
      found.map((x) =>
        html`
          <tr class="found-cert" data-key="${x.key}">${certCells(x)}</tr>
          <tr>
            <td colspan="5">${alreadyOr(senders, x, csrf)}</td>
          </tr>
        `
      ),
      w("senders.no_certificate_found_on"),
    )}
    ${shownSources.length
      ? html`
        <details class="small muted">
          <summary>${w("senders.where_the_agent_looked")}</summary>
          <ul id="sources">${shownSources.map((s) =>
            html`<li>${s.label}: ${s.reason ? say(s.reason) : s.status}</li>`
          )}</ul>
        </details>
      `
      : ""}
    ${picked || fileSection(csrf)}
    ${await cloudSection(h.ctx.console?.dataDir ?? null, csrf)}
  `;
  return sendPage(c, "senders", title, body, flash?.kind === "error" ? 400 : 200, flash);
}

/** `POST /console/senders/add`: a found certificate (`key`) or a signature file (`file`). */
async function addAction(h: SendersKit, c: ConsoleC): Promise<Response> {
  const what = both("senders.adding_a_sender");
  const f = await formOf(c);
  const pin = f.file ? passwordFor(c, f.file, f.pin, h.now()) : f.pin || undefined;
  try {
    const ref = f.file
      ? (await describePkcs12(f.file, pin, { now: h.now }))[0]?.ref ??
        (() => {
          throw new AppError("KEYSTORE_UNAVAILABLE", "The file holds no signing certificate");
        })()
      : (await certificateByKey(f.key ?? "", h.discovery())).ref;
    const added = await addSender(
      h.dataDir(),
      { displayName: f.displayName ?? "", ref, ...(pin ? { pin } : {}), force: f.force === "1" },
      h.now(),
    );
    forgetPassword(c);
    await h.ctx.senders.reload();
    h.ctx.log("info", "console added sender", { senderId: added.sender.id });
    return doneAndGo(c, "/console/senders", {
      kind: "ok",
      ...both("senders.added", { name: added.sender.displayName }),
    });
  } catch (e) {
    // The file again, with its certificate when it can be read: what failed, in words.
    const shown = f.file ? await describePkcs12(f.file, pin, { now: h.now }).catch(() => []) : [];
    // A password that opened the file is remembered (memory, 10 min) as "show" does.
    const session = c.get("session");
    if (f.file && pin && shown.length > 0) {
      session.pkcs12 = { file: f.file, password: pin, until: h.now() + PASSWORD_MEMORY_MS };
    }
    const again = f.file
      ? pkcs12Form(f.file, session.csrf, shown, !!pin && shown.length > 0)
      : null;
    return h.page(c, again, h.failed(e, what));
  }
}

/** `POST /console/senders/:id/test`: sign a test document with the PIN typed, and verify it. */
async function testAction(h: SendersKit, c: ConsoleC): Promise<Response> {
  const what = both("senders.signature_test");
  const f = await formOf(c);
  try {
    const { sender, ref } = await senderKeyStore(h.dataDir(), c.req.param("id") ?? "");
    const res = await testSender(ref, f.pin || undefined, h.now());
    h.ctx.log("info", "console tested sender", { senderId: sender.id });
    return doneAndGo(c, "/console/senders", {
      kind: "ok",
      ...both("senders.tested", { name: sender.displayName, bytes: res.signatureBytes }),
    });
  } catch (e) {
    return h.page(c, null, h.failed(e, what));
  }
}

/** `POST /console/senders/:id/activate|remove`. */
async function activateOrRemove(
  h: SendersKit,
  action: "activate" | "remove",
  c: ConsoleC,
): Promise<Response> {
  const what = action === "activate" ? both("senders.making_active") : both("senders.removing");
  try {
    const id = c.req.param("id") ?? "";
    if (action === "activate") await setActiveSender(h.dataDir(), id);
    else await removeSender(h.dataDir(), id);
    await h.ctx.senders.reload();
    h.ctx.log("info", `console ${action} sender`, { senderId: id });
    return doneAndGo(c, "/console/senders", {
      kind: "ok",
      bg: action === "activate" ? `„${id}“ е активният подател` : `Подателят „${id}“ е премахнат`,
      en: action === "activate" ? `"${id}" is the active sender` : `Removed sender "${id}"`,
    });
  } catch (e) {
    return h.page(c, null, h.failed(e, what));
  }
}

/**
 * The Senders routes.
 * @param ctx the console's context (data folder, pickers, discovery)
 * @returns the routes
 */
export function sendersRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  const h = sendersKit(ctx);
  r.get("/console/senders", (c) => h.page(c));
  r.route("/", fileRoutes(ctx, { page: h.page, failed: h.failed, dataDir: h.dataDir }));
  r.route("/", cloudRoutes(h));
  r.post("/console/senders/add", (c) => addAction(h, c));
  r.post("/console/senders/:id/test", (c) => testAction(h, c));
  for (const action of ["activate", "remove"] as const) {
    r.post(`/console/senders/:id/${action}`, (c) => activateOrRemove(h, action, c));
  }
  return r;
}
