/**
 * Signing benchmark, one run: detached CMS signatures per second for 1 KB and 1 MB files with
 * our signer (PKCS#12 key via WebCrypto, SoftHSM2 key via PKCS#11/Deno.dlopen) against
 * `openssl cms -sign -binary -outform DER -md sha256` on the same key material (the PEM key the
 * PFX and the token were made from), openssl spawned once per signature with `-in <file>`.
 * Also measures the bare process-spawn cost (`openssl version`). Prints a markdown table.
 *
 *   bash scripts/softhsm_setup.sh && deno run -A scripts/bench_sign.ts [seconds-per-cell]
 * @module
 */

import { join } from "node:path";
import { keyStoreSigner, signDetached } from "../src/signing/cms.ts";
import type { CertificateInfo, KeyStore } from "../src/signing/keystore.ts";
import { openPkcs11KeyStore } from "../src/signing/pkcs11/keystore.ts";
import { openPkcs12KeyStore } from "../src/signing/pkcs12.ts";
import { runOk, type SignerFiles, writeTestPki } from "../tests/_helpers/pki.ts";
import { createSoftHsmToken, TOKEN_PIN } from "../tests/signing/softhsm_fixture.ts";

const SECONDS = Number(Deno.args[0] ?? "1.5");
const MIN_ITER = 5;

interface Row {
  signer: string;
  key: string;
  size: string;
  perSec: number;
  msPer: number;
}

/** Runs `fn` repeatedly for SECONDS (at least MIN_ITER times) after one warm-up call. */
async function measure(fn: () => Promise<unknown>): Promise<{ perSec: number; msPer: number }> {
  await fn();
  let n = 0;
  const t0 = performance.now();
  while (n < MIN_ITER || performance.now() - t0 < SECONDS * 1000) {
    await fn();
    n++;
  }
  const ms = (performance.now() - t0) / n;
  return { perSec: 1000 / ms, msPer: ms };
}

async function spawn(args: string[]): Promise<void> {
  const out = await new Deno.Command("openssl", { args, stdout: "null", stderr: "piped" }).output();
  if (out.code !== 0) {
    throw new Error(`openssl ${args[0]} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

const dir = await Deno.makeTempDir({ prefix: "bench-sign-" });
try {
  const pki = await writeTestPki(dir);
  const token = await createSoftHsmToken(pki, dir);
  const files: Record<string, { path: string; bytes: Uint8Array }> = {};
  for (const [label, size] of [["1 KB", 1024], ["1 MB", 1024 * 1024]] as const) {
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536));
    const path = join(dir, `data-${size}.bin`);
    await Deno.writeFile(path, bytes);
    files[label] = { path, bytes };
  }
  const p11 = await openPkcs11KeyStore({ modulePath: token.module });
  const p11Certs = await p11.listCertificates();
  const rows: Row[] = [];
  const spawnCost = await measure(() => spawn(["version"]));

  const keys: [string, SignerFiles][] = [["RSA-2048", pki.rsa], ["EC P-256", pki.ec]];
  for (const [keyName, s] of keys) {
    const pfxPath = join(dir, `${s.cert.kind}.p12`);
    await runOk("openssl", [
      "pkcs12",
      "-export",
      "-inkey",
      s.keyPem,
      "-in",
      s.certPem,
      "-out",
      pfxPath,
      "-passout",
      "pass:pw",
    ]);
    const p12 = openPkcs12KeyStore(await Deno.readFile(pfxPath));
    const [p12Cert] = await p12.listCertificates("pw");
    if (!p12Cert) throw new Error("The benchmark's PKCS#12 file holds no certificate");
    const p11Cert = p11Certs.find((c) => c.keyAlgorithm === s.cert.kind)!;
    const ours: [string, KeyStore, CertificateInfo, string][] = [
      ["ours, PKCS#12 (WebCrypto)", p12, p12Cert, "pw"],
      ["ours, SoftHSM2 (PKCS#11 FFI)", p11, p11Cert, TOKEN_PIN],
    ];
    for (const [size, f] of Object.entries(files)) {
      for (const [name, store, cert, pin] of ours) {
        const m = await measure(() => signDetached(f.bytes, keyStoreSigner(store, cert, pin)));
        rows.push({ signer: name, key: keyName, size, ...m });
      }
      const out = join(dir, "openssl.p7s");
      const m = await measure(() =>
        spawn([
          "cms",
          "-sign",
          "-binary",
          "-outform",
          "DER",
          "-md",
          "sha256",
          "-signer",
          s.certPem,
          "-inkey",
          s.keyPem,
          "-in",
          f.path,
          "-out",
          out,
        ])
      );
      rows.push({ signer: "openssl cms -sign (1 process/signature)", key: keyName, size, ...m });
    }
    await p12.close();
  }
  await p11.close();

  const fmt = (n: number, d = 1) => n.toFixed(d);
  const lines = [
    `Signing benchmark: ${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} cores, ` +
    `deno ${Deno.version.deno}, ${(await runOk("openssl", ["version"])).trim()}, ` +
    `${SECONDS}s per cell (min ${MIN_ITER} signatures)`,
    "",
    "| key | file | signer | signatures/s | ms/signature | vs openssl (×) |",
    "|---|---|---|---:|---:|---:|",
  ];
  for (const r of rows) {
    const base = rows.find((x) =>
      x.key === r.key && x.size === r.size && x.signer.startsWith("openssl")
    )!;
    lines.push(
      `| ${r.key} | ${r.size} | ${r.signer} | ${fmt(r.perSec)} | ${fmt(r.msPer, 2)} | ${
        fmt(r.perSec / base.perSec, 2)
      } |`,
    );
  }
  lines.push(
    "",
    `Process spawn alone (\`openssl version\`): ${fmt(spawnCost.msPer, 2)} ms ` +
      `(${fmt(spawnCost.perSec)}/s): the floor of any per-signature openssl invocation.`,
  );
  console.log(lines.join("\n"));
} finally {
  await Deno.remove(dir, { recursive: true });
}
