/**
 * The pages' static style sheets and scripts (src/web_assets.ts, docs/architecture.md § Page
 * assets), over each application's own HTTP: every page of the console, the confirmation, the
 * profile and the desk has a CSP without `'unsafe-inline'` and without a nonce, no inline script
 * or style, and every file it loads is served under a name whose hash is the hash of what is
 * served, with an `integrity` equal to its SHA-256 and, for a script, that hash in the CSP.
 */
import { deepStrictEqual, equal, match, ok, throws } from "node:assert/strict";
import { createHash } from "node:crypto";
import { agentEnv, waitFor } from "./_helpers/agent_env.ts";
import { consoleEnv } from "./_helpers/console_env.ts";
import { tokenEnv } from "./_helpers/token_env.ts";
import { assetResponse, scriptSrc, webAsset } from "../src/web_assets.ts";
import { CONFIRM_ASSETS } from "../src/agent/confirm/mod.ts";
import { CONSOLE_ASSETS } from "../src/agent/console/mod.ts";

const EIK = "121212121";

/** What one page loads: its CSP and the files it names. */
interface Loaded {
  readonly csp: string;
  readonly files: { kind: "style" | "script"; url: string; integrity: string }[];
}

/**
 * Check a page: its CSP, no inline script or style, and each file it names: fetched through
 * `get`, its name's hash, its integrity, and (scripts) the CSP's hash source.
 */
