/**
 * The console's in-process test world (tests/agent/console_*_test.ts).
 * @module
 */
import { equal, match } from "node:assert/strict";
import { AGENT, agentEnv } from "./agent_env.ts";
import { CallerBook } from "../../src/agent/http/callers.ts";
import type { ConsoleDeps } from "../../src/agent/console/deps.ts";

/** The console link secret the in-process agent is given. */
export const CONSOLE_SECRET = "s".repeat(43);
const SECRET = CONSOLE_SECRET;

/**
 * An in-process agent with the console (a temporary data folder, an unreachable token service)
 * and a way to sign in as `agent open` does.
 * @param extra console deps to change
 * @param more agent options (a wrapped test portal)
 */
export async function consoleEnv(
  extra: Partial<ConsoleDeps> = {},
  more: Pick<Parameters<typeof agentEnv>[0] & object, "portal"> = {},
) {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-console-" });
  const callers = new CallerBook(() => Date.now());
  const e = await agentEnv({
    ...more,
    callers,
    console: {
      dataDir,
      tokenServiceUrl: "http://127.0.0.1:9", // nothing listens: "unreachable"
      linkSecret: SECRET,
      fetch: () => Promise.reject(new Error("connection refused")),
      ...extra,
    },
  });
  const req = (path: string, init: RequestInit = {}) =>
    e.agent.app.request(`${AGENT}${path}`, init);
  /** Open the console as `agent open` does; returns the cookie header and the CSRF token. */
  const signIn = async () => {
    const link = await req("/console/links", {
      method: "POST",
      headers: { "x-svc-console-secret": SECRET },
    });
    equal(link.status, 200);
    const { url } = await link.json();
    match(url, /^http:\/\/127\.0\.0\.1:17470\/console\/open\?code=[\w-]{43}$/);
    const opened = await e.agent.app.request(url, { headers: { "sec-fetch-site": "none" } });
    equal(opened.status, 303);
    const set = opened.headers.get("set-cookie")!;
    const cookie = set.split(";")[0]!;
    const page = await req("/", { headers: { cookie } });
    equal(page.status, 200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    return { url, set, cookie, csrf };
  };
  const cleanup = () => Deno.remove(dataDir, { recursive: true });
  return { ...e, dataDir, callers, req, signIn, cleanup };
}
