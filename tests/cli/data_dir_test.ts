/**
 * The data directory, decided in one place (`resolveDataDir()`, src/cli/data_dir.ts):
 * `--data-dir` > `SVC_DATA_DIR` > the per-OS default; and every command uses it (spawned
 * subprocesses of `main.ts`).
 */
import { deepStrictEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { resolveDataDir } from "../../src/cli/data_dir.ts";
import { runMain } from "./_run.ts";

Deno.test("resolveDataDir() prefers the flag, then SVC_DATA_DIR, then the OS default", () => {
  const env = {
    SVC_DATA_DIR: "/srv/svc",
    HOME: "/home/a",
    LOCALAPPDATA: "C:\\Users\\a\\AppData\\Local",
  };
  equal(resolveDataDir("/tmp/flag", env, "linux"), "/tmp/flag");
  equal(resolveDataDir(undefined, env, "linux"), "/srv/svc");
  equal(
    resolveDataDir(undefined, { ...env, SVC_DATA_DIR: "" }, "linux"),
    "/home/a/.local/share/svc-filing",
  );
  equal(
    resolveDataDir(undefined, { HOME: "/home/a", XDG_DATA_HOME: "/x" }, "linux"),
    "/x/svc-filing",
  );
  equal(
    resolveDataDir(undefined, { HOME: "/Users/a" }, "darwin"),
    "/Users/a/Library/Application Support/svc-filing",
  );
  equal(
    resolveDataDir(undefined, { LOCALAPPDATA: "C:\\Users\\a\\AppData\\Local" }, "windows"),
    "C:\\Users\\a\\AppData\\Local\\svc-filing",
  );
});

Deno.test({
  name: "[cli] every command reads the data directory flag > SVC_DATA_DIR > HOME default",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const root = await Deno.makeTempDir({ prefix: "svc-cli-dirs-" });
    const [flag, envDir, home] = ["flag", "env", "home"].map((d) => join(root, d)) as [
      string,
      string,
      string,
    ];
    const homeDefault = join(home, ".local", "share", "svc-filing");
    try {
      for (const d of [flag, envDir, homeDefault]) {
        await Deno.mkdir(d, { recursive: true });
        const name = d === flag ? "F" : d === envDir ? "E" : "H";
        await Deno.writeTextFile(
          join(d, "agent.json"),
          JSON.stringify({ senders: [{ id: name, displayName: name, active: true }] }),
        );
      }
      const senders = async (args: string[], env: Record<string, string>) =>
        (await runMain(["senders", "list", "--json", ...args], { HOME: home, ...env })).json()
          .map((s: { id: string }) => s.id);
      deepStrictEqual(await senders(["--data-dir", flag], { SVC_DATA_DIR: envDir }), ["F"]);
      deepStrictEqual(await senders([], { SVC_DATA_DIR: envDir }), ["E"]);
      deepStrictEqual(await senders([], {}), ["H"]);
      deepStrictEqual(await senders([], { SVC_DATA_DIR: "" }), ["H"], "empty = unset");

      // keys create and admin open the token service's SQLite file in the same directory.
      const key = await runMain(["keys", "create", "--mode", "test", "--json"], {
        HOME: home,
        SVC_DATA_DIR: envDir,
      });
      equal(key.code, 0, key.stderr);
      await Deno.stat(join(envDir, "token-service.sqlite"));
      const listed = await runMain(["admin", "keys", "list", "--json"], {
        HOME: home,
        SVC_DATA_DIR: envDir,
      });
      deepStrictEqual(listed.json().items.map((k: { id: string }) => k.id), [key.json().keyId]);
      const other = await runMain(["admin", "keys", "list", "--json", "--data-dir", flag], {
        HOME: home,
        SVC_DATA_DIR: envDir,
      });
      deepStrictEqual(other.json().items, []);

      // The agent (phase 1 and the doctor) and the journal use the same rule.
      const doctor = await runMain([
        "agent",
        "doctor",
        "--json",
        "--token-service",
        "http://127.0.0.1:9",
      ], {
        HOME: home,
      });
      const dataDirCheck = doctor.json().checks.find((c: { id: string }) => c.id === "data-dir");
      equal(dataDirCheck?.detail.includes(homeDefault), true, JSON.stringify(dataDirCheck));
      const journal = await runMain(["journal", "list", "--json"], { HOME: home });
      deepStrictEqual(journal.json(), []);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
