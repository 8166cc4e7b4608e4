/**
 * The win-x64 package under Wine against Linux, in one run (BENCHMARKS.md, "Windows under Wine"):
 * 1. agent start to the first `/health` answer: `svc-filing.cmd agent` under Wine 8 (the
 *    test-only shim of tests/windows/wine_shim.c) against the linux-x64 package's `svc-filing
 *    agent`, each started N times in a fresh data folder, from the spawn of the launcher to the
 *    first HTTP 200 of `/health`;
 * 2. one RSA-2048 SHA-256 signature through the Windows certificate store (a PKCS#12 imported
 *    into the prefix's `CurrentUser\My`; src/signing/os through crypt32/advapi32 under Wine)
 *    against `openssl dgst -sha256 -sign` on the same key (one process per signature, as the
 *    store is asked once per signature).
 * Needs wine64, x86_64-w64-mingw32-gcc and openssl. Usage: `deno run -A scripts/bench_wine.ts
 * [--runs N] [--signatures N]`.
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildPackages } from "./package.ts";
import { PACKAGE_TARGETS } from "./package/targets.ts";
import {
  makeCert,
  TEST_CA_SUBJECT,
  TEST_PERSONAL_ID,
  writePkcs12,
  writeSigner,
} from "../tests/_helpers/pki.ts";
import { compileImportPfx, wineMachine, wineMissing } from "../tests/_helpers/wine.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "5" },
    signatures: { type: "string", default: "30" },
  },
});
const RUNS = Number(values.runs);
const SIGNATURES = Number(values.signatures);
const why = wineMissing();
if (why) {
  console.error(`bench_wine: ${why}`);
  Deno.exit(1);
}

async function mustRun(cmd: string, args: string[], cwd = ROOT) {
  const o = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  if (!o.success) {
    throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(o.stderr)}`);
  }
}

async function firstHealth(url: () => Promise<string | null>, t0: number): Promise<number> {
  for (;;) {
    const u = await url();
    if (u) {
      const ok = await fetch(`${u}/health`).then(
        async (r) => (await r.body?.cancel(), r.ok),
        () => false,
      );
      if (ok) return performance.now() - t0;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

const machine = await wineMachine();
const tmp = await Deno.makeTempDir({ prefix: "svc-bench-wine-" });
try {
  // 1a. Wine.
  const wine: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const p = machine.spawn([], {
      SVC_DATA_DIR: `C:\\bench-${i}`,
      SVC_AGENT_PORT: "0",
      SVC_OPEN_BROWSER: "never",
    });
    await p.child.stdin.close();
    wine.push(
      await firstHealth(async () => /^Agent: (http\S+)/m.exec(await p.stdout())?.[1] ?? null, t0),
    );
    for (const pid of await machine.denoPids()) Deno.kill(pid, "SIGINT");
    await p.child.status;
  }
  // 1b. The linux-x64 package from the same bundle.
  const [info] = await buildPackages({
    bundle: machine.build.bundle,
    outDir: tmp,
    targets: PACKAGE_TARGETS.filter((t) => t.name === "linux-x64"),
    log: () => {},
  });
  await mustRun("tar", ["-xzf", join(tmp, info!.file), "-C", tmp]);
  const linux: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const child = new Deno.Command(join(tmp, "svc-filing", "svc-filing"), {
      args: ["agent"],
      clearEnv: true,
      env: {
        PATH: "/usr/bin:/bin",
        HOME: join(tmp, "home"),
        SVC_DATA_DIR: join(tmp, `data-${i}`),
        SVC_AGENT_PORT: "0",
        SVC_OPEN_BROWSER: "never",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    let out = "";
    const reading = (async () => {
      for await (const c of child.stdout.pipeThrough(new TextDecoderStream())) out += c;
    })();
    linux.push(
      await firstHealth(() => Promise.resolve(/^Agent: (http\S+)/m.exec(out)?.[1] ?? null), t0),
    );
    child.kill("SIGINT");
    await child.status;
    await reading;
  }

  // 2. Signatures: the store under Wine against openssl on the same key.
  const work = join(machine.prefix, "drive_c", "bench");
  await Deno.mkdir(work, { recursive: true });
  const ca = await makeCert({ subject: TEST_CA_SUBJECT, ca: true });
  const signer = await writeSigner(
    work,
    "signer",
    `CN=Бенчмарк, 2.5.4.5=${TEST_PERSONAL_ID}, C=BG`,
    ca,
  );
  await writePkcs12(signer, join(work, "id.p12"), "bench");
  await compileImportPfx(work);
  const imp = await machine.wine(["C:\\bench\\import_pfx.exe", "C:\\bench\\id.p12", "bench"]);
  if (imp.code !== 0) throw new Error(`import: ${imp.stdout}${imp.stderr}`);
  await mustRun(Deno.execPath(), [
    "bundle",
    "--quiet",
    "--output",
    join(work, "store_sign.js"),
    "tests/windows/store_sign.ts",
  ]);
  const data = new TextEncoder().encode("signed attributes".repeat(20));
  await Deno.writeFile(join(work, "data.bin"), data);
  const sign = await machine.wine([
    "C:\\svc-filing\\runtime\\deno.exe",
    "run",
    "-A",
    "--no-config",
    "C:\\bench\\store_sign.js",
    "C:\\bench\\data.bin",
    "C:\\bench\\data.p7s",
    String(SIGNATURES),
  ]);
  if (sign.code !== 0) throw new Error(`store_sign: ${sign.stdout}${sign.stderr}`);
  const store: number[] = JSON.parse(await Deno.readTextFile(join(work, "data.p7s.ms")));
  const openssl: number[] = [];
  for (let i = 0; i < SIGNATURES; i++) {
    const t0 = performance.now();
    await mustRun("openssl", [
      "dgst",
      "-sha256",
      "-sign",
      signer.keyPem,
      "-out",
      join(work, "o.sig"),
      join(work, "data.bin"),
    ]);
    openssl.push(performance.now() - t0);
  }

  const wm = median(wine);
  const lm = median(linux);
  const sm = median(store);
  const om = median(openssl);
  console.log(`agent start to /health (median of ${RUNS}):`);
  console.log(`  linux-x64 package          ${fmt(lm)}   (runs: ${linux.map(fmt).join(", ")})`);
  console.log(
    `  win-x64 package under Wine ${fmt(wm)}   (runs: ${wine.map(fmt).join(", ")})  ${
      (wm / lm).toFixed(1)
    }× linux`,
  );
  console.log(`one RSA-2048 SHA-256 signature (median of ${SIGNATURES}):`);
  console.log(`  openssl dgst -sign (a process each) ${om.toFixed(1)} ms`);
  console.log(
    `  Windows store under Wine (in process) ${sm.toFixed(1)} ms  ${(sm / om).toFixed(2)}× openssl`,
  );
} finally {
  await machine.close();
  await Deno.remove(tmp, { recursive: true }).catch(() => {});
}
