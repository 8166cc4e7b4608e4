/**
 * Browser tests: playwright-core driving Debian's Chromium (/usr/bin/chromium) with a fresh
 * profile, and the example integrator environment (token service and agent as real programs,
 * the example server in process, its origin allowed in agent.json). Confirmation pages are
 * opened the way the default browser would: the URL from the agent's log, in a new tab.
 */
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { type ExampleServer, startExampleServer } from "../../examples/integrator/server.ts";
import { createKeyCli, type Proc, startAgent, startTokenService } from "./e2e.ts";
import { skipUnless } from "./require_tool.ts";

/** Debian's Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/** Flags for Chromium in containers and CI (toolchain.md § 7). */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** `ignore` for browser tests: skip without Chromium outside CI, fail in CI. */
export function skipBrowser(): boolean {
  return skipUnless([CHROMIUM], "browser tests (playwright-core + Debian chromium)");
}

/** A Chromium with a fresh profile directory (removed on close). */
export interface Chromium {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Launch Chromium headless with a fresh `--user-data-dir` and a 1280×800 viewport. */
export async function launchChromium(): Promise<Chromium> {
  const profile = await Deno.makeTempDir({ prefix: "svc-chromium-" });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 800 },
    timeout: 30_000,
  });
  context.setDefaultTimeout(15_000);
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
}

/** The example integrator with real programs and a browser. */
export interface ExampleEnv {
  readonly ts: Proc;
  readonly agent: Proc;
  readonly example: ExampleServer;
  readonly browser: Chromium;
  /** The integrator's secret key (to assert it never reaches the page). */
  readonly key: string;
  /** The token service's data folder (its SQLite file), for a test that changes its records. */
  readonly tsDir: string;
  /** How many confirmation pages the agent has opened so far (its log lines). */
  confirmationPages(): number;
  /** A new tab on the example page, ready for clicks. */
  openExample(): Promise<Page>;
  /** Wait for the agent's next confirmation page and open it in a new tab. */
  openConfirmation(): Promise<Page>;
  stop(): Promise<void>;
}

/** Start the token service, the example server, the agent (allowing the example's origin) and
 * Chromium. */
export async function startExampleEnv(
  o: { readonly agentEnv?: Record<string, string> } = {},
): Promise<ExampleEnv> {
  const dir = await Deno.makeTempDir({ prefix: "svc-browser-" });
  const browserP = launchChromium();
  const ts = await startTokenService(`${dir}/ts`);
  const key = await createKeyCli(`${dir}/ts`, "test");
  const example = await startExampleServer({ tokenServiceUrl: ts.url, secretKey: key });
  await Deno.mkdir(`${dir}/agent`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/agent/agent.json`,
    JSON.stringify({ senders: [], allowedOrigins: [example.origin] }),
  );
  const agent = await startAgent(`${dir}/agent`, ts.url, o.agentEnv ?? {});
  example.setAgentUrl(agent.url);
  const browser = await browserP;
  return {
    ts,
    agent,
    example,
    browser,
    key,
    tsDir: `${dir}/ts`,
    confirmationPages: () => agent.logs.filter((l) => l.msg === "confirmation page opened").length,
    async openExample() {
      const page = await browser.context.newPage();
      await page.goto(example.url);
      await page.waitForSelector("body[data-ready=true]");
      return page;
    },
    async openConfirmation() {
      const log = await agent.waitLog("confirmation page opened", 15_000);
      const page = await browser.context.newPage();
      await page.goto(String(log.url));
      await page.waitForSelector("#confirm");
      return page;
    },
    async stop() {
      await browser.close();
      await example.close().catch(() => {});
      await stopWithin(agent);
      await stopWithin(ts);
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * Click confirm or decline on an open confirmation page, as the user would, and check that the
 * agent accepted the decision (the form POST answers 200 with the done page).
 */
export async function decide(page: Page, decision: "confirm" | "decline"): Promise<void> {
  // A request that joined the batch after the page was drawn makes the agent show the page
  // again (303) instead of confirming unseen work: the user reads it and clicks again.
  for (let attempt = 1;; attempt++) {
    const t0 = performance.now();
    await page.waitForSelector(`#${decision}:enabled`);
    const seen = await page.getAttribute("#seen", "value");
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/decision") && r.request().method() === "POST"),
      page.click(`#${decision}`),
    ]);
    const ms = performance.now() - t0;
    if (attempt > 1 || ms > 5_000) {
      // Seen once in a full parallel run: a decision that took minutes (CI flake hunting).
      console.error(
        `decide(${decision}): attempt ${attempt} answered ${res.status()} in ${ms.toFixed(0)} ms`,
      );
    }
    if (res.status() === 303 && attempt < 10) {
      await page.waitForSelector(`#seen:not([value="${seen}"])`, { state: "attached" });
      continue;
    }
    if (res.status() !== 200) {
      throw new Error(
        `the agent refused the ${decision} click: ${res.status()} ${await res.text()}`,
      );
    }
    break;
  }
  await page.waitForSelector(`#result[data-decision=${decision}]`);
}

/** Stop a program (SIGTERM: it finishes running requests), killing it after `graceMs`: a
 * request waiting on an undecided confirmation page would otherwise hold it for minutes. */
export async function stopWithin(p: Proc, graceMs = 3_000): Promise<void> {
  const timer = setTimeout(() => {
    try {
      p.child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, graceMs);
  await p.stop();
  clearTimeout(timer);
}

/** A small server on another origin (not in the agent's allow-list), serving given pages. */
export function startForeignServer(pages: Record<string, (url: URL) => string>): {
  origin: string;
  close(): Promise<void>;
} {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    const page = pages[url.pathname];
    if (!page) return new Response("not found", { status: 404 });
    return new Response(page(url), { headers: { "content-type": "text/html; charset=utf-8" } });
  });
  return { origin: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

/** Width and height of a PNG (its IHDR chunk). */
export function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: v.getUint32(16), height: v.getUint32(20) };
}
