/**
 * `demo --agent-data-dir` (docs/running.md § The demo with your own agent), end to end on
 * loopback: the accountant's agent (a real process, a PKCS#12 sender in its agent.json) trusts
 * the demo's token service — when it already runs, the demo's token service takes the URL the
 * agent trusts; when none runs, the demo starts the folder's agent itself — and the example the
 * demo prints, run by bash as pasted, files a test-mode VAT return in the sender's name: its
 * confirmation page in Chromium follows it to the receipt, the console's Filings page shows it and
 * its CSV export names the sender. The demo's stop leaves the agent running (or, when it started
 * it, stops it and frees the folder), and nothing in agent.json changed.
 */
import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { decide, launchChromium, skipBrowser } from "../_helpers/browser.ts";
import { agentOpen } from "../_helpers/console_filing.ts";
import { decideNext, followLog, freePort, MAIN, type Proc, startAgent } from "../_helpers/e2e.ts";
import { TextLineStream } from "../_helpers/lines.ts";
import { writePkcs12, writeTestPki } from "../_helpers/pki.ts";
import { skipUnless } from "../_helpers/require_tool.ts";

const SENDER = { id: "ivan-p12", displayName: "Иван Петров (сертификат)" };

/** An agent data folder with one PKCS#12 sender, as after adding a certificate. */
async function accountantFolder(dir: string): Promise<string> {
  const pki = await writeTestPki(await Deno.makeTempDir({ dir, prefix: "pki-" }));
  const p12 = join(dir, "sender.p12");
  await writePkcs12(pki.rsa, p12, "1234");
  const agentDir = join(dir, "agent");
  await Deno.mkdir(agentDir);
  await Deno.writeTextFile(
    join(agentDir, "agent.json"),
    JSON.stringify({ senders: [{ ...SENDER, keystore: { type: "pkcs12", file: p12 } }] }),
  );
  return agentDir;
}

/** A running `demo --agent-data-dir`: what it printed, its log lines, the example line. */
interface OwnDemo {
  readonly printed: Record<string, string>;
  readonly example: string;
  readonly lines: string[];
  /** Its log (stderr): the agent's lines when the demo started it. */
  readonly log: Pick<Proc, "waitLog" | "logs">;
  stop(signal?: Deno.Signal): Promise<number>;
}

function spawnDemo(agentDir: string, port = 0) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "demo", "--port", String(port), "--agent-data-dir", agentDir],
    env: { NO_COLOR: "1", SVC_OPEN_BROWSER: "never" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

async function startOwnDemo(agentDir: string): Promise<OwnDemo> {
  const child = spawnDemo(agentDir);
  const log = followLog(child.stderr);
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TextLineStream(),
  ).getReader();
  const printed: Record<string, string> = {};
  const lines: string[] = [];
  let example = "";
  while (!lines.some((l) => l.startsWith("What stays in the data folder"))) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`demo exited early: ${lines.join("\n")} ${JSON.stringify(log.logs)}`);
    lines.push(value);
    const m = /^([A-Z][^:]*): (\S+)/.exec(value);
    if (m) printed[m[1]!] = m[2]!;
    if (value.startsWith("TOKEN=")) example = value;
  }
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  return {
    printed,
    example,
    lines,
    log: { logs: log.logs, waitLog: (msg, timeoutMs = 15_000) => log.waitLog(msg, timeoutMs) },
    async stop(signal: Deno.Signal = "SIGINT") {
      child.kill(signal);
      return (await child.status).code;
    },
  };
}

/** Run the printed example as pasted into bash; resolves with the agent's JSON answer. */
async function runExample(line: string): Promise<Record<string, unknown>> {
  const out = await new Deno.Command("bash", { args: ["-c", line], stdin: "null" }).output();
  const text = new TextDecoder().decode(out.stdout);
  equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(text);
}

async function journalRows(agentDir: string): Promise<Record<string, unknown>[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "journal", "list", "--json", "--data-dir", agentDir],
    env: { NO_COLOR: "1" },
  }).output();
  equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

const needs = () => skipUnless(["bash", "curl", "openssl"], "demo --agent-data-dir");

