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
 * Routes: `GET /console/senders`, `POST /console/senders/add`,
 * `POST /console/senders/:id/test|activate|remove`, and senders_file.ts's.
 * @module
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { AppError } from "../../contract/mod.ts";
import {
  addSender,
  certificateByKey,
  describePkcs12,
  failedInWords,
  type FoundCertificate,
  parseKeystoreRef,
  removeSender,
  scanCertificates,
  type SenderConfig,
  senderErrorText,
  senderKeystore,
  setActiveSender,
  testSender,
} from "../senders/mod.ts";
import {
  certCells,
  expiryBanner,
  expiryNote,
  notQualifiedMark,
  senderCertificates,
  sourceWords,
} from "./certificate_view.ts";
import type { ConsoleContext } from "./deps.ts";
import {
  both,
  bothWith,
  csrfField,
  type Flash,
  type Markup,
  say,
  tableOr,
  w,
  when,
} from "./layout.ts";
import {
  fileRoutes,
  fileSection,
  forgetPassword,
  PASSWORD_MEMORY_MS,
  passwordFor,
  pkcs12Form,
} from "./senders_file.ts";
import { type ConsoleC, type ConsoleEnv, doneAndGo, formOf, sendPage } from "./respond.ts";

/** Whether a sender's key store reference names this found certificate. */
function sameCertificate(keystore: unknown, c: FoundCertificate): boolean {
  const ref = parseKeystoreRef(keystore) as Record<string, unknown> | null;
  const b = c.ref as Record<string, unknown>;
  if (!ref || ref.type !== b.type) return false;
  return ["module", "tokenLabel", "certId", "file", "thumbprint", "label"].every((k) =>
    ref[k] === undefined || b[k] === undefined || ref[k] === b[k]
  );
}

/** "Already a sender: …" for a certificate a sender uses, else the form that adds it. */
function alreadyOr(senders: readonly SenderConfig[], c: FoundCertificate, csrf: string): Markup {
  const added = senders.find((s) => sameCertificate(s.keystore, c));
  return added
    ? html`<span class="ok small already">${
      w("senders.already_a_sender", { name: added.displayName })
    }</span>`
    : addForm(c, csrf);
}

/** The form that adds a found certificate as a sender. */
function addForm(c: FoundCertificate, csrf: string, extra: Markup | null = null): Markup {
  return html`
    <form method="post" action="/console/senders/add"
      class="add-sender">${csrfField(csrf)}<input type="hidden" name="key" value="${c.key}">${extra}
    <label class="small">${w("senders.name_on_the_confirmation")}
    <input name="displayName" value="${c.holderName}" required maxlength="200"></label>
    <label class="small">${w("senders.pin_if_the_token")}
    <input type="password" name="pin" autocomplete="off" maxlength="64"></label>
    <label class="small"><input type="checkbox" name="force" value="1"> ${w(
      "senders.add_even_if_a",
    )}</label>
    <button class="primary">${w("senders.add_as_sender")}</button></form>
  `;
}

/**
 * The Senders routes.
 * @param ctx the console's context (data folder, pickers, discovery)
 * @returns the routes
 */