async function checkPage(
  what: string,
  res: Response,
  get: (url: string) => Response | Promise<Response>,
): Promise<Loaded> {
  const csp = res.headers.get("content-security-policy") ?? "";
  const page = await res.text();
  ok(csp.length > 0, `${what}: a CSP`);
  ok(!csp.includes("unsafe-inline"), `${what}: ${csp}`);
  ok(!csp.includes("nonce-"), `${what}: ${csp}`);
  ok(!csp.includes("unsafe-eval"), `${what}: ${csp}`);
  match(csp, /(?:^|; )style-src 'self'(?:;|$)/, what);
  ok(!/<style[\s>]/i.test(page), `${what}: an inline <style>`);
  ok(!/\snonce=/i.test(page), `${what}: a nonce attribute`);
  for (const m of page.matchAll(/<script\b([^>]*)>/gi)) {
    match(m[1]!, /\ssrc="/, `${what}: an inline <script>`);
  }
  const files: Loaded["files"] = [];
  for (const m of page.matchAll(/<link rel="stylesheet" href="([^"]+)" integrity="([^"]+)">/g)) {
    files.push({ kind: "style", url: m[1]!, integrity: m[2]! });
  }
  for (const m of page.matchAll(/<script src="([^"]+)" integrity="([^"]+)"><\/script>/g)) {
    files.push({ kind: "script", url: m[1]!, integrity: m[2]! });
  }
  equal(
    files.length,
    [...page.matchAll(/<link rel="stylesheet"|<script\b/g)].length,
    `${what}: every style sheet and script carries its integrity`,
  );
  ok(files.some((f) => f.kind === "style"), `${what}: loads a style sheet`);
  const scriptSources = /(?:^|; )script-src ([^;]+)/.exec(csp)?.[1]?.split(" ") ?? [];
  for (const f of files) {
    const r = await get(f.url);
    equal(r.status, 200, `${what}: ${f.url}`);
    equal(r.headers.get("cache-control"), "public, max-age=31536000, immutable", f.url);
    match(r.headers.get("content-type")!, f.kind === "style" ? /^text\/css/ : /^text\/javascript/);
    const body = new Uint8Array(await r.arrayBuffer());
    const digest = createHash("sha256").update(body).digest();
    equal(f.integrity, `sha256-${digest.toString("base64")}`, `${what}: ${f.url}'s integrity`);
    const hex = /\.([0-9a-f]{8})\.(?:css|js)$/.exec(f.url)?.[1];
    equal(hex, digest.toString("hex").slice(0, 8), `${what}: ${f.url}'s name carries its hash`);
    if (f.kind === "script") {
      ok(scriptSources.includes(`'${f.integrity}'`), `${what}: ${f.url} named in ${csp}`);
    }
  }
  ok(!scriptSources.includes("'self'"), `${what}: scripts by hash only (${csp})`);
  return { csp, files };
}

Deno.test("webAsset(): hashed name, SRI integrity, immutable answer, CSP script-src", async () => {
  const a = webAsset("x.js", "alert(1);\n");
  const digest = createHash("sha256").update("alert(1);\n").digest();
  equal(a.file, `x.${digest.toString("hex").slice(0, 8)}.js`);
  equal(a.integrity, `sha256-${digest.toString("base64")}`);
  equal(a.contentType, "text/javascript; charset=utf-8");
  equal(webAsset("y.css", "a{}").contentType, "text/css; charset=utf-8");
  throws(() => webAsset("z.html", "<p>"), /not a page asset/);
  const r = assetResponse([a], a.file)!;
  equal(await r.text(), "alert(1);\n");
  equal(r.headers.get("cache-control"), "public, max-age=31536000, immutable");
  equal(r.headers.get("x-content-type-options"), "nosniff");
  equal(assetResponse([a], "x.js"), null, "only the hashed name is served");
  equal(scriptSrc([a]), `script-src '${a.integrity}'`);
  equal(scriptSrc([]), "script-src 'none'");
  // Each application's table: unique names, the body as read from the source file.
  for (const table of [CONSOLE_ASSETS, CONFIRM_ASSETS]) {
    equal(new Set(table.map((x) => x.file)).size, table.length);
    for (const x of table) {
      const src = x.name === "page.css" ? new URL("../src/web_page.css", import.meta.url) : new URL(
        `../src/agent/${table === CONSOLE_ASSETS ? "console" : "confirm"}/assets/${x.name}`,
        import.meta.url,
      );
      equal(x.body, await Deno.readTextFile(src), x.name);
    }
  }
});

Deno.test("console pages: CSP without inline or nonce; each file's hash matches what is served", async () => {
  const e = await consoleEnv();
  try {
    const s = await e.signIn();
    const get = (url: string) => e.req(url);
    const paths = ["/", "/console/senders", "/console/filings", "/console/diagnostics"];
    for (const path of [...paths, "/console/log"]) {
      const res = await e.req(path, { headers: { cookie: s.cookie } });
      equal(res.status, 200, path);
      const { files } = await checkPage(path, res, get);
      deepStrictEqual(
        files.filter((f) => f.kind === "style").map((f) => f.url.replace(/\.\w{8}\./, ".")),
        ["/assets/page.css", "/assets/console.css"],
      );
      if (path === "/console/senders") {
        ok(files.some((f) => /^\/assets\/senders_file\.\w{8}\.js$/.test(f.url)), path);
      }
    }
    // Without a session: the explanation page is drawn by the same frame.
    await checkPage("no session", await e.req("/console/senders"), get);
    equal((await e.req("/assets/console.00000000.css")).status, 404);
  } finally {
    await e.cleanup();
  }
});

Deno.test("confirmation pages: CSP without inline or nonce; each file's hash matches what is served", async () => {
  const e = await agentEnv({ senders: [{ id: "ivan", displayName: "Иван", active: true }] });
  const get = (url: string) => e.agent.app.request(`http://127.0.0.1:17470${url}`);
  const call = e.call("due_amounts", await e.token({ typeId: "due_amounts", eik: EIK }), {
    eik: EIK,
  });
  await waitFor(() => e.opened.length === 1);
  const open = await checkPage("dialog", await e.agent.app.request(e.opened[0]!), get);
  ok(open.files.some((f) => /^\/assets\/confirm\.\w{8}\.js$/.test(f.url)));
  const done = await e.decide("confirm");
  equal(done.status, 200);
  await checkPage("after the decision", done, get);
  equal((await call).status, 200);
  const closed = await e.agent.app.request(e.opened[0]!);
  equal(closed.status, 404);
  await checkPage("closed", closed, get);
});

Deno.test("profile and desk pages: CSP without inline or nonce; each file's hash matches what is served", async () => {
  const t = await tokenEnv();
  const get = (url: string) => t.app.request(url);
  for (const path of ["/profile", "/admin"]) {
    const res = await t.app.request(path, { headers: { "sec-fetch-site": "none" } });
    equal(res.status, 200, path);
    const { files } = await checkPage(path, res, get);
    const base = path.startsWith("/admin") ? "/admin" : "/profile";
    deepStrictEqual(files.map((f) => f.url.replace(/\.\w{8}\./, ".")), [
      `${base}/assets/page.css`,
      `${base}/assets/web.css`,
      `${base}/assets/webauthn.js`,
      `${base}/assets/page.js`,
    ]);
  }
});
