/**
 * The Windows parts through the Windows API, executed under Wine with the win-x64 package:
 * - whether a process is alive (`OpenProcess` / `GetExitCodeProcess`): `agent doctor` names the
 *   running agent as this data folder's own;
 * - `agent trust-certificate` adds the loopback CA to the user's Root store
 *   (`CertAddEncodedCertificateToStore`), reads it back, and `reg query` shows it;
 * - the certificate store: a PKCS#12 with a Cyrillic subject and a `serialNumber` imported into
 *   `CurrentUser\My` (tests/windows/import_pfx.c, built here with mingw-w64), listed by
 *   `senders discover`, added as a sender and tested by `senders test` (a signature made and
 *   verified by the agent), and a D1 file signed through the store by the agent's own signing
 *   code (tests/windows/store_sign.ts, bundled, run by the package's deno.exe), which
 *   `openssl cms -verify` accepts. Wine 8 takes the CryptoAPI path (its key spec 3 and
 *   NTE_BAD_ALGID, see src/signing/os/windows_store.ts); the CNG path is covered by
 *   tests/signing/windows_store_test.ts.
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  makeCert,
  pem,
  TEST_CA_SUBJECT,
  TEST_PERSONAL_ID,
  writePkcs12,
  writeSigner,
} from "../_helpers/pki.ts";
import { opensslVerify } from "../signing/openssl_verify.ts";
import {
  compileImportPfx,
  skipWithoutWine,
  waitFor,
  type WineMachine,
  wineMachine,
} from "../_helpers/wine.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const ignore = skipWithoutWine("Windows API under Wine");
let machine: WineMachine | null = null;
const m = async () => machine ??= await wineMachine();

async function mustRun(cmd: string, args: string[], cwd = ROOT) {
  const o = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  if (!o.success) throw new Error(`${cmd} ${args.join(" ")}: ${dec.decode(o.stderr)}`);
  return dec.decode(o.stdout);
}

Deno.test({
  name: "[wine] agent doctor names the running agent as this data folder's (OpenProcess)",
  ignore,
  sanitizeResources: false,
  async fn() {
    const mm = await m();
    const env = { SVC_DATA_DIR: "C:\\doctor-data", SVC_OPEN_BROWSER: "never", SVC_AGENT_PORT: "0" };
    const agent = mm.spawn([], env);
    await agent.child.stdin.close();
    await waitFor("the agent's address", async () => /^Agent: http/m.test(await agent.stdout()));
    const url = /^Agent: (http\S+)/m.exec(await agent.stdout())![1]!;
    const port = Number(new URL(url).port);
    const lock = JSON.parse(
      await Deno.readTextFile(join(mm.unixPath("C:\\doctor-data"), "agent.lock")),
    );
    const doctor = await mm.cli(["agent", "doctor", "--json"], { env });
    const report = JSON.parse(doctor.stdout);
    const text = JSON.stringify(report);
    assert.match(
      text,
      new RegExp(
        `This data folder's agent \\(pid ${lock.pid}, version [^)]+\\) listens on ${port}`,
      ),
      doctor.stdout + doctor.stderr,
    );
    assert.doesNotMatch(text, new RegExp(`another agent[^"]*${port}`));
    for (const pid of await mm.denoPids()) Deno.kill(pid, "SIGINT");
    assert.equal((await agent.child.status).code, 0);
  },
});

Deno.test({
  name:
    "[wine] agent trust-certificate adds the loopback CA to the user's Root store and reads it back",
  ignore,
  sanitizeResources: false,
  async fn() {
    const mm = await m();
    const env = { SVC_DATA_DIR: "C:\\tls-data" };
    const r = await mm.cli(["agent", "trust-certificate"], { env });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /CertAddEncodedCertificateToStore\) and read back/);
    assert.doesNotMatch(r.stdout, /certutil/);
    const caPem = await Deno.readTextFile(join(mm.unixPath("C:\\tls-data"), "tls", "ca.pem"))
      .catch(async () => {
        // The CA's file name is the agent's; find it.
        const dir = mm.unixPath("C:\\tls-data");
        for await (const e of Deno.readDir(dir)) {
          if (e.name.endsWith("ca.pem")) return Deno.readTextFile(join(dir, e.name));
        }
        throw new Error(`no ca.pem in ${dir}`);
      });
    const der = Uint8Array.fromBase64(caPem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, ""));
    const sha1 = new Uint8Array(await crypto.subtle.digest("SHA-1", der)).toHex().toUpperCase();
    const q = await mm.wine([
      "reg",
      "query",
      "HKCU\\Software\\Microsoft\\SystemCertificates\\Root\\Certificates",
    ]);
    assert.match(q.stdout.toUpperCase(), new RegExp(sha1), q.stdout + q.stderr);
  },
});

Deno.test({
  name:
    "[wine] a PKCS#12 in CurrentUser\\My: listed as a sender, tested, and a D1 file signed through the store verifies with openssl",
  ignore,
  sanitizeResources: false,
  async fn() {
    const mm = await m();
    const work = join(mm.prefix, "drive_c", "work");
    await Deno.mkdir(work, { recursive: true });
    // The identity: a Cyrillic subject with the holder's serialNumber, issued by a test CA.
    const ca = await makeCert({ subject: TEST_CA_SUBJECT, ca: true });
    const files = await writeSigner(
      work,
      "signer",
      `CN=Иван Петров Тестов, 2.5.4.5=${TEST_PERSONAL_ID}, C=BG`,
      ca,
    );
    const signer = files.cert;
    await Deno.writeTextFile(join(work, "ca.pem"), pem("CERTIFICATE", ca.der));
    await writePkcs12(
      files,
      join(work, "id.p12"),
      "test-1234",
      ["-certfile", join(work, "ca.pem")],
    );
    await compileImportPfx(work);
    const imp = await mm.wine(["C:\\work\\import_pfx.exe", "C:\\work\\id.p12", "test-1234"]);
    assert.equal(imp.code, 0, `PFXImportCertStore: ${imp.stdout}${imp.stderr}`);
    assert.match(imp.stdout, /imported 1/);
    const thumb = new Uint8Array(await crypto.subtle.digest("SHA-1", signer.der as BufferSource))
      .toHex().toUpperCase();

    // The agent lists it (no PowerShell: Wine has none).
    const env = { SVC_DATA_DIR: "C:\\store-data" };
    const found = await mm.cli(["senders", "discover", "--json"], { env });
    assert.equal(found.code, 0, found.stdout + found.stderr);
    const scan = JSON.parse(found.stdout);
    const cert = scan.certificates.find((c: { ref: { type: string; thumbprint?: string } }) =>
      c.ref.type === "windows" && c.ref.thumbprint === thumb
    );
    assert.ok(cert, found.stdout);
    assert.match(cert.subject, /Иван Петров Тестов/);

    const add = await mm.cli(
      ["senders", "add", "--id", "ivan", "--name", "Иван Петров", "--windows", thumb, "--force"],
      { env },
    );
    assert.equal(add.code, 0, add.stdout + add.stderr);
    const test = await mm.cli(["senders", "test", "ivan"], { env });
    assert.equal(test.code, 0, test.stdout + test.stderr);

    // A D1 file signed through the store by the agent's signing code; openssl accepts it.
    const d1 = await Deno.readFile(join(ROOT, "fixtures", "formats", "d1", "EMPL2021_UTF8.TXT"));
    await Deno.writeFile(join(work, "EMPL2021.TXT"), d1);
    await mustRun(Deno.execPath(), [
      "bundle",
      "--quiet",
      "--output",
      join(work, "store_sign.js"),
      "tests/windows/store_sign.ts",
    ]);
    const sign = await mm.wine([
      "C:\\svc-filing\\runtime\\deno.exe",
      "run",
      "-A",
      "--no-config",
      "C:\\work\\store_sign.js",
      "C:\\work\\EMPL2021.TXT",
      "C:\\work\\EMPL2021.TXT.p7s",
    ]);
    assert.equal(sign.code, 0, sign.stdout + sign.stderr);
    assert.match(sign.stdout, /"personalId":"PNOBG-8001010008"/);
    const p7s = await Deno.readFile(join(work, "EMPL2021.TXT.p7s"));
    const v = await opensslVerify(work, "d1", p7s, d1, join(work, "ca.pem"));
    assert.equal(v.code, 0, v.output);
    assert.match(v.output, /Verification successful/);
  },
});

Deno.test({
  name: "[wine] close the Wine prefix (Windows API tests)",
  ignore,
  sanitizeResources: false,
  async fn() {
    await machine?.close();
  },
});
