/**
 * Opening the console without a terminal (docs/console.md § Opening it), with the real programs:
 * `agent open` and a second start of the agent (the launcher double-clicked while it runs) ask
 * the running agent for a one-time link with the data folder's secret; a `svc-agent://start`
 * link (what a web page can trigger) never opens the console; another data folder's secret
 * gets nothing.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { MAIN, startAgent, startDemo, startTokenService } from "../_helpers/e2e.ts";

async function run(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: { NO_COLOR: "1", SVC_OPEN_BROWSER: "never", ...env },
    stdin: "null",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

const LINK = /The console: (http:\/\/127\.0\.0\.1:\d+\/console\/open\?code=[\w-]{43})/;

Deno.test("[e2e] agent open, a second start and a start link: who gets a console link", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-console-open-" });
  const ts = await startTokenService(join(dir, "ts"));
  const agentDir = join(dir, "agent");
  const agent = await startAgent(agentDir, ts.url);
  try {
    // `agent open` (the Start-menu entry): a link that signs in once.
    const open = await run(["agent", "open", "--data-dir", agentDir]);
    equal(open.code, 0, open.stderr);
    const url = LINK.exec(open.stdout)![1]!;
    equal(new URL(url).origin, agent.url);
    const first = await fetch(url, { redirect: "manual" });
    await first.body?.cancel();
    equal(first.status, 303);
    match(
      first.headers.get("set-cookie")!,
      /^svc_console_\d+=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict/,
    );
    const again = await fetch(url, { redirect: "manual" });
    await again.body?.cancel();
    equal(again.status, 403, "the link works once");

    // A second start of the same data folder: reports the running agent and opens its console.
    const second = await run(["agent", "--data-dir", agentDir, "--port", "0"]);
    equal(second.code, 0, second.stderr);
    match(second.stdout, /Agent already running at /);
    ok(LINK.test(second.stdout), second.stdout);

    // The page-triggered start link never opens the console.
    const linked = await run(["svc-agent://start"], { SVC_DATA_DIR: agentDir });
    equal(linked.code, 0, linked.stderr);
    match(linked.stdout, /Agent already running at /);
    equal(LINK.test(linked.stdout), false, linked.stdout);

    // Another data folder (another user's agent): no secret, no link.
    const other = await run(["agent", "open", "--data-dir", join(dir, "other")]);
    equal(other.code, 1);
    match(other.stderr, /not running for this data folder/);
  } finally {
    await agent.stop();
    await ts.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("[e2e] the demo prints its data folder and the console's link, and Ctrl+C removes its temporary folder", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "svc-demo-tmp-" });
  try {
    const demo = await startDemo({ env: { TMPDIR: tmp } });
    const folder = demo.printed["Data folder"]!;
    ok(folder.startsWith(join(tmp, "svc-demo-")), folder);
    ok((await Deno.stat(join(folder, "agent"))).isDirectory);
    const link = demo.printed["Console (one-time link, 10 minutes)"]!;
    match(link, /^http:\/\/127\.0\.0\.1:\d+\/console\/open\?code=[\w-]{43}$/);
    const opened = await fetch(link, { redirect: "manual" });
    await opened.body?.cancel();
    equal(opened.status, 303, "the link signs in");
    equal(await demo.stop("SIGINT"), 0);
    deepStrictEqual([...Deno.readDirSync(tmp)].map((e) => e.name), [], "nothing left behind");
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
});
