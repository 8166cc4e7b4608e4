/**
 * The console's Senders page (issue #14 § 2): the agent's senders and the certificates this
 * computer offers, found without typing paths — every PKCS#11 module of the Bulgarian QES
 * providers installed here with the tokens inserted and their certificates, the Windows store /
 * macOS Keychain, and a PKCS#12 file chosen with the native picker. Each certificate shows the
 * holder, the EGN masked, the issuer, the validity (a warning 30 days before the end), whether
 * it is qualified and where it is. Actions: add as sender (a display name; a failed certificate
 * check refuses it unless "add anyway" is ticked, for test certificates), test (the PIN typed
 * here; the agent signs a test document and verifies the signature; the PIN is never stored),
 * make active (the others become inactive), remove. Failures read as one sentence in both
 * languages (senders/messages.ts), never a stack trace.
 *
 * Routes: `GET /console/senders`, `POST /console/senders/add`, `POST /console/senders/pick`,
 * `POST /console/senders/:id/test|activate|remove`.
 * @module
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { AppError } from "../../contract/mod.ts";
import {
  addSender,
  certificateByKey,
  describePkcs12,
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
import type { ConsoleContext } from "./deps.ts";
import { csrfField, type Flash, type Markup, t, tableOr } from "./layout.ts";
import { type ConsoleC, type ConsoleEnv, doneAndGo, formOf, sendPage } from "./respond.ts";

const SOURCE_WORDS: Record<string, { bg: string; en: string }> = {
  pkcs11: { bg: "карта / токен (PKCS#11)", en: "card / token (PKCS#11)" },
  pkcs12: { bg: "файл PKCS#12", en: "PKCS#12 file" },
  windows: { bg: "хранилище на Windows", en: "Windows certificate store" },
  macos: { bg: "Keychain на macOS", en: "macOS Keychain" },
};

const day = (iso: string) => iso.slice(0, 10);

/** One certificate's facts, as a table row's cells. */
function certCells(c: FoundCertificate): Markup {
  const validity = c.expired
    ? html`<span class="bad">${t("изтекъл", "expired")}</span>`
    : c.expiringSoon
    ? html`<span class="warn">${
      t(`изтича след ${c.expiresInDays} дни`, `expires in ${c.expiresInDays} days`)
    }</span>`
    : "";
  return html`<td><strong class="holder">${c.holderName}</strong>${
    c.personalIdMasked ? html`<br><span class="mono small">${c.personalIdMasked}</span>` : ""
  }</td>
<td class="small">${c.issuer}</td>
<td class="small">${day(c.notBefore)} – ${day(c.notAfter)} ${validity}</td>
<td>${
    c.qualified
      ? html`<span class="ok">${t("квалифициран", "qualified")}</span>`
      : html`<span class="warn">${t("не е квалифициран", "not qualified")}</span>`
  }</td>
<td class="small">${
    t(SOURCE_WORDS[c.source]!.bg, SOURCE_WORDS[c.source]!.en)
  }<br><span class="muted">${c.sourceLabel}</span></td>`;
}

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
      t(`вече е подател: ${added.displayName}`, `already a sender: ${added.displayName}`)
    }</span>`
    : addForm(c, csrf);
}

/** The form that adds a found certificate as a sender. */
function addForm(c: FoundCertificate, csrf: string, extra: Markup | null = null): Markup {
  return html`
    <form method="post" action="/console/senders/add"
      class="add-sender">${csrfField(csrf)}<input type="hidden" name="key" value="${c.key}">${extra}
    <label class="small">${t("Име в страницата за потвърждение", "Name on the confirmation page")}
    <input name="displayName" value="${c.holderName}" required maxlength="200"></label>
    <label class="small">${t("PIN (ако токенът иска)", "PIN (if the token asks)")}
    <input type="password" name="pin" autocomplete="off" maxlength="64"></label>
    <label class="small"><input type="checkbox" name="force" value="1"> ${t(
      "добави въпреки неуспешна проверка (тестов сертификат)",
      "add even if a check fails (test certificate)",
    )}</label>
    <button class="primary">${t("Добави като подател", "Add as sender")}</button></form>
  `;
}

/**
 * The Senders routes.
 * @param ctx the console's context (data folder, pickers, discovery)
 * @returns the routes
 */
export function sendersRoutes(ctx: ConsoleContext): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  const title = { bg: "Подписи (податели)", en: "Senders (signing certificates)" };
  const now = () => ctx.clock.now();
  const discovery = () => ({ now, ...(ctx.console?.discovery ?? {}) });
  const dataDir = () => {
    if (!ctx.console) throw new AppError("KEYSTORE_UNAVAILABLE", "No data folder");
    return ctx.console.dataDir;
  };
  const failed = (e: unknown, what: { bg: string; en: string }): Flash => {
    const x = senderErrorText(e);
    ctx.log("warn", "console sender action failed", { errorCode: x.code });
    return { kind: "error", bg: `${what.bg}: ${x.bg}`, en: `${what.en}: ${x.en}` };
  };

  const page = async (c: ConsoleC, picked: Markup | null = null, flash: Flash | null = null) => {
    const csrf = c.get("session").csrf;
    const senders = ctx.senders.current();
    const scan = await scanCertificates(discovery()).catch(() => null);
    const mine = senders.map((s) =>
      html`
        <tr data-sender="${s.id}">
          <td><strong>${s.displayName}</strong><br><span class="mono small muted">${s
            .id}</span></td>
          <td class="small">${(() => {
            const ref = parseKeystoreRef(s.keystore);
            return ref ? t(SOURCE_WORDS[ref.type]!.bg, SOURCE_WORDS[ref.type]!.en) : "—";
          })()}</td>
          <td>${s.active
            ? html`<span class="ok">${t("активен", "active")}</span>`
            : html`<span class="muted">${t("неактивен", "inactive")}</span>`}</td>
          <td><form method="post" action="/console/senders/${s
            .id}/test" class="inline">${csrfField(csrf)}
        <input type="password" name="pin" placeholder="PIN" autocomplete="off" maxlength="64" size="8">
        <button class="test-sender">${t("Тествай", "Test")}</button></form>
        ${s.active && senders.filter((x) => x.active).length === 1 ? "" : html`
          <form method="post" action="/console/senders/${s.id}/activate"
            class="inline">${csrfField(csrf)}<button class="activate-sender">${t(
              "Направи активен",
              "Make active",
            )}</button></form>
        `}
        <form method="post" action="/console/senders/${s
          .id}/remove" class="inline">${csrfField(csrf)}
        <button class="danger remove-sender">${t("Премахни", "Remove")}</button></form></td>
        </tr>
      `
    );
    const found = scan?.certificates ?? [];
    const body = html`
      <h2>${t("Подателите на агента", "The agent's senders")}</h2>
      ${tableOr(
        "senders",
        [
          ["Подател", "Sender"],
          ["Хранилище", "Key store"],
          ["Състояние", "State"],
          ["Действия", "Actions"],
        ],
        mine,
        t(
          "Още няма податели. В тестов режим агентът подписва с вграден фиктивен подател.",
          "No senders yet. In test mode the agent signs with a built-in fictitious sender.",
        ),
      )}
      <h2>${t("Сертификати на този компютър", "Certificates on this computer")}</h2>
      ${tableOr(
        "found",
        [
          ["Титуляр", "Holder"],
          ["Издател", "Issuer"],
          ["Валиден", "Valid"],
          ["Вид", "Kind"],
          ["Къде", "Where"],
        ],
        found.map((x) =>
          html`
            <tr class="found-cert" data-key="${x.key}">${certCells(x)}</tr>
            <tr>
              <td colspan="5">${alreadyOr(senders, x, csrf)}</td>
            </tr>
          `
        ),
        t(
          "Не е намерен сертификат на карта или токен.",
          "No certificate found on a card or token.",
        ),
      )}
      ${scan?.sources.length
        ? html`<ul class="small muted" id="sources">${
          scan.sources.map((s) =>
            html`<li>${s.label}: ${
              s.reason ? html`${s.reason.bg} <span class="en">/ ${s.reason.en}</span>` : s.status
            }</li>`
          )
        }</ul>`
        : ""}
      <h2>${t("Файл PKCS#12 (.p12, .pfx)", "A PKCS#12 file (.p12, .pfx)")}</h2>
      ${picked ||
        html`<form method="post" action="/console/senders/pick">${csrfField(csrf)}
<button id="pick-pkcs12">${t("Избери файл…", "Choose a file…")}</button></form>`}
    `;
    return sendPage(c, "senders", title, body, flash?.kind === "error" ? 400 : 200, flash);
  };

  r.get("/console/senders", (c) => page(c));

  // The native picker, then the file's certificates with a password field.
  r.post("/console/senders/pick", async (c) => {
    const what = { bg: "Избор на файл", en: "Choosing a file" };
    try {
      if (!ctx.pickers) throw new AppError("PICKER_UNAVAILABLE", "No native dialog");
      const picked = await ctx.pickers.pick("file");
      if (picked.cancelled || !picked.path) {
        return page(c, null, { kind: "ok", bg: "Не е избран файл", en: "No file was chosen" });
      }
      return page(c, pkcs12Form(picked.path, c.get("session").csrf));
    } catch (e) {
      return page(c, null, failed(e, what));
    }
  });

  const pkcs12Form = (file: string, csrf: string, shown: FoundCertificate[] = []) =>
    html`<div class="card" id="pkcs12"><p>${t("Файл", "File")}: <code>${file}</code></p>${
      shown.length ? html`<table>${shown.map((x) => html`<tr>${certCells(x)}</tr>`)}</table>` : ""
    }
