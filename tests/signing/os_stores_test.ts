/**
 * The macOS Keychain key store with an injected command runner (the Windows store is in
 * windows_store_test.ts):
 * command construction and parsing of sample outputs. The samples follow the formats PowerShell
 * (ConvertTo-Json) and `security` print; they were synthesised on Linux, not captured on those
 * OSes (see docs/signing.md).
 */

import assert from "node:assert/strict";
import { isAppError } from "../../src/contract/errors.ts";
import { digest } from "../../src/signing/bytes.ts";
import type { CommandRequest, CommandResult } from "../../src/command_runner.ts";
import {
  FIND_CERTIFICATE_ARGS,
  FIND_IDENTITY_ARGS,
  JXA_SIGN_SCRIPT,
  openMacKeychain,
  parseFindIdentity,
} from "../../src/signing/os/macos_keychain.ts";
import { makeCert, pem } from "../_helpers/pki.ts";

const rsa = await makeCert({ subject: "CN=Ivan Petrov, 2.5.4.5=PNOBG-8001010008, C=BG" });
const ec = await makeCert({ subject: "CN=EC Person, C=BG", kind: "EC-P256" });
const b64 = (b: Uint8Array) => b.toBase64();
const sha1 = async (b: Uint8Array) => (await digest(b, "SHA-1")).toHex().toUpperCase();

/** A runner that answers from a script of canned results and records requests. */
function fakeRunner(answer: (req: CommandRequest) => CommandResult) {
  const seen: CommandRequest[] = [];
  return {
    seen,
    run: (req: CommandRequest) => (seen.push(req), Promise.resolve(answer(req))),
  };
}
const ok = (stdout: string): CommandResult => ({ code: 0, stdout, stderr: "" });
async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "resolved";
  } catch (e) {
    assert.ok(isAppError(e), String(e));
    return e.code;
  }
}

const FIND_IDENTITY_SAMPLE = (h1: string, h2: string) => `
Policy: X.509 Basic
  Matching identities
  1) ${h1} "Ivan Petrov"
  2) ${h2} "EC Person" (CSSMERR_TP_CERT_EXPIRED)
     2 identities found

  Valid identities only
  1) ${h1} "Ivan Petrov"
     1 valid identities found
`;
const FIND_CERT_SAMPLE = async (...certs: Uint8Array[]) =>
  (await Promise.all(
    certs.map(async (c) =>
      `SHA-256 hash: ${(await digest(c)).toHex().toUpperCase()}\nSHA-1 hash: ${await sha1(c)}\n${
        pem("CERTIFICATE", c)
      }`
    ),
  )).join("");

Deno.test("openMacKeychain() lists identities with `security` and parses PEM by SHA-1", async () => {
  const h1 = await sha1(rsa.der), h2 = await sha1(ec.der);
  const other = await makeCert({ subject: "CN=Root without key", kind: "EC-P256" });
  const certsOut = await FIND_CERT_SAMPLE(other.der, rsa.der, ec.der);
  const r = fakeRunner((req) =>
    ok(req.args[0] === "find-identity" ? FIND_IDENTITY_SAMPLE(h1, h2) : certsOut)
  );
  const certs = await openMacKeychain({ run: r.run }).listCertificates();
  assert.deepEqual(r.seen.map((s) => [s.cmd, ...s.args]), [
    ["security", ...FIND_IDENTITY_ARGS],
    ["security", ...FIND_CERTIFICATE_ARGS],
  ]);
  assert.deepEqual(certs.map((c) => [c.id, c.label]), [[`macos:${h1}`, "Ivan Petrov"], [
    `macos:${h2}`,
    "EC Person",
  ]]);
  assert.equal(
    parseFindIdentity(FIND_IDENTITY_SAMPLE(h1, h2)).length,
    2,
    "valid-only section not duplicated",
  );
});

Deno.test("openMacKeychain() sign() runs the JXA signer with the certificate and maps OSStatus", async () => {
  const h1 = await sha1(rsa.der);
  const certsOut = await FIND_CERT_SAMPLE(rsa.der);
  let signOut = "OK:AAEC\n";
  const r = fakeRunner((req) =>
    req.cmd === "osascript"
      ? ok(signOut)
      : ok(req.args[0] === "find-identity" ? FIND_IDENTITY_SAMPLE(h1, "F".repeat(40)) : certsOut)
  );
  const store = openMacKeychain({ run: r.run });
  const data = new TextEncoder().encode("attrs");
  assert.deepEqual(await store.sign(`macos:${h1}`, data, "ignored-pin"), new Uint8Array([0, 1, 2]));
  const call = r.seen.find((s) => s.cmd === "osascript")!;
  assert.deepEqual(call.args.slice(0, 4), ["-l", "JavaScript", "-e", JXA_SIGN_SCRIPT]);
  assert.deepEqual(call.args.slice(4), [b64(rsa.der), "RSA"]);
  assert.equal(new TextDecoder().decode(call.stdin), b64(data));
  assert.ok(!JSON.stringify(r.seen).includes("ignored-pin"));
  for (
    const [out, code] of [
      ["ERR:-25293:auth failed", "PIN_INCORRECT"],
      ["ERR:-128:cancelled", "KEYSTORE_UNAVAILABLE"],
      ["ERR:-25300:not found", "CERTIFICATE_INVALID"],
      ["ERR:-50:param", "SIGNING_FAILED"],
    ] as const
  ) {
    signOut = out;
    assert.equal(await codeOf(store.sign(`macos:${h1}`, data)), code, out);
  }
  assert.equal(await codeOf(store.sign("macos:0000", data)), "CERTIFICATE_INVALID");
});