export function sendersRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  const title = both("senders.senders_signing_certificates");
  const now = () => ctx.clock.now();
  const discovery = () => ({ now, ...(ctx.console?.discovery ?? {}) });
  const dataDir = () => {
    if (!ctx.console) throw new AppError("KEYSTORE_UNAVAILABLE", "No data folder");
    return ctx.console.dataDir;
  };
  const failed = (e: unknown, what: { bg: string; en: string }): Flash => {
    const x = senderErrorText(e);
    ctx.log("warn", "console sender action failed", { errorCode: x.code });
    return {
      kind: "error",
      ...bothWith("console.failed", (l) => ({ what: what[l], detail: x[l] })),
    };
  };

  const page = async (c: ConsoleC, picked: Markup | null = null, flash: Flash | null = null) => {
    const csrf = c.get("session").csrf;
    const senders = ctx.senders.current();
    const scan = await scanCertificates(discovery()).catch(() => null);
    const certs = await senderCertificates(senders, now(), true);
    const mine = senders.map((s) => {
      const cert = certs.get(s.id) ?? null;
      const ref = (() => {
        try {
          return parseKeystoreRef(s.keystore);
        } catch {
          return null;
        }
      })();
      return html`
        <tr data-sender="${s.id}" data-qualified="${String(cert?.qualified ?? s.qualified ?? "")}">
          <td><strong>${s.displayName}</strong>${(cert?.qualified ?? s.qualified) === false
            ? html`
              ${notQualifiedMark()}
            `
            : ""}<br><span class="small muted">${ref ? sourceWords(ref.type) : "—"}</span></td>
          <td class="small sender-cert">${cert
            ? html`
              <span class="holder">${cert.holderName}</span>${cert.personalIdMasked
                ? html`
                  <span class="mono personal-id">${cert.personalIdMasked}</span>
                `
                : ""}<br><span
                class="issuer">${cert.issuer}</span><br>${when(cert.notBefore)} – ${when(
                  cert.notAfter,
                )} ${expiryNote(cert)}${cert.checks.some((x) => !x.ok)
                  ? html`<br><span class="bad failed-checks">${
                    say(failedInWords(cert.checks))
                  }</span>`
                  : ""}
            `
            : html`<span class="muted">${w("senders.shown_when_the_token")}</span>`}</td>
          <td>${s.active
            ? html`<span class="ok">${w("senders.active")}</span>`
            : html`<span class="muted">${w("senders.inactive")}</span>`}</td>
          <td><form method="post" action="/console/senders/${s
            .id}/test" class="inline">${csrfField(csrf)}
        <input type="password" name="pin" placeholder="PIN" autocomplete="off" maxlength="64" size="8">
        <button class="test-sender">${w("senders.test")}</button></form>
        ${s.active && senders.filter((x) => x.active).length === 1 ? "" : html`
          <form method="post" action="/console/senders/${s.id}/activate"
            class="inline">${csrfField(csrf)}<button class="activate-sender">${w(
              "senders.make_active",
            )}</button></form>
        `}
        <form method="post" action="/console/senders/${s
          .id}/remove" class="inline">${csrfField(csrf)}
        <button class="danger remove-sender">${w("senders.remove")}</button></form></td>
        </tr>
      `;
    });
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
    `;
    return sendPage(c, "senders", title, body, flash?.kind === "error" ? 400 : 200, flash);
  };

  r.get("/console/senders", (c) => page(c));

  r.route("/", fileRoutes(ctx, { page, failed, dataDir }));

  r.post("/console/senders/add", async (c) => {
    const what = both("senders.adding_a_sender");
    const f = await formOf(c);
    const pin = f.file ? passwordFor(c, f.file, f.pin, now()) : f.pin || undefined;
    try {
      const ref = f.file
        ? (await describePkcs12(f.file, pin, { now }))[0]?.ref ??
          (() => {
            throw new AppError("KEYSTORE_UNAVAILABLE", "The file holds no signing certificate");
          })()
        : (await certificateByKey(f.key ?? "", discovery())).ref;
      const added = await addSender(
        dataDir(),
        { displayName: f.displayName ?? "", ref, ...(pin ? { pin } : {}), force: f.force === "1" },
        now(),
      );
      forgetPassword(c);
      await ctx.senders.reload();
      ctx.log("info", "console added sender", { senderId: added.sender.id });
      return doneAndGo(c, "/console/senders", {
        kind: "ok",
        ...both("senders.added", { name: added.sender.displayName }),
      });
    } catch (e) {
      // The file again, with its certificate when it can be read: what failed, in words.
      const shown = f.file ? await describePkcs12(f.file, pin, { now }).catch(() => []) : [];
      // A password that opened the file is remembered (memory, 10 min) as "show" does.
      const session = c.get("session");
      if (f.file && pin && shown.length > 0) {
        session.pkcs12 = { file: f.file, password: pin, until: now() + PASSWORD_MEMORY_MS };
      }
      const again = f.file
        ? pkcs12Form(f.file, session.csrf, shown, !!pin && shown.length > 0)
        : null;
      return page(c, again, failed(e, what));
    }
  });

  r.post("/console/senders/:id/test", async (c) => {
    const what = both("senders.signature_test");
    const f = await formOf(c);
    try {
      const { sender, ref } = await senderKeystore(dataDir(), c.req.param("id"));
      const res = await testSender(ref, f.pin || undefined, now());
      ctx.log("info", "console tested sender", { senderId: sender.id });
      return doneAndGo(c, "/console/senders", {
        kind: "ok",
        ...both("senders.tested", { name: sender.displayName, bytes: res.signatureBytes }),
      });
    } catch (e) {
      return page(c, null, failed(e, what));
    }
  });

  for (const action of ["activate", "remove"] as const) {
    r.post(`/console/senders/:id/${action}`, async (c) => {
      const what = action === "activate" ? both("senders.making_active") : both("senders.removing");
      try {
        const id = c.req.param("id");
        if (action === "activate") await setActiveSender(dataDir(), id);
        else await removeSender(dataDir(), id);
        await ctx.senders.reload();
        ctx.log("info", `console ${action} sender`, { senderId: id });
        return doneAndGo(c, "/console/senders", {
          kind: "ok",
          bg: action === "activate"
            ? `„${id}“ е активният подател`
            : `Подателят „${id}“ е премахнат`,
          en: action === "activate" ? `"${id}" is the active sender` : `Removed sender "${id}"`,
        });
      } catch (e) {
        return page(c, null, failed(e, what));
      }
    });
  }
  return r;
}
