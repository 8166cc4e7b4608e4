/**
 * A change to the profile or the desk is accepted only when its `Origin` is the service's public
 * URL, or, without an `Origin`, when its fetch metadata says `Sec-Fetch-Site: same-origin`
 * (docs/token-service.md § The profile, security). The session cookie and the CSRF token alone
 * are not enough, and an `Origin` matching a forged `Host` is refused.
 */
import { equal, match } from "node:assert/strict";
import { sqliteTokenStore } from "../../../src/token/mod.ts";
import { req, signUp, webEnv } from "./web_env.ts";

Deno.test("a change needs the public URL's Origin or same-origin fetch metadata", async () => {
  const e = await webEnv(sqliteTokenStore(":memory:"));
  try {
    const s = await signUp(e, "a@one.test", "One Ltd");
    const keys = async () => (await e.store.listKeys()).length;
    const before = await keys();
    const form = { mode: "test", label: "", csrf: s.csrf };

    // Cookie and CSRF token, but nothing says where the request comes from.
    const none = await req(e, "/profile/keys", { form, cookie: s.cookie, bare: true });
    equal(none.status, 403);
    match(await none.text(), /WEB_ORIGIN_REQUIRED/);

    // An Origin that matches only the Host the request was sent to (a forged Host).
    const forged = await req(e, "http://evil.test/profile/keys", {
      form,
      cookie: s.cookie,
      bare: true,
      headers: { origin: "http://evil.test", host: "evil.test" },
    });
    equal(forged.status, 403);
    match(await forged.text(), /WEB_CROSS_SITE/);

    // Fetch metadata other than same-origin, without an Origin.
    const site = await req(e, "/profile/keys", {
      form,
      cookie: s.cookie,
      bare: true,
      headers: { "sec-fetch-site": "none" },
    });
    equal(site.status, 403);
    match(await site.text(), /WEB_ORIGIN_REQUIRED/);
    equal(await keys(), before);

    // The desk's open pages too: a change without Origin never reaches the handler.
    const desk = await req(e, "/admin/link", { form: { code: "x" }, bare: true });
    equal(desk.status, 403);
    match(await desk.text(), /WEB_ORIGIN_REQUIRED/);

    // Accepted: the public URL's Origin; or no Origin with Sec-Fetch-Site: same-origin.
    const byOrigin = await req(e, "/profile/keys", {
      form,
      cookie: s.cookie,
      bare: true,
      headers: { origin: "http://svc.test" },
    });
    equal(byOrigin.status, 303);
    await byOrigin.body?.cancel();
    const bySite = await req(e, "/profile/keys", {
      form,
      cookie: s.cookie,
      bare: true,
      headers: { "sec-fetch-site": "same-origin" },
    });
    equal(bySite.status, 303);
    await bySite.body?.cancel();
    equal(await keys(), before + 2);
  } finally {
    await e.close();
  }
});
