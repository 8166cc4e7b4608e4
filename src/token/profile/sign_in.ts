/**
 * The profile's sign-in side (docs/token-service.md § The profile): the page with sign-up and
 * sign-in by e-mail, the "check your mail" answer (the same whether the address has an account
 * or not), the one-time link (a page with one button, so a mail scanner that opens links does
 * not use it up), and sign-out. A used link starts a new session (a new id every time).
 * @module
 */
import type { Hono } from "hono";
import { html } from "hono/html";
import { AppError, bi, type Lang } from "../../contract/mod.ts";
import { pageLang, t } from "../../web_page.ts";
import { newId } from "../access/mod.ts";
import {
  clientAddress,
  countAttempt,
  type Flash,
  formOf,
  leadCard,
  mailedLinkPage,
  takePostedLink,
  WEB_LIMITS,
  type WebC,
  type WebEnv,
  withinLimit,
} from "../web/mod.ts";
import { resourcesCard } from "./resources.ts";
import type { ProfileContext } from "./deps.ts";
import { linkMail, type LinkMailKind } from "./link_mail.ts";
import { takeMemberInvite } from "./member_invite.ts";

const INVITE_REFUSED = {
  kind: "error",
  bg: "Този адрес вече има профил: влезте с него.",
  en: "This address has a profile already: sign in with it.",
} as const;

