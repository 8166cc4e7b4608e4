/**
 * The agent's data on disk (docs/running.md § The data folder is private), through the real program
 * (`main.ts agent` on loopback, with HTTPS): the data folder (and missing parents) is 0700, the
 * journal and its WAL files, agent.json, the instance lock and the TLS key are 0600 and the TLS
 * folder 0700; an install made before (0755 folder, 0644 files) is tightened at start;
 * `writeAgentFile()` creates a missing data folder 0700. POSIX only (Windows has no modes;
 * docs/running.md).
 */
import { equal } from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { writeAgentFile } from "../../src/agent/senders/agent_file.ts";
import { startAgent, startTokenService } from "../_helpers/e2e.ts";

const posix = Deno.build.os !== "windows";
const mode = async (p: string) => ((await Deno.stat(p)).mode ?? 0) & 0o777;

/** Wait until `path` exists (the agent writes some files just after its banner). */
async function exists(path: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await Deno.stat(path).then(() => true, () => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${path} did not appear`);
}

Deno.test({
  name: "[e2e] agent: a new data folder is 0700 and the journal, lock and TLS key are 0600",
  ignore: !posix,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "svc-modes-" });
    const ts = await startTokenService(join(tmp, "ts"));
    const dataDir = join(tmp, "home", "svc-filing");
    const agent = await startAgent(dataDir, ts.url, { SVC_AGENT_TLS_PORT: "0" });
    try {
      await exists(join(dataDir, "tls", "server.key"));
      equal(await mode(join(tmp, "home")), 0o700, "a missing parent is created 0700 too");
      equal(await mode(dataDir), 0o700);
      equal(await mode(join(dataDir, "tls")), 0o700);
      for (
        const f of [
          "journal.sqlite",
          "journal.sqlite-wal",
          "journal.sqlite-shm",
          "agent.lock",
          "tls/server.key",
        ]
      ) {
        equal(await mode(join(dataDir, f)), 0o600, f);
      }
    } finally {
      await agent.stop();
      await ts.stop();
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name:
    "[e2e] agent: an earlier install's 0755 folder and 0644 journal, agent.json and TLS key are tightened at start",
  ignore: !posix,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "svc-modes-" });
    const ts = await startTokenService(join(tmp, "ts"));
    const dataDir = join(tmp, "agent");
    await Deno.mkdir(join(dataDir, "tls"), { recursive: true });
    const db = new DatabaseSync(join(dataDir, "journal.sqlite"));
    db.exec("PRAGMA journal_mode = WAL; CREATE TABLE before_13 (x)");
    db.close();
    await Deno.writeTextFile(join(dataDir, "agent.json"), '{ "senders": [] }\n');
    await Deno.writeTextFile(join(dataDir, "tls", "server.key"), "not a key\n");
    for (const d of [dataDir, join(dataDir, "tls")]) await Deno.chmod(d, 0o755);
    for (const f of ["journal.sqlite", "agent.json", "tls/server.key"]) {
      await Deno.chmod(join(dataDir, f), 0o644);
    }
    const agent = await startAgent(dataDir, ts.url);
    try {
      equal(await mode(dataDir), 0o700);
      for (const f of ["journal.sqlite", "agent.json", "tls/server.key", "agent.lock"]) {
        equal(await mode(join(dataDir, f)), 0o600, f);
      }
    } finally {
      await agent.stop();
      await ts.stop();
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "writeAgentFile() creates a missing data folder 0700 and agent.json 0600",
  ignore: !posix,
  async fn() {
    const tmp = await Deno.makeTempDir();
    const dataDir = join(tmp, "a", "svc-filing");
    await writeAgentFile(dataDir, { senders: [], allowedOrigins: [] });
    equal(await mode(join(tmp, "a")), 0o700);
    equal(await mode(dataDir), 0o700);
    equal(await mode(join(dataDir, "agent.json")), 0o600);
    await Deno.remove(tmp, { recursive: true });
  },
});
