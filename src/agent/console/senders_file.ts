/**
 * The Senders page's signature file (PKCS#12: .p12, .pfx), in three ways, none of which needs
 * the native dialog: drop the file on the page or choose it with the browser's own file input
 * (the page sends it to the agent on this computer, with the console's session and CSRF token;
 * the agent keeps it in its data folder as it came, its key encrypted under the file's
 * password: senders/kept_files.ts); type or paste its path; or the native dialog where one can
 * open — where none can, the page says so and what to do instead. Then the certificate is shown
 * (holder, masked personal id, issuer, validity, qualified or not, the checks in words) before
 * it is added.
 *
 * Routes: `POST /console/senders/upload` (multipart, field `file`), `POST /console/senders/path`
 * (field `path`), `POST /console/senders/pick`, `POST /console/senders/inspect` (fields `file`,
 * `pin`).
 * @module
 */
import { Hono } from "hono";
import { html, raw } from "hono/html";
import { AppError, bi, isAppError } from "../../contract/mod.ts";
import { describePkcs12, type FoundCertificate, keepUploadedPkcs12 } from "../senders/mod.ts";
import { certificateCard } from "./certificate_view.ts";
import type { ConsoleContext } from "./deps.ts";
import { both, csrfField, type Flash, type Markup, w } from "./layout.ts";
import type { TextKey } from "../texts/mod.ts";
import type { ConsoleC, ConsoleEnv } from "./respond.ts";
import { formOf } from "./respond.ts";
import { scriptTag } from "../../web_assets.ts";
import { SENDERS_FILE_JS } from "./assets/mod.ts";

/** How long "show the certificate" remembers the file's password for "add", ms. */
export const PASSWORD_MEMORY_MS = 10 * 60_000;

/**
 * The section that takes a signature file.
 * @param csrf the session's CSRF token
 */
export function fileSection(csrf: string): Markup {
  return html`
    <h2>${w("senders.a_signature_file_p12")}</h2>
    <div id="drop-zone">
      <form method="post" action="/console/senders/upload" enctype="multipart/form-data"
        id="upload-form">${csrfField(csrf)}
    <p><strong>${w("senders.drop_the_file_here")}</strong> ${w("senders.or")}
    <input type="file" name="file" id="pkcs12-upload" accept=".p12,.pfx,application/x-pkcs12">
    <button id="upload-button">${w("senders.send")}</button></p>
    <p class="small muted">${w("senders.the_file_goes_only")}</p></form>
    </div>
    <form method="post" action="/console/senders/path" id="path-form">${csrfField(csrf)}
    <label>${w("senders.or_type_the_file")}
    <input name="path" id="pkcs12-path" size="60" maxlength="1000"
      placeholder="C:\\Users\\…\\podpis.p12"></label>
    <button id="path-open">${w("senders.open")}</button></form>
    <form method="post" action="/console/senders/pick">${csrfField(csrf)}
    <p class="small"><button id="pick-pkcs12">${w(
      "senders.choose_a_file_system",
    )}</button></p></form>
    ${scriptTag("", SENDERS_FILE_JS)}
  `;
}

/**
 * The chosen file: its certificates when known, and the form that adds it.
 * @param file the file's absolute path
 * @param csrf the session's CSRF token
 * @param shown its certificates, when read
 * @param remembered whether the session remembers its password ("show the certificate")
 */
export function pkcs12Form(
  file: string,
  csrf: string,
  shown: readonly FoundCertificate[] = [],
  remembered = false,
): Markup {
  return html`<div class="card" id="pkcs12"><p>${w("senders.file")}: <code>${file}</code></p>${
    shown.map((c, i) => certificateCard(c, i === 0 ? "cert-view" : `cert-view-${i}`))
  }
<form method="post" action="/console/senders/add">${csrfField(csrf)}
<input type="hidden" name="file" value="${file}">
<label class="small">${w("senders.the_file_s_password")}
<input type="password" name="pin" id="pkcs12-password" autocomplete="off" maxlength="128"
  ${remembered ? raw('placeholder="••••••"') : ""}></label>${
    remembered
      ? html`<span class="small muted" id="password-remembered">${
        w("senders.remembered_for_10_minutes")
      }</span>`
      : ""
  }
<button formaction="/console/senders/inspect" formnovalidate id="pkcs12-inspect">${
    w("senders.show_the_certificate")
  }</button><br>
<label class="small">${w("senders.name_on_the_confirmation")}
<input name="displayName" id="pkcs12-name" required maxlength="200" value="${
    shown[0]?.holderName ?? ""
  }"></label>
<label class="small"><input type="checkbox" name="force" value="1" id="pkcs12-force"> ${
    w("senders.add_even_if_a")
  }</label>
<button class="primary" id="pkcs12-add">${w("senders.add_as_sender")}</button></form></div>`;
}

