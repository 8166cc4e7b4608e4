/**
 * The example integrator's server without a browser: its token endpoint answers only its own
 * page, only for the operations the page uses, and binds every token to the page's origin and
 * the SHA-256 of the exact body; its pages carry a strict CSP that allows the agent.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { decodeJwt } from "jose";
import { startExampleServer } from "../../examples/integrator/server.ts";
import { createKeyCli, startTokenService } from "../_helpers/e2e.ts";
import { stopWithin } from "../_helpers/browser.ts";

Deno.test("[example] the token endpoint binds origin and body, and answers only its page", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-example-" });
  const ts = await startTokenService(`${dir}/ts`);
  try {
    const key = await createKeyCli(`${dir}/ts`, "test");
    const ex = await startExampleServer({ tokenServiceUrl: ts.url, secretKey: key });
    ex.setAgentUrl("http://127.0.0.1:17470");
    try {
      const body = JSON.stringify({ eik: "121212121", year: 2025 });
      const ask = (payload: unknown, origin: string | null = ex.origin) =>
        fetch(`${ex.origin}/token`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(origin ? { origin } : {}),
          },
          body: JSON.stringify(payload),
        });

      const good = await ask({ typeId: "debt_payments", eik: "121212121", body });
      equal(good.status, 200);
      equal(good.headers.get("cache-control"), "no-store");
      const j = await good.json();
      deepStrictEqual(Object.keys(j).sort(), ["expiresAt", "token"]);
      const claims = decodeJwt(j.token);
      equal(claims.origin, ex.origin);
      equal(claims.typeId, "debt_payments");
      equal(claims.eik, "121212121");
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body));
      equal(claims.bodySha256, new Uint8Array(digest).toHex());

      const foreign = await ask({ typeId: "debt_payments", eik: "121212121", body }, "http://x.io");
      equal(foreign.status, 403);
      await foreign.body?.cancel();
      const noOrigin = await ask({ typeId: "debt_payments", eik: "121212121", body }, null);
      equal(noOrigin.status, 403);
      await noOrigin.body?.cancel();
      const other = await ask({ typeId: "vat", eik: "121212121", body });
      equal(other.status, 400, "only the page's operations");
      await other.body?.cancel();
      const eikMismatch = await ask({ typeId: "debt_payments", eik: "131313131", body });
      equal(eikMismatch.status, 400, "the body's EIK must be the token's");
      await eikMismatch.body?.cancel();

      const page = await fetch(ex.url);
      const csp = page.headers.get("content-security-policy")!;
      ok(csp.includes("connect-src 'self' http://127.0.0.1:17470"), csp);
      ok(csp.includes("script-src 'self'") && !csp.includes("unsafe"), csp);
      const html = await page.text();
      ok(html.includes('data-agent-url="http://127.0.0.1:17470"'));
      ok(!html.includes(key));
      const js = await (await fetch(`${ex.origin}/app.js`)).text();
      ok(js.includes("X-Svc-Batch-Id") && !js.includes(key), "the bundled client, no key");
    } finally {
      await ex.close();
    }
  } finally {
    await stopWithin(ts);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
