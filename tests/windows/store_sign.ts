/**
 * Run under Wine by tests/windows/win32_api_test.ts (bundled with `deno bundle`, then run by the
 * package's own deno.exe): signs a file as a detached CMS with the first certificate of the
 * Windows store — the same code the agent signs with (src/signing: openWindowsCertStore,
 * signDetached) — and writes the signature and the certificate beside it, and how long the
 * store took to sign (`<out>.ms`, for BENCHMARKS.md).
 * Usage: deno.exe run -A store_sign.bundle.js FILE OUT.p7s [ROUNDS]
 */
import { keyStoreSigner, openWindowsCertStore, signDetached } from "../../src/signing/mod.ts";

const [file, out, rounds = "1"] = Deno.args;
if (!file || !out) {
  console.error("usage: store_sign FILE OUT.p7s [ROUNDS]");
  Deno.exit(2);
}
const store = openWindowsCertStore();
const [cert] = await store.listCertificates();
if (!cert) {
  console.error("no certificate with a key in the Windows store");
  Deno.exit(1);
}
const data = await Deno.readFile(file);
const p7s = await signDetached(data, keyStoreSigner(store, cert));
const times: number[] = [];
for (let i = 0; i < Number(rounds); i++) {
  const t0 = performance.now();
  await store.sign(cert.id, data);
  times.push(performance.now() - t0);
}
await Deno.writeFile(out, p7s);
await Deno.writeFile(`${out}.cer`, cert.der);
await Deno.writeTextFile(`${out}.ms`, JSON.stringify(times));
console.log(JSON.stringify({ id: cert.id, subject: cert.subject, personalId: cert.personalId }));
