/**
 * The offline API docs (`docsRoutes`, mounted at /docs on the real agent app): in process (the
 * page, its CSP without inline script, the Swagger UI files from swagger-ui-dist) and in
 * Chromium (Swagger UI renders the API title with no request leaving the agent and no CSP
 * violation).
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import type { JWTVerifyGetKey } from "jose";
import { createAgentApp } from "../../src/agent/app.ts";
import { docsRoutes } from "../../src/agent/http/docs_page.ts";
import { silentLogger } from "../../src/log.ts";
import { createTestPortal } from "../../src/portal/test/adapter.ts";
import { systemClock } from "../../src/clock.ts";
import { launchChromium, skipBrowser } from "../_helpers/browser.ts";

const noKeys: JWTVerifyGetKey = () => Promise.reject(new Error("no keys in this test"));

/** The real agent app with the docs mounted as the lead will mount them. */
function agentWithDocs(port: () => number) {
  const { app } = createAgentApp({
    clock: systemClock,
    log: silentLogger,
    verifier: { getKey: noKeys, issuer: "http://127.0.0.1:1", audience: "svc-agent" },
    senders: [],
    portals: { test: createTestPortal({ now: () => new Date() }) },
    openBrowser: () => {},
    port,
  });
  app.route("/docs", docsRoutes());
  return app;
}

const AGENT = "http://127.0.0.1:17470";

Deno.test("[docs] /docs serves Swagger UI from swagger-ui-dist with a strict CSP", async () => {
  const app = agentWithDocs(() => 17470);
  const res = await app.request(`${AGENT}/docs`);
  equal(res.status, 200);
  const csp = res.headers.get("content-security-policy")!;
  ok(csp.includes("script-src 'self'") && !csp.includes("unsafe"), csp);
  ok(csp.includes("frame-ancestors 'none'"));
  const html = await res.text();
  ok(html.includes('src="/docs/swagger-ui-bundle.js"'));
  ok(html.includes('src="/docs/init.js"'));
  ok(html.includes('data-spec="/api/v1/openapi.json"'));
  deepStrictEqual(html.match(/<script(?![^>]*\ssrc=)[^>]*>/g), null, "no inline script");
  ok(!/https?:\/\/(?!127\.0\.0\.1)/.test(html.replace(/http:\/\/127\.0\.0\.1:\d+/g, "")));

  const bundle = await app.request(`${AGENT}/docs/swagger-ui-bundle.js`);
  equal(bundle.status, 200);
  ok(bundle.headers.get("content-type")!.startsWith("text/javascript"));
  const expected = await Deno.readFile(
    new URL("swagger-ui-bundle.js", import.meta.resolve("swagger-ui-dist/package.json")),
  );
  equal((await bundle.arrayBuffer()).byteLength, expected.byteLength);
  const css = await app.request(`${AGENT}/docs/swagger-ui.css`);
  ok(css.headers.get("content-type")!.startsWith("text/css"));
  await css.body?.cancel();
  const init = await app.request(`${AGENT}/docs/init.js`);
  ok((await init.text()).includes("SwaggerUIBundle("));

  const slash = await app.request(`${AGENT}/docs/`);
  deepStrictEqual([slash.status, slash.headers.get("location")], [301, "/docs"]);
  for (const path of ["/docs/package.json", "/docs/index.html", "/docs/x/swagger-ui.css"]) {
    const r = await app.request(`${AGENT}${path}`);
    equal(r.status >= 400 && r.status < 600, true, path);
    equal((await r.json()).errorCode, "NOT_FOUND", path);
  }
});

Deno.test({
  name: "[browser] the /docs page renders the API offline",
  ignore: skipBrowser(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    let port = 0;
    const app = agentWithDocs(() => port);
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
    port = server.addr.port;
    const origin = `http://127.0.0.1:${port}`;
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      const outside: string[] = [];
      const problems: string[] = [];
      page.on("request", (r) => {
        if (!r.url().startsWith(origin) && !r.url().startsWith("data:")) outside.push(r.url());
      });
      page.on("console", (m) => {
        if (m.type() === "error") problems.push(m.text());
      });
      page.on("pageerror", (e) => problems.push(String(e)));
      await page.goto(`${origin}/docs`);
      await page.waitForSelector(".information-container .title", { timeout: 20_000 });
      ok((await page.textContent(".information-container .title"))!.includes("Local filing agent"));
      await page.waitForSelector(".opblock-tag-section");
      ok((await page.content()).includes("/api/v1/operations/debt_payments"));
      deepStrictEqual(outside, [], "no request leaves the agent");
      deepStrictEqual(problems, [], "no console errors or CSP violations");
    } finally {
      await browser.close();
      await server.shutdown();
    }
  },
});
