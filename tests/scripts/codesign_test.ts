/**
 * Authenticode signing of the Windows files (docs/install.md § Signed or unsigned), through the
 * build's own Windows step (scripts/package/windows.ts): a throw-away code-signing CA and
 * publisher certificate made with openssl, `svc-filing.exe` and an MSI built with mingw-w64 and
 * wixl, signed with osslsigncode from SVC_CODESIGN_PFX / SVC_CODESIGN_PASSWORD, and both files
 * accepted by `osslsigncode verify -CAfile` with that CA — and refused with another CA. Without
 * the variables the step says "unsigned" in one line and the files carry no signature. Skips
 * where a tool is missing; fails instead under CI=true.
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { skipUnless } from "../_helpers/require_tool.ts";
import { windowsExtras } from "../../scripts/package/windows.ts";
import { verifySignature } from "../../scripts/package/codesign.ts";

const TOOLS = [
  "openssl",
  "osslsigncode",
  "x86_64-w64-mingw32-gcc",
  "x86_64-w64-mingw32-windres",
  "wixl",
  "msibuild",
  "msiinfo",
];

async function sh(dir: string, script: string): Promise<void> {
  const o = await new Deno.Command("sh", { args: ["-ec", script], cwd: dir, stderr: "piped" })
    .output();
  if (!o.success) throw new Error(new TextDecoder().decode(o.stderr));
}

/** A CA and a code-signing certificate it issued, as PEM files and a PKCS#12. */
async function throwAwayPki(dir: string, name: string) {
  await sh(
    dir,
    `
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=${name} test CA" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
  -keyout ${name}-ca.key -out ${name}-ca.pem 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=SVC test publisher/O=SVC" \
  -keyout ${name}-signer.key -out ${name}-signer.csr 2>/dev/null
printf 'basicConstraints=CA:FALSE\\nkeyUsage=critical,digitalSignature\\nextendedKeyUsage=codeSigning\\n' > ${name}-ext.cnf
openssl x509 -req -in ${name}-signer.csr -CA ${name}-ca.pem -CAkey ${name}-ca.key \
  -CAcreateserial -days 2 -extfile ${name}-ext.cnf -out ${name}-signer.pem 2>/dev/null
openssl pkcs12 -export -inkey ${name}-signer.key -in ${name}-signer.pem -certfile ${name}-ca.pem \
  -passout pass:throw-away -out ${name}-signer.p12
`,
  );
  return { ca: join(dir, `${name}-ca.pem`), pfx: join(dir, `${name}-signer.p12`) };
}

Deno.test({
  name: "the build signs svc-filing.exe and the MSI; osslsigncode verify -CAfile accepts both",
  ignore: skipUnless(TOOLS, "Authenticode signing"),
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "svc-codesign-" });
    try {
      const pki = await throwAwayPki(dir, "a");
      const other = await throwAwayPki(dir, "b");
      const lines: string[] = [];
      const env = {
        SVC_CODESIGN_PFX: pki.pfx,
        SVC_CODESIGN_PASSWORD: "throw-away",
        SVC_CODESIGN_CA: pki.ca,
      };
      const win = await windowsExtras({ outDir: dir, env, log: (l) => lines.push(l) });
      assert.ok(win.launcherExe, lines.join("\n"));
      const exe = join(dir, "svc-filing.exe");
      await Deno.writeFile(exe, win.launcherExe);
      // A small MSI from the same step (the real one differs only in its files).
      const enc = new TextEncoder();
      const msi = await win.msi("0.1.0", [
        { path: "svc-filing/svc-filing.exe", bytes: win.launcherExe, executable: true },
        { path: "svc-filing/VERSION", bytes: enc.encode("0.1.0\n") },
      ]);
      assert.ok(msi, lines.join("\n"));
      assert.ok(!lines.some((l) => /unsigned/.test(l)), lines.join("\n"));
      assert.equal(
        lines.filter((l) => /signed and verified \(.*SVC test publisher/.test(l)).length,
        2,
      );
      for (const f of [exe, join(dir, msi.file)]) {
        const ok = await verifySignature(f, pki.ca);
        assert.ok(ok.ok, `${f}: ${ok.detail}`);
        assert.match(ok.signer, /SVC test publisher/);
        // Another CA does not vouch for it: the verification reads the chain, not a flag.
        const bad = await verifySignature(f, other.ca);
        assert.equal(bad.ok, false, `${f} verified against an unrelated CA`);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "without SVC_CODESIGN_PFX the build says unsigned in one line; the exe has no signature",
  ignore: skipUnless(TOOLS, "Authenticode signing"),
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "svc-codesign-" });
    try {
      const lines: string[] = [];
      const win = await windowsExtras({ outDir: dir, env: {}, log: (l) => lines.push(l) });
      assert.deepEqual(lines.filter((l) => /unsigned/.test(l)).length, 1, lines.join("\n"));
      assert.match(lines[0]!, /^unsigned: svc-filing\.exe and the MSI/);
      const exe = join(dir, "svc-filing.exe");
      await Deno.writeFile(exe, win.launcherExe!);
      assert.equal((await verifySignature(exe, undefined)).ok, false);
      // Only one of the two variables: refused, not a silent unsigned build.
      await assert.rejects(
        windowsExtras({ outDir: dir, env: { SVC_CODESIGN_PFX: "x.p12" }, log: () => {} }),
        /set both SVC_CODESIGN_PFX and SVC_CODESIGN_PASSWORD/,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
