/**
 * A live-mode world for end-to-end tests: the NRA simulator over HTTPS, a token service (SQLite,
 * or PostgreSQL in a throw-away schema), a live API key, and the agent as a subprocess with one
 * sender whose key sits in a PKCS#12 file (the PIN is typed on the confirmation page). Companies'
 * D1/D6 files are written as the accountant's folder would hold them.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { SIM_CLIENT, type SimulatorOptions, startNraSimulator } from "./nra_simulator.ts";
import type { NraSimulator } from "./nra_simulator.ts";
import { writePkcs12, writeTestPki } from "./pki.ts";
import { payrollFiles } from "./company_tree.ts";
import { issueToken, type Proc, startAgent, startTokenService } from "./e2e.ts";
import { freshPgSchema, type PgSchema } from "./postgres.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** The PIN of the sender's PKCS#12 file. */
export const P12_PIN = "p12-pin";
/** The sender's id in agent.json. */
export const SENDER_ID = "p12";

/** Options of {@link startLiveWorld}. */
export interface LiveWorldOptions {
  /** The token service's database (default SQLite in its data directory). */
  readonly tokenDb?: "sqlite" | "postgres";
  /** agent.json `portal.timeoutSeconds` (default 30). */
  readonly timeoutSeconds?: number;
  /** Extra environment of the agent (SVC_TEST_HOLD_AT, SVC_LOG_LEVEL). */
  readonly agentEnv?: Record<string, string>;
  readonly sim?: SimulatorOptions;
  /** Put the key's integrator under an open-ended contract first (no 3-EIK limit: folder-wide
   * filings of many companies). */
  readonly contract?: boolean;
}

/** A running live world. */
export interface LiveWorld {
  readonly dir: string;
  readonly agentDir: string;
  readonly sim: NraSimulator;
  readonly ts: Proc;
  /** The running agent (replaced by {@link LiveWorld.restart}). */
  readonly agent: Proc;
  /** The live API key (a secret). */
  readonly apiKey: string;
  /** Every agent token issued so far (secrets, for leak checks). */
  readonly tokens: string[];
  /** The sender's private key (PEM), for leak checks. */
  readonly privateKeyPem: string;
  /** Write a company's D1/D6 files for 09/2026; returns the dec1_6 body's path fields. */
  payroll(eik: string): Promise<{ dec1FilePath: string; dec6FilePath: string }>;
  /** POST an operation with a fresh token for `eik` (a folder-wide one: for the EIKs listed). */
  file(
    typeId: string,
    eik: string | readonly string[],
    body: unknown,
    headers: Record<string, string>,
  ): Promise<{ status: number; json: Record<string, unknown> }>;
  /** Confirm the next confirmation page as the sender, typing the PIN (on its PIN step when it
   * reads the disk; the checks' state is returned then). */
  confirmWithPin(pin?: string): Promise<AfterConsentState | null>;
  /** Stop the agent (SIGKILL when `kill`) and start it again. */
  restart(o?: { kill?: boolean; env?: Record<string, string> }): Promise<Proc>;
  /** Run `main.ts journal …` on the agent's data directory. */
  journal(args: string[], env?: Record<string, string>): Promise<CliRun>;
  stop(): Promise<void>;
}

/** What a CLI run printed. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Decide on a confirmation page as a browser would: POST its form from the agent's origin. */
export async function decideOn(url: string, html: string, senderId: string, pin: string | null) {
  const res = await fetch(`${url}/decision`, {
    method: "POST",
    headers: { origin: new URL(url).origin, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      seen: /name="seen" id="seen" value="(\d+)"/.exec(html)![1]!,
      nonce: /name="nonce" value="([^"]+)"/.exec(html)![1]!,
      decision: "confirm",
      senderId,
      ...(pin === null ? {} : { pin }),
    }),
  });
  await res.body?.cancel();
  equal(res.status, 200);
}

/** How a confirmed two-step page's checks went (`GET /confirm/<id>/state`'s `after`). */
export interface AfterConsentState {
  readonly checking: number;
  readonly failed: number;
  readonly passed: number;
  /** The PIN step's page path, while it waits. */
  readonly next: string | null;
}

/**
 * Wait until a confirmed two-step page's checks are done (docs/confirmation.md § Two steps).
 * @param url the consent page's URL
 * @returns the state: `next` is the PIN step, or null (the check failed, or no PIN is needed)
 */
