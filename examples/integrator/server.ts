/**
 * The example integrator's web server. It holds the secret key (server side only) and offers the
 * page one endpoint, `POST /token`, that issues a fresh 5-second token per operation, bound to
 * the page's origin and to the SHA-256 of the exact request body. It serves the page (HTML,
 * CSS, the bundled script) with a strict CSP that allows connections only to itself and the
 * agent.
 * @module
 */
import { Hono } from "hono";
import { pageScript } from "./bundle.ts";

/** Operations the example page may ask tokens for. A real integrator also checks that the
 * signed-in user may act for the EIK before issuing a token. */
export const EXAMPLE_TYPE_IDS: ReadonlySet<string> = new Set([
  "dec1_6_batch",
  "debt_payments",
  "due_amounts",
  "taxpayers",
  "debt_payments_types",
  "nap_catalog",
]);

/** Settings of {@link startExampleServer}. */
export interface ExampleServerOptions {
  /** The token service's base URL. */
  readonly tokenServiceUrl: string;
  /** The integrator's secret key (`svc_test_…`); it never leaves this process. */
  readonly secretKey: string;
  /** The agent's base URL shown to the page (may be set later with `setAgentUrl`). */
  readonly agentUrl?: string;
  /** Port on 127.0.0.1 (default 0: any free port). */
  readonly port?: number;
}

/** A running example server. */
export interface ExampleServer {
  /** The page URL (`http://127.0.0.1:PORT/`). */
  readonly url: string;
  /** The page's origin, bound into every token. */
  readonly origin: string;
  setAgentUrl(url: string): void;
  close(): Promise<void>;
}

const PAGE_DIR = new URL("./page/", import.meta.url);
const EIK = /^[0-9]{9,13}$/;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

async function sha256Hex(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return new Uint8Array(d).toHex();
}

function securityHeaders(agentOrigin: string): Record<string, string> {
  return {
    "content-security-policy": [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      `connect-src 'self' ${agentOrigin}`,
      "form-action 'none'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join("; "),
    "x-content-type-options": "nosniff",
    // same-origin, not no-referrer: with no-referrer browsers may send `Origin: null` on POSTs.
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
  };
}

/** The token request the page sends. */
interface TokenRequest {
  typeId: string;
  eik?: string;
  eiks?: string[];
  /** The exact body the page will send to the agent. */
  body: string;
}

function parseTokenRequest(raw: unknown): TokenRequest | string {
  if (!raw || typeof raw !== "object") return "the body must be a JSON object";
  const r = raw as Record<string, unknown>;
  if (typeof r.typeId !== "string" || !EXAMPLE_TYPE_IDS.has(r.typeId)) {
    return "typeId is not one this page may use";
  }
  if (r.eik !== undefined && (typeof r.eik !== "string" || !EIK.test(r.eik))) {
    return "eik must be 9 to 13 digits";
  }
  if (
    r.eiks !== undefined &&
    (!Array.isArray(r.eiks) || !r.eiks.every((e) => typeof e === "string" && EIK.test(e)))
  ) return "eiks must be a list of EIKs";
  if (typeof r.body !== "string" || r.body.length > 65_536) return "body must be the JSON text";
  let parsed: unknown;
  try {
    parsed = JSON.parse(r.body);
  } catch {
    return "body is not JSON";
  }
  const bodyEik = (parsed as { eik?: unknown } | null)?.eik;
  if (bodyEik !== undefined && bodyEik !== r.eik) return "the body's eik differs from eik";
  return r as unknown as TokenRequest;
}

/**
 * The example app (routes only; {@link startExampleServer} serves it).
 * @param opts token service and key
 * @param ownOrigin the page's origin (known once the server listens)
 * @param agentUrl current agent URL
 * @returns the Hono app
 */
export function exampleApp(
  opts: Pick<ExampleServerOptions, "tokenServiceUrl" | "secretKey">,
  ownOrigin: () => string,
  agentUrl: () => string,
): Hono {
  const app = new Hono();
  const agentOrigin = () => new URL(agentUrl()).origin;

  app.get("/", async (c) => {
    const html = (await Deno.readTextFile(new URL("index.html", PAGE_DIR)))
      .replaceAll("{{AGENT_URL}}", escapeHtml(agentUrl()));
    return c.html(html, 200, securityHeaders(agentOrigin()));
  });
  app.get(
    "/app.css",
    async (c) =>
      c.body(await Deno.readTextFile(new URL("app.css", PAGE_DIR)), 200, {
        ...securityHeaders(agentOrigin()),
        "content-type": "text/css; charset=utf-8",
      }),
  );
  app.get("/app.js", async (c) =>
    c.body(await pageScript(), 200, {
      ...securityHeaders(agentOrigin()),
      "content-type": "text/javascript; charset=utf-8",
    }));

  app.post("/token", async (c) => {
    // Only our own page may ask (the browser sets Origin; other sites cannot forge it).
    if (c.req.header("origin") !== ownOrigin()) {
      return c.json({ error: "Only this site's page may request tokens" }, 403);
    }
    const req = parseTokenRequest(await c.req.json().catch(() => null));
    if (typeof req === "string") return c.json({ error: req }, 400);
    const res = await fetch(new URL("/api/v1/tokens/issue", opts.tokenServiceUrl), {
      method: "POST",
      headers: {
        authorization: `Bearer ${opts.secretKey}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({
        typeId: req.typeId,
        ...(req.eik ? { eik: req.eik } : {}),
        ...(req.eiks ? { eiks: req.eiks } : {}),
        origin: ownOrigin(),
        bodySha256: await sha256Hex(req.body),
      }),
      signal: AbortSignal.timeout(5_000),
    });
    const j = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
    if (res.status !== 200) {
      // Pass the token service's reason on (never the key): 402/403 need the integrator's action.
      return c.json(
        { error: j.error ?? "Token refused", errorCode: j.errorCode, source: "token-service" },
        res.status === 400 || res.status === 402 || res.status === 403 ? res.status : 502,
        { "cache-control": "no-store" },
      );
    }
    return c.json({ token: j.token, expiresAt: j.expiresAt }, 200, { "cache-control": "no-store" });
  });
  return app;
}

/**
 * Start the example server on 127.0.0.1 and bundle the page script.
 * @param opts token service, secret key, agent URL, port
 * @returns the running server
 */
export async function startExampleServer(opts: ExampleServerOptions): Promise<ExampleServer> {
  await pageScript();
  let agentUrl = opts.agentUrl ?? "http://127.0.0.1:17470";
  let origin = "";
  const app = exampleApp(opts, () => origin, () => agentUrl);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: opts.port ?? 0, onListen: () => {} },
    app.fetch,
  );
  origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    url: `${origin}/`,
    origin,
    setAgentUrl(url) {
      agentUrl = url.replace(/\/$/, "");
    },
    close: () => server.shutdown(),
  };
}