<form method="post" action="/console/senders/add">${csrfField(csrf)}
<input type="hidden" name="file" value="${file}">
<label class="small">${t("Парола на файла", "The file's password")}
<input type="password" name="pin" id="pkcs12-password" autocomplete="off" maxlength="128"></label>
<label class="small">${t("Име в страницата за потвърждение", "Name on the confirmation page")}
<input name="displayName" id="pkcs12-name" required maxlength="200"></label>
<label class="small"><input type="checkbox" name="force" value="1" id="pkcs12-force"> ${
      t(
        "добави въпреки неуспешна проверка (тестов сертификат)",
        "add even if a check fails (test certificate)",
      )
    }</label>
<button class="primary" id="pkcs12-add">${
      t("Добави като подател", "Add as sender")
    }</button></form></div>`;

  r.post("/console/senders/add", async (c) => {
    const what = { bg: "Добавяне на подател", en: "Adding a sender" };
    const f = await formOf(c);
    const pin = f.pin ? f.pin : undefined;
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
      await ctx.senders.reload();
      ctx.log("info", "console added sender", { senderId: added.sender.id });
      return doneAndGo(c, "/console/senders", {
        kind: "ok",
        bg: `Добавен подател „${added.sender.displayName}“`,
        en: `Added sender "${added.sender.displayName}"`,
      });
    } catch (e) {
      const again = f.file ? pkcs12Form(f.file, c.get("session").csrf) : null;
      return page(c, again, failed(e, what));
    }
  });

  r.post("/console/senders/:id/test", async (c) => {
    const what = { bg: "Тест на подписа", en: "Signature test" };
    const f = await formOf(c);
    try {
      const { sender, ref } = await senderKeystore(dataDir(), c.req.param("id"));
      const res = await testSender(ref, f.pin || undefined, now());
      ctx.log("info", "console tested sender", { senderId: sender.id });
      return doneAndGo(c, "/console/senders", {
        kind: "ok",
        bg:
          `${what.bg} на „${sender.displayName}“: подписът е направен и проверен (${res.signatureBytes} байта)`,
        en:
          `${what.en} of "${sender.displayName}": the signature was made and verified (${res.signatureBytes} bytes)`,
      });
    } catch (e) {
      return page(c, null, failed(e, what));
    }
  });

  for (const action of ["activate", "remove"] as const) {
    r.post(`/console/senders/:id/${action}`, async (c) => {
      const what = action === "activate"
        ? { bg: "Активиране", en: "Making active" }
        : { bg: "Премахване", en: "Removing" };
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
