import * as assert from "node:assert/strict";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { packageEntries } from "../../scripts/package.ts";
import { fixedTime, zipArchive } from "../../scripts/package/archive.ts";
import { cmdLauncher, runFlags, shLauncher } from "../../scripts/package/launchers.ts";
import { fetchRuntime, integrityOf, type Runner } from "../../scripts/package/runtime.ts";
import { PACKAGE_TARGETS } from "../../scripts/package/targets.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const target = (name: string) => PACKAGE_TARGETS.find((t) => t.name === name)!;

Deno.test("packageEntries() gives each target its runtime, app, assets and launchers", () => {
  const assets = new Map([["swagger-ui.css", enc("css")]]);
  const files = (name: string) =>
    packageEntries(target(name), enc("app"), enc("rt"), assets).map((e) =>
      `${e.path}${e.executable ? " *" : ""}`
    ).sort();
  assert.deepEqual(files("win-x64"), [
    "svc-filing/README.txt",
    "svc-filing/VERSION",
    "svc-filing/app/assets/swagger-ui-dist/swagger-ui.css",
    "svc-filing/app/svc-filing.js",
    "svc-filing/runtime/deno.exe *",
    "svc-filing/svc-filing.cmd",
  ]);
  assert.ok(files("macos-arm64").includes("svc-filing/svc-filing.command *"));
  assert.ok(files("macos-arm64").includes("svc-filing/svc-filing *"));
  assert.ok(files("macos-x64").includes("svc-filing/SVC Filing Agent.app/Contents/Info.plist"));
  assert.ok(
    files("macos-x64").includes(
      "svc-filing/SVC Filing Agent.app/Contents/MacOS/svc-filing-agent *",
    ),
  );
  assert.equal(files("linux-x64").some((f) => f.includes(".app/")), false);
  assert.ok(files("linux-x64").includes("svc-filing/svc-filing *"));
});

Deno.test("zipArchive() is reproducible and keeps Unix modes and one fixed time", () => {
  const entries = [
    { path: "svc-filing/b.txt", bytes: enc("b") },
    { path: "svc-filing/a", bytes: enc("#!/bin/sh\n"), executable: true },
  ];
  const t = fixedTime(undefined);
  const one = zipArchive(entries, t);
  const two = zipArchive([...entries].reverse(), t);
  assert.deepEqual(one, two);
  assert.deepEqual(Object.keys(unzipSync(one)), ["svc-filing/a", "svc-filing/b.txt"]);
  assert.equal(t.toISOString(), "1980-01-02T00:00:00.000Z");
  assert.equal(fixedTime("1700000000").getTime(), 1_700_000_000_000);
});

Deno.test("the sh launcher refuses an unwritable data folder with one sentence and exit 1", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "svc-filing"), shLauncher("linux"));
    await Deno.writeTextFile(join(dir, "blocker"), "a file, not a folder");
    const o = await new Deno.Command("sh", {
      args: [join(dir, "svc-filing"), "--version"],
      env: { SVC_DATA_DIR: join(dir, "blocker", "data") },
      stderr: "piped",
      stdout: "piped",
    }).output();
    assert.equal(o.code, 1);
    const err = new TextDecoder().decode(o.stderr).trim();
    assert.equal(err.split("\n").length, 1, err);
    assert.match(err, /cannot create the data folder .*blocker\/data; set SVC_DATA_DIR/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the launchers run the app with named permissions, nothing fetched, agent by default", () => {
  const flags = runFlags();
  assert.equal(flags.includes("-A"), false);
  for (const f of ["--no-remote", "--no-npm", "--no-config", "--no-lock", "--allow-ffi"]) {
    assert.ok(flags.includes(f), f);
  }
  const sh = shLauncher("darwin");
  assert.match(sh, /Library\/Application Support\/svc-filing/);
  assert.match(sh, /\[ "\$#" -eq 0 \] && set -- agent/);
  assert.match(sh, /DENO_DIR="\$DATA\/runtime-cache"/);
  const cmd = cmdLauncher();
  assert.ok(cmd.includes("\r\n"));
  assert.match(cmd, /app\\svc-filing\.js" agent/);
  assert.match(cmd, /%LOCALAPPDATA%\\svc-filing/);
});

Deno.test("fetchRuntime() refuses a tarball whose integrity differs from the registry's", async () => {
  const cache = await Deno.makeTempDir();
  try {
    const tarball = enc("not the runtime");
    const run: Runner = async (cmd, args) => {
      if (cmd === "npm" && args[0] === "view") {
        return { code: 0, out: JSON.stringify(integrityOf(enc("the real one"))), err: "" };
      }
      if (cmd === "npm" && args[0] === "pack") {
        await Deno.writeFile(join(cache, "deno-linux-x64-glibc-2.9.6.tgz"), tarball);
        return { code: 0, out: "", err: "" };
      }
      return { code: 1, out: "", err: "unexpected" };
    };
    await assert.rejects(
      fetchRuntime(target("linux-x64"), "2.9.6", cache, run),
      /integrity .* differs from the registry's/,
    );
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});
