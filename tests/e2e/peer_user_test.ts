/**
 * One OS user per agent (docs/running.md § Shared PCs), with real processes on Linux: the agent
 * runs as this user; `curl` run as this user is answered, `curl` run as `nobody` (uid 65534,
 * through `setpriv`) gets 403 `PEER_OTHER_USER` on every path but `/health` — even with the data
 * folder's console secret, which another user could only have by a leak, no console link is
 * made — and the agent logs the refusal. A dual-stack client (`::ffff:127.0.0.1`, found in
 * /proc/net/tcp6) is told apart the same way.
 */
import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { startAgent, startTokenService } from "../_helpers/e2e.ts";
import { hasProgram } from "../_helpers/require_tool.ts";
import { stopWithin } from "../_helpers/browser.ts";

const NOBODY = 65534;

/** How to run a program as `nobody`: setpriv as root, else through passwordless sudo. */
function asNobody(): string[] | null {
  if (Deno.build.os !== "linux" || !hasProgram("setpriv") || !hasProgram("curl")) return null;
  const setpriv = ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups"];
  if (Deno.uid() === 0) return setpriv;
  const sudo = new Deno.Command("sudo", { args: ["-n", "true"], stdout: "null", stderr: "null" });
  try {
    if (sudo.outputSync().success) return ["sudo", "-n", ...setpriv];
  } catch { /* no sudo */ }
  return null;
}

const prefix = asNobody();
const ignore = (() => {
  if (prefix) return false;
  if (Deno.env.get("CI") === "true") return false; // fails below: CI must run it
  console.error("SKIP peer user: needs Linux, curl, setpriv and root or passwordless sudo");
  return true;
})();

/** curl's answer: status and body. */
async function curl(
  as: string[],
  url: string,
  args: string[] = [],
): Promise<{ status: number; body: string }> {
  const [cmd, ...rest] = [...as, "curl", "-s", "-o", "-", "-w", "\n%{http_code}", ...args, url];
  const out = await new Deno.Command(cmd!, { args: rest, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  const i = text.lastIndexOf("\n");
  return { status: Number(text.slice(i + 1)), body: text.slice(0, i) };
}

Deno.test({
  name: "[e2e] another OS user's requests get 403 PEER_OTHER_USER; the owner's pass",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    if (!prefix) throw new Error("CI: setpriv/curl and root or sudo are required");
    const dir = await Deno.makeTempDir({ prefix: "svc-peer-" });
    await Deno.chmod(dir, 0o755);
    const ts = await startTokenService(join(dir, "ts"));
    const data = join(dir, "agent");
    const agent = await startAgent(data, ts.url);
    try {
      const secret = (await Deno.readTextFile(join(data, "console.secret"))).trim();
      const links = ["-X", "POST", "-H", `x-svc-console-secret: ${secret}`];
      const op = [
        "-X",
        "POST",
        "-H",
        "content-type: application/json",
        "-H",
        "authorization: Bearer x.y.z",
        "--data",
        "{}",
      ];
      const paths: [string, string[], number][] = [
        ["/api/v1/openapi.json", [], 200],
        ["/console/links", links, 200],
        ["/api/v1/operations/vat_batch", op, 401],
        ["/", [], 403], // the owner's browser without a session: the page on how to open it
      ];
      for (const [path, args, ownerStatus] of paths) {
        const mine = await curl([], agent.url + path, args);
        equal(mine.status, ownerStatus, `owner ${path}: ${mine.body.slice(0, 200)}`);
        if (path === "/") ok(mine.body.includes('id="how-to-open"'), mine.body.slice(0, 200));
        const theirs = await curl(prefix, agent.url + path, args);
        equal(theirs.status, 403, `nobody ${path}: ${theirs.body.slice(0, 200)}`);
        equal(JSON.parse(theirs.body).errorCode, "PEER_OTHER_USER", path);
      }
      // /health stays open: another user's agent tells that the port is taken.
      equal((await curl(prefix, agent.url + "/health")).status, 200);
      // A dual-stack client: the same answers.
      const port = new URL(agent.url).port;
      const v6 = `http://[::ffff:127.0.0.1]:${port}/api/v1/openapi.json`;
      const host = ["-H", `host: 127.0.0.1:${port}`];
      const mine6 = await curl([], v6, host);
      if (mine6.status !== 0) {
        equal(mine6.status, 200, mine6.body.slice(0, 200));
        equal(JSON.parse((await curl(prefix, v6, host)).body).errorCode, "PEER_OTHER_USER");
      }
      // Said in the log, with the path; nobody got a link.
      const refused = agent.logs.filter((l) => l.msg === "connection of another OS user refused");
      ok(refused.length >= paths.length, JSON.stringify(agent.logs.slice(-5)));
      ok(refused.some((l) => l.path === "/console/links"));
      match(String(refused[0]!.peer), /^127\.0\.0\.1:\d+$/);
      equal(agent.logs.filter((l) => l.msg === "console reopened").length, 0);
    } finally {
      await stopWithin(agent);
      await stopWithin(ts);
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
