/**
 * The Windows side of one OS user per agent and of `agent stop`, with the win-x64 package under
 * Wine (docs/running.md § Shared PCs, docs/install.md § Shared PCs): the agent runs as a Windows
 * program; a request from a Windows program of the same prefix (`agent open`, run by the
 * package's deno.exe) is traced through `GetExtendedTcpTable` to its process and its token's user
 * SID and is answered, while a request from a Linux program (which Wine cannot name as the owner
 * of any Windows process) is refused with 403 `PEER_OTHER_USER` and logged; `/health` answers
 * both. Then `agent stop` — Windows has no SIGTERM — stops the agent cleanly (exit 0, the lock
 * released).
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { skipWithoutWine, waitFor, type WineMachine, wineMachine } from "../_helpers/wine.ts";

const ignore = skipWithoutWine("one OS user per agent under Wine");
let machine: WineMachine | null = null;

Deno.test({
  name: "[wine] a Windows program of this user is answered, a Linux one refused; agent stop",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const mm = machine = await wineMachine();
    try {
      const env = {
        SVC_DATA_DIR: "C:\\peer-data",
        SVC_OPEN_BROWSER: "never",
        SVC_PEER_CHECK: "on",
        SVC_AGENT_PORT: "0",
      };
      const agent = mm.spawn([], env);
      await agent.child.stdin.close();
      await waitFor(
        "the agent's address",
        async () => /^Agent: http/m.test(await agent.stdout()),
        240_000,
      ).catch(async (e) => {
        throw new Error(`${e.message}\n${await agent.stdout()}\n${await agent.stderr()}`);
      });
      const url = /^Agent: (http\S+)/m.exec(await agent.stdout())![1]!;
      // Loaded (phase 2): /health says "ok" instead of "starting".
      await waitFor("the agent loaded", async () => {
        const h = await fetch(`${url}/health`).then((r) => r.json()).catch(() => ({}));
        return h.status === "ok";
      }, 180_000);

      // A Linux program: no Windows process owns its socket.
      const health = await fetch(`${url}/health`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
      const linux = await fetch(`${url}/api/v1/openapi.json`);
      assert.equal(linux.status, 403);
      assert.equal((await linux.json()).errorCode, "PEER_OTHER_USER");
      await waitFor(
        "the refusal in the log",
        async () => (await agent.stderr()).includes("connection of another OS user refused"),
      );

      // A Windows program of the same user: `agent open` gets its link.
      const open = await mm.cli(["agent", "open"], { env });
      assert.equal(open.code, 0, open.stdout + open.stderr);
      assert.match(open.stdout, /The console: http:\/\/127\.0\.0\.1:\d+\/console\/open\?code=/);

      // `agent stop` (no SIGTERM on Windows): a clean stop, the lock released.
      const stop = await mm.cli(["agent", "stop"], { env });
      assert.equal(stop.code, 0, stop.stdout + stop.stderr);
      assert.match(stop.stdout, /The agent has stopped\./);
      assert.equal((await agent.child.status).code, 0);
      await Deno.stat(join(mm.unixPath("C:\\peer-data"), "agent.lock")).then(
        () => assert.fail("the lock is released"),
        (e) => assert.ok(e instanceof Deno.errors.NotFound),
      );
    } finally {
      for (const pid of await mm.denoPids()) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* gone */ }
      }
      await machine?.close();
    }
  },
});
