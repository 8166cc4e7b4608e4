/**
 * An in-process agent wired to an in-process token service (shared fake clock), the test
 * portal, and a recording browser opener.
 */
import { createLocalJWKSet } from "jose";
import { createAgentApp } from "../../src/agent/app.ts";
import { createLocalOps } from "../../src/agent/local/ops.ts";
import { Journal } from "../../src/agent/filing/journal.ts";
import type { OriginPolicy } from "../../src/agent/http/cors.ts";
import type { CallerBook } from "../../src/agent/http/callers.ts";
import type { ConsoleDeps } from "../../src/agent/console/deps.ts";
import type { RateLimitSettings } from "../../src/agent/http/rate_limit.ts";
import type { SenderConfig } from "../../src/agent/senders/senders.ts";
import { silentLogger } from "../../src/log.ts";
import { createTestPortal } from "../../src/portal/test/adapter.ts";
import type { PortalAdapter } from "../../src/portal/mod.ts";
import type { FakeClock } from "../../src/clock.ts";
import { TEST_ISSUER, tokenEnv } from "./token_env.ts";

/** Port the in-process agent pretends to listen on (Host check, page URLs). */
export const AGENT_PORT = 17470;
/** Base URL for `app.request`. */
export const AGENT = `http://127.0.0.1:${AGENT_PORT}`;

export async function agentEnv(
  opts: {
    senders?: SenderConfig[];
    minAgentVersion?: string;
    timeoutMs?: number;
    originPolicy?: OriginPolicy;
    rateLimits?: Partial<RateLimitSettings>;
    console?: ConsoleDeps;
    callers?: CallerBook;
    /** Wrap the test portal (e.g. to hold or time its answers). */
    portal?: (p: PortalAdapter, clock: FakeClock) => PortalAdapter;
  } = {},
) {
  const t = await tokenEnv({ minAgentVersion: opts.minAgentVersion });
  const opened: string[] = [];
  const journal = new Journal(":memory:");
  const agent = createAgentApp({
    journal,
    clock: t.clock,
    log: silentLogger,
    verifier: {
      getKey: (h, tok) => createLocalJWKSet(t.ring().jwks())(h, tok),
      issuer: TEST_ISSUER,
      audience: "svc-agent",
    },
    senders: opts.senders ?? [],
    portals: {
      test: (opts.portal ?? ((p) => p))(
        createTestPortal({ now: () => new Date(t.clock.now()) }),
        t.clock,
      ),
    },
    openBrowser: (url) => opened.push(url),
    port: () => AGENT_PORT,
    confirmTimeoutMs: opts.timeoutMs ?? 60_000,
    localOps: createLocalOps(),
    ...(opts.originPolicy ? { originPolicy: opts.originPolicy } : {}),
    ...(opts.rateLimits ? { rateLimits: opts.rateLimits } : {}),
    ...(opts.console ? { console: opts.console } : {}),
    ...(opts.callers ? { callers: opts.callers } : {}),
  });
  const { secret } = await t.newKey("test");
  const token = async (body: Record<string, unknown>) =>
    (await (await t.issue(secret, body)).json()).token as string;
  const call = (typeId: string, tok: string, body: unknown, headers: Record<string, string> = {}) =>
    agent.app.request(`${AGENT}/api/v1/operations/${typeId}`, {
      method: "POST",
      headers: { authorization: `Bearer ${tok}`, "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  /** Confirm or decline the newest dialog through its page. */
  const decide = async (decision: "confirm" | "decline", senderId?: string) => {
    const url = opened.at(-1)!;
    const page = await agent.app.request(url);
    const html = await page.text();
    const nonce = /name="nonce" value="([^"]+)"/.exec(html)![1]!;
    const checked = /name="senderId" value="([^"]+)" checked/.exec(html)?.[1] ?? "";
    return agent.app.request(`${url}/decision`, {
      method: "POST",
      headers: { origin: AGENT, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        seen: /name="seen" id="seen" value="(\d+)"/.exec(html)![1]!,
        nonce,
        decision,
        senderId: senderId ?? checked,
      }),
    });
  };
  return { ...t, agent, opened, secret, token, call, decide, journal };
}

/** Let pending promise callbacks run. */
export const tick = () => new Promise((r) => setTimeout(r, 0));

/** Wait until `cond()` holds (polling every 2 ms, at most `ms`). */
export async function waitFor(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 2));
  }
}