Deno.test({
  name:
    "[e2e] demo --agent-data-dir: the running agent trusts the demo's token service; the printed example files in the sender's name, confirmed in Chromium, on Filings and in the export",
  ignore: skipBrowser() || needs(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-demo-own-" });
    const agentDir = await accountantFolder(dir);
    const agentJson = await Deno.readTextFile(join(agentDir, "agent.json"));
    // The accountant's agent, installed without a token service of its own: it trusts a
    // loopback URL where nothing listens yet.
    const trusted = `http://127.0.0.1:${freePort()}`;
    const browserP = launchChromium();
    const agent = await startAgent(agentDir, trusted);
    const browser = await browserP;
    let demo: OwnDemo | null = null;
    try {
      demo = await startOwnDemo(agentDir);
      equal(demo.printed["Token service"], trusted, "the demo serves the URL the agent trusts");
      equal(demo.printed.Agent, agent.url);
      ok(demo.lines.some((l) => l.includes("(already running)")), demo.lines.join("\n"));
      ok(demo.lines.some((l) => l === `Sender: ${SENDER.displayName} (${SENDER.id})`));
      match(demo.example, new RegExp(`X-Svc-Sender-Id: ${SENDER.id}`));

      const answer = runExample(demo.example);
      const log = await agent.waitLog("confirmation page opened", 20_000);
      const page = await browser.context.newPage();
      await page.goto(String(log.url));
      ok((await page.textContent("body"))!.includes(SENDER.displayName), "the sender is shown");
      await decide(page, "confirm");
      const filed = await answer;
      equal(filed.success, true, JSON.stringify(filed));
      // The confirmation page follows the filing to its incoming number.
      await page.waitForSelector("#follow[data-state=done]");
      ok((await page.textContent("#follow-list li"))!.includes(String(filed.incomeNumber)));

      // The console: Filings shows it, its receipt names the sender, the CSV export has it.
      const cons = await browser.context.newPage();
      await cons.goto(await agentOpen(agentDir));
      await cons.click("#nav-filings");
      const row = cons.locator("#filings tr[data-state=filed]");
      equal(await row.count(), 1);
      await row.locator("a.receipt-link").click();
      await cons.waitForSelector("#receipt[data-state=filed]");
      match((await cons.textContent("#r-sender"))!, new RegExp(SENDER.displayName.slice(0, 11)));
      equal((await cons.textContent("#r-incoming"))!.trim(), filed.incomeNumber);
      await cons.click("#nav-filings");
      const [csv] = await Promise.all([cons.waitForEvent("download"), cons.click("#export-csv")]);
      const records = parse(await Deno.readTextFile((await csv.path())!), {
        bom: true,
        columns: true,
      }) as Record<string, string>[];
      equal(records.length, 1);
      equal(records[0]!["Среда"], "тестов");
      equal(records[0]!["Входящ №"], filed.incomeNumber);
      ok(records[0]!["Подател"]!.includes(SENDER.displayName), records[0]!["Подател"]);

      // Stopping the demo leaves the accountant's agent running with its own settings.
      equal(await demo.stop(), 0);
      demo = null;
      const health = await fetch(`${agent.url}/health`);
      equal(health.status, 200);
      await health.body?.cancel();
      await fetch(`${trusted}/.well-known/jwks.json`).then(
        () => ok(false, "the demo's token service still answers"),
        () => {},
      );
      equal(await Deno.readTextFile(join(agentDir, "agent.json")), agentJson);
    } finally {
      await demo?.stop();
      await browser.close();
      await agent.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name:
    "[e2e] demo --agent-data-dir: with no agent running, the demo starts the folder's agent, files with its sender, and frees the folder on Ctrl+C",
  ignore: needs(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-demo-own-" });
    const agentDir = await accountantFolder(dir);
    const agentJson = await Deno.readTextFile(join(agentDir, "agent.json"));
    let demo: OwnDemo | null = null;
    try {
      demo = await startOwnDemo(agentDir);
      ok(demo.lines.some((l) => l.includes("started by the demo")), demo.lines.join("\n"));
      match(demo.printed["Console (one-time link, 10 minutes)"] ?? "", /\/console\/open\?code=/);
      const running = JSON.parse(await Deno.readTextFile(join(agentDir, "agent.running.json")));
      equal(running.tokenServiceUrl, demo.printed["Token service"]);

      const answer = runExample(demo.example);
      // The page's decision as the browser sends it (its Chromium path: the test above).
      const { html } = await decideNext(demo.log as Proc, "confirm", SENDER.id);
      ok(html.includes(SENDER.displayName));
      const filed = await answer;
      equal(filed.success, true, JSON.stringify(filed));

      equal(await demo.stop(), 0);
      demo = null;
      for (const f of ["agent.lock", "agent.running.json"]) {
        equal(await Deno.stat(join(agentDir, f)).then(() => true, () => false), false, f);
      }
      const rows = await journalRows(agentDir);
      equal(rows.length, 1);
      equal(rows[0]!.state, "filed");
      equal(rows[0]!.mode, "test");
      equal(rows[0]!.senderId, SENDER.id);
      equal(rows[0]!.incomeNumber, filed.incomeNumber);
      equal(await Deno.readTextFile(join(agentDir, "agent.json")), agentJson);
    } finally {
      await demo?.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name:
    "[e2e] demo --agent-data-dir: an agent that trusts another token service is named, with what to do",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-demo-own-" });
    const agentDir = join(dir, "agent");
    const agent = await startAgent(agentDir, "https://tokens.example.invalid");
    try {
      const out = await spawnDemo(agentDir).output();
      const err = new TextDecoder().decode(out.stderr);
      equal(out.code, 1, err);
      match(err, /trusts the token service https:\/\/tokens\.example\.invalid/);
      match(err, /Stop that agent/);
      const health = await fetch(`${agent.url}/health`);
      equal(health.status, 200, "the agent is left alone");
      await health.body?.cancel();
    } finally {
      await agent.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