export async function afterConsent(url: string): Promise<AfterConsentState> {
  for (let i = 0; i < 400; i++) {
    const j = await (await fetch(`${url}/state`)).json();
    const a = j.after as AfterConsentState | undefined;
    ok(a, `the page ${url} was confirmed in two steps`);
    if (a.next !== null || a.checking === 0) return a;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the checks after the consent did not finish");
}

/**
 * Confirm the next page, typing the PIN (as a browser would: GET the page, POST the form from
 * the agent's origin). A page that reads paths on the disk first asks only the consent: the PIN
 * is typed on its second step, which opens only when the files passed their checks.
 * @param agent the agent
 * @param senderId the sender to choose
 * @param pin the PIN to type
 * @returns the consent page's state after its checks (two steps), else null
 */
export async function confirmWithPin(
  agent: Proc,
  senderId: string,
  pin: string,
): Promise<AfterConsentState | null> {
  const log = await agent.waitLog("confirmation page opened", 20_000);
  const url = String(log.url);
  const html = await (await fetch(url)).text();
  const twoSteps = html.includes('id="pin-later"');
  if (!twoSteps) {
    // A page asking again for a batch that has its PIN already asks none.
    const asks = html.includes('name="pin"');
    ok(asks || html.includes('id="extension"'), "live mode asks for the PIN on the page");
    await decideOn(url, html, senderId, asks ? pin : null);
    return null;
  }
  ok(!html.includes('name="pin"'), "the consent to read asks no PIN");
  await decideOn(url, html, senderId, null);
  const after = await afterConsent(url);
  if (after.next === null) return after;
  const step = new URL(after.next, url).href;
  const pinPage = await (await fetch(step)).text();
  ok(pinPage.includes('name="pin"'), "the PIN step asks for the PIN");
  await decideOn(step, pinPage, senderId, pin);
  return after;
}

async function cli(args: string[], env: Record<string, string>): Promise<CliRun> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/**
 * Start the world.
 * @param o token database, portal time-out, agent environment, simulator options
 * @returns the world (stop it)
 */
export async function startLiveWorld(o: LiveWorldOptions = {}): Promise<LiveWorld> {
  const dir = await Deno.makeTempDir({ prefix: "svc-live-world-" });
  const pki = await writeTestPki(await Deno.makeTempDir({ dir, prefix: "pki-" }));
  const p12 = join(dir, "sender.p12");
  await writePkcs12(pki.rsa, p12, P12_PIN);
  const sim = await startNraSimulator({ recognised: "any", powerOfAttorney: "any", ...o.sim });
  const caFile = join(dir, "sim-ca.pem");
  await Deno.writeTextFile(caFile, sim.caPem);
  const agentDir = join(dir, "agent");
  await Deno.mkdir(agentDir);
  await Deno.writeTextFile(
    join(agentDir, "agent.json"),
    JSON.stringify({
      senders: [{
        id: SENDER_ID,
        displayName: "Иван Петров (PKCS#12)",
        keystore: { type: "pkcs12", file: p12 },
      }],
      portal: {
        baseUrl: sim.url,
        environment: "test",
        clientId: SIM_CLIENT.id,
        clientSecret: SIM_CLIENT.secret,
        caFile,
        timeoutSeconds: o.timeoutSeconds ?? 30,
      },
    }),
  );
  let pg: PgSchema | null = null;
  const tsEnv: Record<string, string> = {};
  if (o.tokenDb === "postgres") {
    pg = await freshPgSchema();
    tsEnv.SVC_DATABASE_URL = pg.url;
    // The PostgreSQL deployment keeps its signing keys encrypted (docs/token-service.md).
    tsEnv.SVC_SIGNING_KEY_SECRET = crypto.randomUUID() + crypto.randomUUID();
  }
  const tsDir = join(dir, "ts");
  const ts = await startTokenService(tsDir, tsEnv);
  const created = await cli(["keys", "create", "--mode", "live", "--data-dir", tsDir], tsEnv);
  if (created.code !== 0) throw new Error(created.stderr);
  const apiKey = created.stdout.trim();
  if (o.contract) {
    const admin = (...args: string[]) =>
      cli(["admin", "applications", ...args, "--json", "--data-dir", tsDir], tsEnv);
    const app = await admin(
      "submit",
      "--integrator",
      "default",
      "--company",
      "Счетоводна къща ООД",
      "--email",
      "office@example.test",
      "--use",
      "month-end filings",
    );
    if (app.code !== 0) throw new Error(app.stderr);
    const ok = await admin("approve", JSON.parse(app.stdout).id, "--open-ended");
    if (ok.code !== 0) throw new Error(ok.stderr);
  }
  let agent = await startAgent(agentDir, ts.url, o.agentEnv ?? {});
  const tokens: string[] = [];
  return {
    dir,
    agentDir,
    sim,
    ts,
    get agent() {
      return agent;
    },
    apiKey,
    tokens,
    privateKeyPem: await Deno.readTextFile(pki.rsa.keyPem),
    async payroll(eik) {
      const files = await payrollFiles(eik, 2026, 9);
      if (!files) throw new Error(`the test portal has no D1/D6 for ${eik}`);
      const folder = join(dir, "clients", eik, "2026-09");
      await Deno.mkdir(folder, { recursive: true });
      for (const [name, bytes] of files) await Deno.writeFile(join(folder, name), bytes);
      return {
        dec1FilePath: join(folder, "EMPL2021.TXT"),
        dec6FilePath: join(folder, "NRA62007.TXT"),
      };
    },
    async file(typeId, eik, body, headers) {
      const token = await issueToken(
        ts.url,
        apiKey,
        typeof eik === "string" ? { typeId, eik } : { typeId, eiks: [...eik] },
      );
      tokens.push(token);
      const r = await fetch(`${agent.url}/api/v1/operations/${typeId}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          ...headers,
        },
        body: JSON.stringify(body),
      });
      return { status: r.status, json: await r.json() };
    },
    confirmWithPin: (pin = P12_PIN) => confirmWithPin(agent, SENDER_ID, pin),
    async restart(r = {}) {
      if (r.kill) {
        agent.child.kill("SIGKILL");
        await agent.child.status;
      } else await agent.stop();
      agent = await startAgent(agentDir, ts.url, r.env ?? {});
      return agent;
    },
    journal: (args, env = {}) => cli(["journal", ...args, "--data-dir", agentDir], env),
    async stop() {
      await agent.stop().catch(() => {});
      await ts.stop();
      await sim.stop();
      await pg?.drop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * A valid EGN (check digit) other than the test signers' 8001010008: a natural person who
 * files as the taxpayer ("eik").
 * @param stem the first nine digits (a birth date 1975-01-02 by default)
 * @returns the EGN
 */
export function naturalPersonEgn(stem = "750102001"): string {
  const w = [2, 4, 8, 5, 10, 9, 7, 3, 6];
  const s = w.reduce((a, k, i) => a + k * Number(stem[i]), 0) % 11;
  return stem + String(s === 10 ? 0 : s);
}
