/**
 * Cloud senders in end-to-end tests: the CSC simulator (scripts/csc_simulator.ts) over HTTPS,
 * `senders add --csc` run as the real CLI, and its browser step — the provider's sign-in page —
 * driven in Chromium (playwright-core), which trusts the simulator's throw-away TLS CA by
 * ignoring certificate errors for this profile only.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { chromium } from "playwright-core";
import {
  CSC_CLIENT_ID,
  type CscSimulator,
  type CscSimulatorOptions,
  startCscSimulator,
} from "../../scripts/csc_simulator.ts";
import { CHROMIUM, CHROMIUM_FLAGS } from "./browser.ts";
import { MAIN } from "./e2e.ts";
import { TextLineStream } from "./lines.ts";

export { CSC_CLIENT_ID, CSC_PIN } from "../../scripts/csc_simulator.ts";

/** A simulator with its TLS CA written to a file (a sender's `--ca-file`). */
export interface CscWorld {
  readonly sim: CscSimulator;
  readonly caFile: string;
  stop(): Promise<void>;
}

/**
 * Start the simulator and write its TLS CA into `dir`.
 * @param dir a temporary folder
 * @param o simulator options
 */
export async function startCscWorld(dir: string, o: CscSimulatorOptions = {}): Promise<CscWorld> {
  const sim = await startCscSimulator(o);
  const caFile = join(dir, "csc-ca.pem");
  await Deno.writeTextFile(caFile, sim.caPem);
  return { sim, caFile, stop: () => sim.stop() };
}

/** A Chromium whose pages accept the simulators' TLS certificates. */
export async function cscBrowser() {
  const profile = await Deno.makeTempDir({ prefix: "svc-chromium-csc-" });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    ignoreHTTPSErrors: true,
    viewport: { width: 1280, height: 800 },
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

/** What `senders add --csc` printed and how it ended. */
export interface CscAddRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Run `senders add --csc` as the accountant would: the CLI prints the sign-in address, Chromium
 * opens it, the provider's page is answered (`approve` or `decline`), the CLI ends.
 * @param agentDir the agent's data directory
 * @param w the simulator
 * @param args more arguments (`--credential-id …`, `--id …`)
 * @param decision the button clicked on the provider's page
 * @returns the CLI's output and exit code
 */
export async function addCscSenderWithBrowser(
  agentDir: string,
  w: CscWorld,
  args: string[],
  decision: "approve" | "decline" = "approve",
): Promise<CscAddRun> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "senders",
      "add",
      "--csc",
      w.sim.serviceUrl,
      "--client-id",
      CSC_CLIENT_ID,
      "--ca-file",
      w.caFile,
      "--data-dir",
      agentDir,
      ...args,
    ],
    env: { NO_COLOR: "1", SVC_OPEN_BROWSER: "never" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const lines: string[] = [];
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TextLineStream(),
  ).getReader();
  let start: string | null = null;
  while (start === null) {
    const { value, done } = await reader.read();
    if (done) break;
    lines.push(value);
    start = /in the browser: (http:\/\/127\.0\.0\.1:\d+\/start)/.exec(value)?.[1] ?? null;
  }
  if (start !== null) {
    const browser = await cscBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(start);
      ok((await page.textContent("body"))?.includes("Sign in to the CSC simulator"));
      await page.click(`#${decision}`);
      await page.waitForURL(/127\.0\.0\.1:\d+\/callback/);
      if (decision === "approve") {
        ok((await page.textContent("body"))?.includes("Влизането приключи"));
      }
    } finally {
      await browser.close();
    }
  }
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    lines.push(value);
  }
  const status = await child.status;
  return { code: status.code, stdout: lines.join("\n"), stderr: await stderr };
}

/** Assert that the CLI added the sender. */
export function assertAdded(r: CscAddRun, id: string): void {
  equal(r.code, 0, r.stderr + r.stdout);
  ok(r.stdout.includes(`Added sender ${id}`), r.stdout);
}
