/**
 * One language at a time on the profile and the desk (docs/token-service.md § Languages): every
 * page in Bulgarian by default with no English beside it, in English after the switch (a cookie,
 * with no Cyrillic left but the switch back), the switch coming back only to a page of its own
 * application, and the catalog's errors in the chosen language. In process over the token app
 * with a real SMTP sink, on SQLite in memory.
 */
import { equal, match, ok } from "node:assert/strict";
import {
  cookieSet,
  firstAdmin,
  signUp,
  startWebEnv,
  webReq,
  webText,
} from "../../_helpers/web_people.ts";
import type { TokenService } from "../../../src/token/mod.ts";

const PROFILE_PAGES = [
  "/profile/keys",
  "/profile/usage",
  "/profile/log",
  "/profile/contract",
  "/profile/passkeys",
  "/profile/sessions",
  "/profile/members",
];
const DESK_PAGES = [
  "/admin/applications",
  "/admin/integrators",
  "/admin/contracts",
  "/admin/statements",
  "/admin/usage",
  "/admin/audit",
  "/admin/admins",
  "/admin/sessions",
];
const PROFILE_NAV = {
  bg: ["Ключове", "Използване", "Заявки", "Договор", "Passkeys", "Сесии", "Екип", "Изход"],
  en: ["Keys", "Usage", "Request log", "Contract", "Passkeys", "Sessions", "Team", "Sign out"],
};
const DESK_NAV = {
  bg: [
    "Заявки",
    "Интегратори",
    "Договори",
    "Справки",
    "Използване",
    "Одит",
    "Администратори",
    "Сесии",
    "Изход",
  ],
  en: [
    "Applications",
    "Integrators",
    "Contracts",
    "Statements",
    "Usage",
    "Audit",
    "Admins",
    "Sessions",
    "Sign out",
  ],
};

/** The words a person reads: the page without its tags, scripts' names and attributes. */
const words = (page: string): string =>
  page.replace(/<head>[\s\S]*<\/head>/, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

/** The nav's and the sign-out button's labels, as drawn. */
const labels = (page: string): string[] =>
  [...page.matchAll(/<a href="[^"]*" id="nav-[^"]+"[^>]*>([^<]*)<\/a>|id="sign-out">([^<]*)</g)]
    .map((m) => (m[1] ?? m[2])!.trim());

async function checkPages(
  svc: TokenService,
  cookie: string,
  pages: string[],
  nav: { bg: string[]; en: string[] },
) {
  for (const path of pages) {
    const bg = await webText(svc, path, { cookie });
    equal(bg.status, 200, `${path}: ${bg.text.slice(0, 200)}`);
    match(bg.text, /<html lang="bg">/, path);
    ok(!bg.text.includes('class="en"'), `${path}: no English beside the Bulgarian`);
    equal(labels(bg.text).join("|"), nav.bg.join("|"), path);
    for (const en of nav.en.filter((x) => !nav.bg.includes(x))) {
      ok(!words(bg.text).includes(` ${en} `), `${path}: "${en}" in bg`);
    }
    match(bg.text, /id="lang-switch"[^>]*>English</, path);

    const en = await webText(svc, path, { cookie: `${cookie}; svc_lang=en` });
    equal(en.status, 200, path);
    match(en.text, /<html lang="en">/, path);
    equal(labels(en.text).join("|"), nav.en.join("|"), path);
    match(en.text, /id="lang-switch"[^>]*>Български</, path);
    // Nothing Bulgarian left but the switch back.
    const cyrillic = words(en.text).replace("Български", "").match(/[А-Яа-я][^<]{0,40}/);
    equal(cyrillic, null, `${path}: Bulgarian on the English page: ${cyrillic?.[0]}`);
  }
}

Deno.test("the profile and the desk show one language: Bulgarian, English on the switch", async () => {
  const e = await startWebEnv("sqlite");
  try {
    const svc = e.svcs[0]!;
    // The sign-in pages, before any session.
    for (
      const [path, bgText, enText] of [
        ["/profile", "Регистрация", "Sign up"],
        ["/admin", "Вход с passkey", "Sign in with a passkey"],
      ] as const
    ) {
      const bg = await webText(svc, path);
      match(bg.text, new RegExp(bgText), path);
      ok(!bg.text.includes(enText), `${path}: no "${enText}" in bg`);
      const en = await webText(svc, path, { cookie: "svc_lang=en" });
      match(en.text, new RegExp(enText), path);
      ok(!en.text.includes(bgText), `${path}: no "${bgText}" in en`);
    }
    // The profile's home links the guide, the OpenAPI document, the client package, the agent.
    const home = await webText(svc, "/profile");
    for (const id of ["res-guide", "res-openapi", "res-client", "res-agent"]) {
      ok(home.text.includes(`id="${id}"`), id);
    }
    match(home.text, /href="\/api\/v1\/openapi\.json"/);

    const owner = await signUp(e, "owner@lang.test", "Lang Test Ltd", "en");
    await checkPages(svc, owner.cookie, PROFILE_PAGES, PROFILE_NAV);
    const admin = await firstAdmin(e, "root@lang.test");
    await checkPages(svc, admin.cookie, DESK_PAGES, DESK_NAV);

    // The switch: a cookie for the whole origin, then back to the page (of this application).
    const sw = await webReq(svc, "/profile/language?to=en&back=%2Fprofile%2Fusage", {
      cookie: owner.cookie,
    });
    equal(sw.status, 303);
    equal(sw.headers.get("location"), "/profile/usage");
    equal(cookieSet(sw, "svc_lang"), "svc_lang=en");
    match(sw.headers.get("set-cookie")!, /Path=\//);
    for (const back of ["//evil.test/x", "https://evil.test/", "/admin/audit", "/profilex"]) {
      const q = new URLSearchParams({ to: "bg", back });
      const r = await webReq(svc, `/profile/language?${q}`);
      equal(r.headers.get("location"), "/profile", back);
    }
    const deskSw = await webReq(svc, "/admin/language?to=en&back=%2Fadmin%2Faudit");
    equal(deskSw.headers.get("location"), "/admin/audit");
    equal(cookieSet(deskSw, "svc_lang"), "svc_lang=en");

    // A catalog error in the chosen language, its code kept for whoever helps.
    const bgErr = await webText(svc, "/profile/log/no-such-request", { cookie: owner.cookie });
    equal(bgErr.status, 404);
    match(bgErr.text, /data-code="NOT_FOUND"/);
    match(bgErr.text, /id="error-words">Няма такъв запис\.</);
    ok(!bgErr.text.includes("in your log"), "no English message on the Bulgarian page");
    const enErr = await webText(svc, "/profile/log/no-such-request", {
      cookie: `${owner.cookie}; svc_lang=en`,
    });
    match(enErr.text, /id="error-words">No request &quot;no-such-request&quot; in your log</);
    // An error of the guard (outside the route) too.
    const noCsrf = await webText(svc, "/profile/keys", { form: {}, cookie: owner.cookie });
    equal(noCsrf.status, 403);
    match(noCsrf.text, /data-code="WEB_CSRF_INVALID"/);
    match(noCsrf.text, /Страницата е остаряла: презаредете я и опитайте отново\./);
  } finally {
    await e.close();
  }
});
