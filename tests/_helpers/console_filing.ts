/**
 * Filings made the way an integrator makes them, for the console's browser tests
 * (tests/browser/console_receipt_test.ts, console_export_test.ts): the one-time console link
 * `agent open` prints, and a VAT return filed over real HTTP and confirmed on its page.
 * @module
 */
import { equal } from "node:assert/strict";
import { join } from "node:path";
import { type Chromium, launchChromium } from "./browser.ts";
import {
  createKeyCli,
  decideNext,
  issueToken,
  MAIN,
  type Proc,
  startAgent,
  startTokenService,
} from "./e2e.ts";

/** `YYYY-MM-DD HH:MM:SS ±HH:MM` in Bulgaria's offsets (winter +02:00, summer +03:00). */
export const LOCAL_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0[23]:00$/;

/** What `agent open` prints: the one-time link. */
export async function agentOpen(dataDir: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "agent", "open", "--data-dir", dataDir],
    env: { NO_COLOR: "1", SVC_OPEN_BROWSER: "never" },
  }).output();
  equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return /The console: (\S+)/.exec(new TextDecoder().decode(out.stdout))![1]!;
}

/** What the console's browser tests run against: real processes and Chromium. */
export interface FilingWorld {
  /** The temporary folder holding both data folders (removed by `close`). */
  readonly dir: string;
  /** The agent's data folder (for `agentOpen`). */
  readonly agentDir: string;
  readonly ts: Proc;
  readonly agent: Proc;
  readonly browser: Chromium;
  /** A fresh test-mode secret key of the token service. */
  readonly key: string;
  /** Closes the browser, stops both processes and removes `dir`. */
  close(): Promise<void>;
}

/**
 * Starts a token service, an agent on it and Chromium (launched meanwhile), with a test key.
 * @param prefix the temporary folder's name prefix
 * @param prepare runs in the fresh folder before the processes start (e.g. writes input files)
 */
export async function filingWorld(
  prefix: string,
  prepare: (dir: string) => Promise<void> = () => Promise.resolve(),
): Promise<FilingWorld> {
  const dir = await Deno.makeTempDir({ prefix });
  await prepare(dir);
  const browserP = launchChromium();
  const ts = await startTokenService(join(dir, "ts"));
  const agentDir = join(dir, "agent");
  const agent = await startAgent(agentDir, ts.url);
  const browser = await browserP;
  const close = async () => {
    await browser.close();
    await agent.stop();
    await ts.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    const key = await createKeyCli(join(dir, "ts"), "test");
    return { dir, agentDir, ts, agent, browser, key, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * A VAT return filed by an integrator, with its files or not.
 * @param confirm how the person confirms (default: the page's decision sent as the browser would)
 */
export async function fileVat(
  ts: Proc,
  agent: Proc,
  key: string,
  eik: string,
  folder: string | null,
  confirm: () => Promise<unknown> = () => decideNext(agent, "confirm"),
): Promise<Record<string, unknown>> {
  const token = await issueToken(ts.url, key, { typeId: "vat", eik });
  const res = fetch(`${agent.url}/api/v1/operations/vat`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      ...(folder ? { "x-svc-file-path": folder } : {}),
    },
    body: JSON.stringify({ eik, year: 2026, month: 10 }),
  });
  await confirm();
  return await (await res).json();
}
