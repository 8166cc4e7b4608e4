/**
 * Offline API documentation of the agent: Swagger UI from the npm package `swagger-ui-dist`
 * (served by the agent itself, no CDN), pointed at `/api/v1/openapi.json`. Mounted by the app
 * at `/docs`: `app.route("/docs", docsRoutes())`. Strict CSP: no inline script or style, the
 * initializer is its own file (`/docs/init.js`); the page may not be framed.
 * @module
 */
import { Hono } from "hono";
import { escapeToBuffer } from "hono/utils/html";
import { AppError } from "../../contract/mod.ts";

/** Options of {@link docsRoutes}. */
export interface DocsOptions {
  /** The OpenAPI document's path on the agent (default `/api/v1/openapi.json`). */
  readonly specPath?: string;
  /** The page title (default "Local filing agent — API"). */
  readonly title?: string;
  /**
   * The folder holding Swagger UI's files (a `file:` URL ending in `/`). Default: the
   * installed `swagger-ui-dist` package; the portable package passes its `app/assets/` copy.
   */
  readonly assetsDir?: URL;
}

/** Files served from swagger-ui-dist, with their content types. */
const ASSETS: Readonly<Record<string, string>> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
};

/** The initializer (served as a file: the CSP allows no inline script). It loads the spec,
 * points "Try it out" at this agent's own origin, and starts Swagger UI without calling any
 * outside service (no validator badge). */
const INIT_JS = `"use strict";
window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  fetch(root.dataset.spec, { headers: { accept: "application/json" } })
    .then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.json();
    })
    .then(function (spec) {
      spec.servers = [{ url: location.origin, description: "This agent" }];
      window.ui = SwaggerUIBundle({
        spec: spec,
        domNode: root,
        deepLinking: true,
        validatorUrl: null,
        presets: [SwaggerUIBundle.presets.apis],
        layout: "BaseLayout",
      });
    })
    .catch(function (e) {
      root.textContent = "Cannot load the API description: " + e.message;
    });
});
`;

const OWN_CSS = `body{margin:0;font-family:system-ui,sans-serif}
.docs-note{margin:0;padding:.6rem 1.2rem;background:#f3f6fb;border-bottom:1px solid #c9d6ea;font-size:.9rem}`;

/** Security headers of every docs response. */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; "),
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-resource-policy": "same-origin",
};

/** The directory of the installed swagger-ui-dist package. */
export function swaggerUiDir(): URL {
  return new URL(".", import.meta.resolve("swagger-ui-dist/package.json"));
}

/** hono's HTML escaper (& < > " ') over one string. */
function escapeHtml(s: string): string {
  const out: [string] = [""];
  escapeToBuffer(s, out);
  return out[0];
}

function renderPage(base: string, specPath: string, title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${base}swagger-ui.css">
<link rel="stylesheet" href="${base}docs.css">
<link rel="icon" type="image/png" href="${base}favicon-32x32.png" sizes="32x32">
</head>
<body>
<p class="docs-note">Calls need a 5-second token from your server, issued for exactly the
operation called (see the integration guide). This page works offline.</p>
<div id="swagger-ui" data-spec="${escapeHtml(specPath)}"></div>
<script src="${base}swagger-ui-bundle.js"></script>
<script src="${base}init.js"></script>
</body>
</html>
`;
}

/**
 * The docs sub-app: `GET /` (the page), `GET /init.js`, `GET /docs.css` and the Swagger UI
 * files. Asset URLs are derived from the request path, so the app works wherever it is mounted.
 * @param opts spec path, title, Swagger UI's folder
 * @returns a Hono sub-app to mount at `/docs`
 */
export function docsRoutes(opts: DocsOptions = {}): Hono {
  const specPath = opts.specPath ?? "/api/v1/openapi.json";
  const title = opts.title ?? "Local filing agent — API";
  const cache = new Map<string, Uint8Array>();
  const r = new Hono();
  const dir = () => opts.assetsDir ?? swaggerUiDir();

  const page = (path: string) => {
    const base = `${path.replace(/\/+$/, "")}/`;
    return new Response(renderPage(base, specPath, title), {
      headers: {
        ...SECURITY_HEADERS,
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
      },
    });
  };
  const text = (body: string, type: string) =>
    new Response(body, {
      headers: { ...SECURITY_HEADERS, "content-type": type, "cache-control": "no-cache" },
    });

  r.get("/", (c) => page(c.req.path));
  r.get("/init.js", () => text(INIT_JS, "text/javascript; charset=utf-8"));
  r.get("/docs.css", () => text(OWN_CSS, "text/css; charset=utf-8"));
  r.get("/:file", async (c) => {
    const file = c.req.param("file");
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!type) throw new AppError("NOT_FOUND", "No such route");
    let bytes = cache.get(file);
    if (!bytes) {
      bytes = await Deno.readFile(new URL(file, dir()));
      cache.set(file, bytes);
    }
    return new Response(bytes as BodyInit, {
      headers: {
        ...SECURITY_HEADERS,
        "content-type": type,
        "cache-control": "public, max-age=86400",
      },
    });
  });
  // `/docs/` (trailing slash) redirects to the page.
  r.get("/*", (c) => {
    const p = c.req.path;
    if (p.endsWith("/") && p.length > 1) return c.redirect(p.replace(/\/+$/, ""), 301);
    throw new AppError("NOT_FOUND", "No such route");
  });
  return r;
}