/** What the file routes use from the Senders page. */
export interface FileRouteDeps {
  /** Draw the Senders page with a section in place of the file section, and a message. */
  readonly page: (c: ConsoleC, picked: Markup | null, flash?: Flash | null) => Promise<Response>;
  /** A failure's message. */
  readonly failed: (e: unknown, what: { bg: string; en: string }) => Flash;
  readonly dataDir: () => string;
}

/**
 * The file's certificates, read without a password where the file allows it.
 * @returns them, or [] when the password is needed first
 * @throws AppError KEYSTORE_UNAVAILABLE (no file, not PKCS#12)
 */
async function peek(file: string, now: () => number): Promise<FoundCertificate[]> {
  try {
    return await describePkcs12(file, undefined, { now });
  } catch (e) {
    if (isAppError(e) && e.code === "PIN_INCORRECT") return [];
    throw e;
  }
}

/**
 * The file routes.
 * @param ctx the console's context (native dialog, clock)
 * @param deps the page, the failure text, the data folder
 */
export function fileRoutes(ctx: ConsoleContext, deps: FileRouteDeps): Hono<ConsoleEnv> {
  const r = new Hono<ConsoleEnv>();
  const now = () => ctx.clock.now();
  const show = async (c: ConsoleC, file: string) =>
    deps.page(c, pkcs12Form(file, c.get("session").csrf, await peek(file, now)));

  /** A route that finds a PKCS#12 file (`find`: its path, or a page to show instead) and shows
   * its certificates; a failure is shown on the page as a failure of `doing`. */
  const fileRoute = (
    path: string,
    doing: TextKey,
    find: (c: ConsoleC) => Promise<string | Response>,
  ) =>
    r.post(path, async (c) => {
      try {
        const file = await find(c);
        return typeof file === "string" ? await show(c, file) : file;
      } catch (e) {
        return deps.page(c, null, deps.failed(e, both(doing)));
      }
    });

  fileRoute("/console/senders/upload", "senders.sending_the_file", async (c) => {
    const body = await c.req.parseBody();
    const f = body.file;
    if (!(f instanceof File) || f.size === 0) {
      throw new AppError("VALIDATION_FAILED", "Choose or drop a file", { field: "file" });
    }
    const kept = await keepUploadedPkcs12(deps.dataDir(), f.name, await f.bytes());
    ctx.log("info", "console received a PKCS#12 file", { bytes: f.size });
    return kept;
  });

  fileRoute("/console/senders/path", "senders.opening_the_file", async (c) => {
    // "Copy as path" (Windows) puts the path in quotes.
    const path = ((await formOf(c)).path ?? "").trim().replace(/^"(.*)"$/, "$1").trim();
    if (!path) throw new AppError("VALIDATION_FAILED", "Type the path", { field: "path" });
    if (!/^(\/|[A-Za-z]:[\\/]|\\\\)/.test(path)) {
      throw new AppError("VALIDATION_FAILED", "The path must be absolute", { field: "path" });
    }
    return path;
  });

  // The native dialog, where one can open.
  fileRoute("/console/senders/pick", "senders.choosing_a_file", async (c) => {
    if (!ctx.pickers) throw new AppError("PICKER_UNAVAILABLE", "No native dialog");
    const picked = await ctx.pickers.pick("file");
    if (picked.cancelled || !picked.path) {
      return await deps.page(c, null, {
        kind: "ok",
        ...bi("Не е избран файл", "No file was chosen"),
      });
    }
    return picked.path;
  });

  // "Show the certificate": read with the password, remember it for "add" (memory, 10 min).
  r.post("/console/senders/inspect", async (c) => {
    const what = both("senders.opening_the_certificate");
    const f = await formOf(c);
    const session = c.get("session");
    const file = f.file ?? "";
    const pin = f.pin ||
      (session.pkcs12?.file === file && session.pkcs12.until > now()
        ? session.pkcs12.password
        : undefined);
    try {
      const shown = await describePkcs12(file, pin, { now });
      if (pin) session.pkcs12 = { file, password: pin, until: now() + PASSWORD_MEMORY_MS };
      return deps.page(c, pkcs12Form(file, session.csrf, shown, pin !== undefined));
    } catch (e) {
      return deps.page(c, pkcs12Form(file, session.csrf), deps.failed(e, what));
    }
  });
  return r;
}

/**
 * The password for "add": the one typed, else the one "show the certificate" remembered for
 * this file; the memory is cleared either way.
 * @param c the route's context
 * @param file the file
 * @param typed the password typed ("" or undefined: none)
 * @param now epoch ms
 */
export function passwordFor(
  c: ConsoleC,
  file: string,
  typed: string | undefined,
  now: number,
): string | undefined {
  const s = c.get("session");
  const kept = s.pkcs12?.file === file && s.pkcs12.until > now ? s.pkcs12.password : undefined;
  return typed || kept;
}

/** Forget the remembered password (after an add). */
export const forgetPassword = (c: ConsoleC): void => {
  delete c.get("session").pkcs12;
};