const EMAIL_RE = /^[^\s@<>,;"]{1,64}@[^\s@<>,;"]+\.[^\s@<>,;"]{2,}$/;

/**
 * An e-mail address as the store keeps it (trimmed, lower-case).
 * @throws AppError WEB_INPUT_INVALID (400, `field: "email"`) for one that is not an address
 */
export function normalEmail(v: string | undefined): string {
  const e = (v ?? "").trim().toLowerCase();
  if (e.length > 254 || !EMAIL_RE.test(e)) {
    throw new AppError("WEB_INPUT_INVALID", "The e-mail address is not valid", { field: "email" });
  }
  return e;
}

/**
 * The sign-in side's routes.
 * @param r the profile's router
 * @param ctx store, clock, mailer, sessions
 */ export function signInRoutes(r: Hono<WebEnv>, ctx: ProfileContext): void {
  r.get("/", (c) => {
    if (c.get("signedIn")) return c.redirect(`${ctx.app.base}/keys`, 303);
    return signInPage(c, ctx, 200, null);
  });
  r.post("/sign-up", (c) => signUpHandler(ctx, c));
  r.post("/sign-in", (c) => signInHandler(ctx, c));
  r.get("/link", (c) => linkPage(ctx, c));
  r.post("/link", (c) => takeLinkHandler(ctx, c));
  r.post("/sign-out", (c) => signOutHandler(ctx, c));
}

/**
 * Send a link mail without waiting for it (the answer takes as long whatever was sent). Without
 * SMTP, or when sending fails, it only logs a warning.
 * @param ctx mailer, public URL, log
 * @param kind which mail
 * @param to the address
 * @param code the link's one-time code
 * @param lang the language of the page it was asked from
 */
function sendLinkMail(
  ctx: ProfileContext,
  kind: LinkMailKind,
  to: string,
  code: string,
  lang: Lang,
): void {
  const url = `${ctx.publicUrl()}${ctx.app.base}/link?code=${code}`;
  if (!ctx.mailer) {
    ctx.log("warn", "profile link not sent: SVC_SMTP_HOST is not set", { kind });
    return;
  }
  ctx.mailer.send(linkMail(kind, to, url, newId("lnk", ctx.random), lang)).catch((e) =>
    ctx.log("warn", "profile link mail failed", { kind, error: String(e) })
  );
}

/**
 * Count a link request against the limit per client address (over it, 429: the asking address
 * is refused, never the e-mail's owner asking from elsewhere).
 * @throws AppError RATE_LIMITED past the limit
 */
function limitLinks(ctx: ProfileContext, c: WebC): Promise<void> {
  return countAttempt(ctx.store, ctx.clock, [
    [`link:a:${clientAddress(c)}`, WEB_LIMITS.linkPerAddress],
  ]);
}

/** What a sign-up asked for (absent on a sign-in). */
interface SignUpAsk {
  readonly company: string;
  readonly locale: "bg" | "en";
}

/**
 * The work behind a link request, done after the answer and the same for every address (the
 * answer neither says nor takes longer when the address has an account; docs/token-service.md §
 * Signing up and signing in): the silent caps on mails to one e-mail (per asking address, then
 * in all), the look-up, a new link, the mail. A sign-in for an address without an account
 * makes a link that is never mailed; a sign-up mails a sign-in link to a known address.
 * Failures are logged, never answered.
 * @param ctx store, clock, sessions, mailer, log
 * @param email the normalised address
 * @param address the asking client's address
 * @param signUp the sign-up's fields, or null for a sign-in
 */
function deliverLink(
  ctx: ProfileContext,
  email: string,
  address: string,
  signUp: SignUpAsk | null,
): void {
  // A sign-up's mail is in the language it chose for mails; a sign-in's in the page's (taken
  // now: the mail is written after the answer, outside the request).
  const lang = signUp?.locale ?? pageLang();
  const work = async () => {
    const mayMail = await withinLimit(
      ctx.store,
      ctx.clock,
      `mail:ea:${email}:${address}`,
      WEB_LIMITS.mailPerEmailAndAddress,
    ) &&
      await withinLimit(ctx.store, ctx.clock, `mail:e:${email}`, WEB_LIMITS.mailPerEmail);
    const known = await ctx.store.findWebUser("integrator", email);
    const code = known || !signUp
      ? await ctx.auth.newLink("signin", email)
      : await ctx.auth.newLink("signup", email, { ...signUp });
    if (!mayMail) {
      ctx.log("warn", "profile link mail not sent: too many for this address", {});
      return;
    }
    if (known) sendLinkMail(ctx, "signin", email, code, lang);
    else if (signUp) sendLinkMail(ctx, "signup", email, code, lang);
  };
  // After the answer is on its way: a timer, not a microtask, so none of it runs first.
  setTimeout(() => {
    work().catch((e) => ctx.log("warn", "profile link request failed", { error: String(e) }));
  }, 0);
}

/**
 * POST /sign-up (form `email`, `company`, `locale`): mail a sign-up link, or a sign-in link when
 * the address has an account already (after the answer: {@link deliverLink}).
 * @returns the "check your mail" page, the same either way
 * @throws AppError WEB_INPUT_INVALID (bad e-mail or company name), RATE_LIMITED (per client
 *   address)
 */
async function signUpHandler(ctx: ProfileContext, c: WebC): Promise<Response> {
  const f = await formOf(c);
  const email = normalEmail(f.email);
  const company = (f.company ?? "").trim();
  if (company.length < 2 || company.length > 200) {
    throw new AppError("WEB_INPUT_INVALID", "The company name needs 2 to 200 characters", {
      field: "company",
    });
  }
  const locale = f.locale === "en" ? "en" : "bg";
  await limitLinks(ctx, c);
  deliverLink(ctx, email, clientAddress(c), { company, locale });
  return checkMail(c, ctx);
}

/**
 * POST /sign-in (form `email`): mail a sign-in link when the address has an account (after the
 * answer: {@link deliverLink}).
 * @returns the "check your mail" page, the same whether it has one or not
 * @throws AppError WEB_INPUT_INVALID (bad e-mail), RATE_LIMITED (per client address)
 */
async function signInHandler(ctx: ProfileContext, c: WebC): Promise<Response> {
  const email = normalEmail((await formOf(c)).email);
  await limitLinks(ctx, c);
  deliverLink(ctx, email, clientAddress(c), null);
  return checkMail(c, ctx);
}

/**
 * GET /link (query `code`): a page with one button that posts the code, so that opening the
 * link does not use it up.
 * @returns the HTML page (200)
 */
function linkPage(ctx: ProfileContext, c: WebC): Promise<Response> {
  return mailedLinkPage(c, ctx.app, {
    title: { bg: "Вход с връзка от писмо", en: "Sign in with the mailed link" },
    action: `${ctx.app.base}/link`,
    code: c.req.query("code") ?? "",
    say: t("Натиснете, за да продължите.", "Press to continue."),
    button: html`<button class="primary" id="continue">${t("Продължи", "Continue")}</button>`,
  });
}

/**
 * POST /link (form `code`): take a one-time link; a sign-up link creates the integrator and
 * its person first. Then a new session.
 * @returns 303 to the keys page; the sign-in page with 400 when the link was used, has expired
 * or is of another purpose
 * @throws AppError RATE_LIMITED past the sign-in attempts per address
 */
async function takeLinkHandler(ctx: ProfileContext, c: WebC): Promise<Response> {
  const link = await takePostedLink(ctx, c);
  if (link?.purpose === "member-invite") {
    // A team invitation makes a new person only (members_page.ts).
    const member = await takeMemberInvite(ctx, link);
    if (!member) return signInPage(c, ctx, 400, INVITE_REFUSED);
    await ctx.auth.signIn(c, member);
    return c.redirect(`${ctx.app.base}/passkeys`, 303);
  }
  let user = link ? await ctx.store.findWebUser("integrator", link.email) : null;
  if (link && !user && link.purpose === "signup") {
    const now = ctx.clock.now();
    const integratorId = newId("int", ctx.random);
    const fresh = {
      id: newId("usr", ctx.random),
      role: "integrator" as const,
      email: link.email,
      integratorId,
      createdAt: now,
      createdBy: null,
    };
    const made = await ctx.store.createIntegratorWithUser({
      id: integratorId,
      name: link.payload.company ?? link.email,
      email: link.email,
      locale: link.payload.locale === "en" ? "en" : "bg",
      allowedOrigins: [],
      createdAt: now,
    }, fresh);
    user = made ? fresh : await ctx.store.findWebUser("integrator", link.email);
    if (made) ctx.log("info", "integrator signed up", { integratorId });
  }
  if (!link || !user || (link.purpose !== "signup" && link.purpose !== "signin")) {
    return signInPage(c, ctx, 400, {
      kind: "error",
      bg: "Тази връзка вече е използвана или е изтекла. Поискайте нова.",
      en: "This link was used already or has expired. Ask for a new one.",
    });
  }
  await ctx.auth.signIn(c, user);
  return c.redirect(`${ctx.app.base}/keys`, 303);
}

/**
 * POST /sign-out: end the session.
 * @returns the sign-in page with a "signed out" flash
 */
async function signOutHandler(ctx: ProfileContext, c: WebC): Promise<Response> {
  await ctx.auth.signOut(c);
  c.set("signedIn", null);
  return signInPage(c, ctx, 200, {
    kind: "ok",
    bg: "Излязохте от профила.",
    en: "You signed out.",
  });
}

function checkMail(c: WebC, ctx: ProfileContext): Promise<Response> {
  return ctx.app.page(
    c,
    null,
    bi("Проверете пощата си", "Check your mail"),
    html`<div class="card" id="check-mail">
      <p>${
      t(
        "Ако адресът може да получи връзка, изпратихме я. Тя важи веднъж, 30 минути.",
        "If the address can receive a link, we sent it. It works once, for 30 minutes.",
      )
    }</p>
      ${
      ctx.mailer ? "" : html`<p class="warn">${
        t(
          "Услугата няма настроен SMTP сървър: пишете на администратора.",
          "The service has no SMTP server configured: write to the administrator.",
        )
      }</p>`
    }
    </div>`,
  );
}

function signInPage(
  c: WebC,
  ctx: ProfileContext,
  status: 200 | 400,
  flash: Flash | null,
): Promise<Response> {
  const base = ctx.app.base;
  return ctx.app.page(
    c,
    null,
    bi("Профил на интегратора", "Integrator profile"),
    html`
      <div class="two">
        ${leadCard(
          t("Вход", "Sign in"),
          t(
            "С passkey, или с еднократна връзка на адреса на профила (първия път и ако загубите passkey). Без пароли.",
            "With a passkey, or a one-time link to the profile's address (the first time, and when a passkey is lost). No passwords.",
          ),
          html`
            <form class="stack" method="post" action="${base}/sign-in" id="sign-in-form">
              <label>${t(
                "Е-поща",
                "E-mail",
              )}<br><input type="email" name="email" id="sign-in-email" required autocomplete="email"></label>
              <button id="sign-in">${t("Изпрати връзка", "Send a link")}</button>
            </form>
            <p>${t("или", "or")}</p>
            <button type="button" class="primary" id="passkey-sign-in"
              data-base="${base}">${t(
                "Вход с passkey",
                "Sign in with a passkey",
              )}</button>
            <p id="passkey-status" role="status"></p>
          `,
        )}
        ${leadCard(
          t("Регистрация", "Sign up"),
          t(
            "Тестов ключ веднага след потвърждаване на адреса.",
            "A test key right after the address is confirmed.",
          ),
          html`
            <form class="stack" method="post" action="${base}/sign-up" id="sign-up-form">
              <label>${t(
                "Фирма",
                "Company",
              )}<br><input name="company" id="company" required minlength="2" maxlength="200" autocomplete="organization"></label>
              <label>${t(
                "Е-поща за връзка",
                "Contact e-mail",
              )}<br><input type="email" name="email" id="sign-up-email" required autocomplete="email"></label>
              <label>${t(
                "Език на писмата",
                "Language of the mails",
              )}<br><select name="locale" id="locale">
                              <option value="bg">Български</option><option value="en">English</option>
                            </select></label>
              <button class="primary" id="sign-up">${t("Регистрирай", "Sign up")}</button>
            </form>
          `,
        )}
      </div>
      ${resourcesCard()}
    `,
    status,
    flash,
  );
}
