/**
 * {@link KeyStore} over the macOS Keychain through the OS's own tools, run via an injected
 * {@link CommandRunner}: `security find-identity` (which certificates have a private key) and
 * `security find-certificate -a -Z -p` (their PEM) to list; `osascript -l JavaScript` calling
 * Security.framework `SecKeyCreateSignature` to sign (the `security` CLI has no raw-sign
 * command). macOS (or the CryptoTokenKit smart-card driver) asks for the PIN itself; the `pin`
 * argument is ignored and never passed on.
 *
 * NOT VERIFIED ON macOS: built and unit-tested on Linux with outputs synthesised in the formats
 * `security` documents and prints; the JXA signer has not been run.
 * @module
 */

import { AppError, isAppError } from "../../contract/mod.ts";
import { toCertificateInfo } from "../cert_info.ts";
import type { CertificateInfo, KeyStore } from "../keystore.ts";
import type { CommandRunner } from "../../command_runner.ts";

/** Options of {@link openMacKeychain}. */
export interface MacKeychainOptions {
  /** Runs `security` and `osascript` (inject a fake in tests). */
  readonly run: CommandRunner;
}

/** `security` arguments that list identities (certificate + private key), expired ones too. */
export const FIND_IDENTITY_ARGS = ["find-identity", "-p", "basic"] as const;
/** `security` arguments that print every certificate with its SHA-1 hash and PEM. */
export const FIND_CERTIFICATE_ARGS = ["find-certificate", "-a", "-Z", "-p"] as const;

/**
 * SHA-1 hashes (upper case) and labels from `security find-identity` output ("Matching
 * identities" section, so expired identities are included and checked later with reasons).
 *
 * @param stdout the command's output
 * @returns identities in output order, without duplicates
 * @throws never
 */
export function parseFindIdentity(stdout: string): { sha1: string; label: string }[] {
  const out: { sha1: string; label: string }[] = [];
  const seen = new Set<string>();
  for (const line of stdout.split(/\r?\n/)) {
    if (/valid identities only/i.test(line)) break;
    const [, hash, label] = /^\s*\d+\)\s+([0-9A-Fa-f]{40})\s+"(.*)"/.exec(line) ?? [];
    if (hash === undefined || label === undefined || seen.has(hash.toUpperCase())) continue;
    seen.add(hash.toUpperCase());
    out.push({ sha1: hash.toUpperCase(), label });
  }
  return out;
}

/**
 * Certificates from `security find-certificate -a -Z -p` output, keyed by SHA-1 (upper case).
 *
 * @param stdout the command's output
 * @returns map SHA-1 → DER
 * @throws never
 */
export function parseFindCertificate(stdout: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const re =
    /SHA-1 hash:\s*([0-9A-Fa-f]{40})[\s\S]*?-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;
  for (const [, hash, pem] of stdout.matchAll(re)) {
    if (hash === undefined || pem === undefined) continue;
    const der = Uint8Array.fromBase64(pem); // skips the PEM line breaks
    out.set(hash.toUpperCase(), der);
  }
  return out;
}

/** JXA program: argv = [certificate DER Base64, "RSA"|"EC"]; data Base64 on stdin. */
export const JXA_SIGN_SCRIPT = `ObjC.import('Foundation');ObjC.import('Security');
function run(argv) {
  var input = $.NSFileHandle.fileHandleWithStandardInput.readDataToEndOfFile;
  var text = $.NSString.alloc.initWithDataEncoding(input, $.NSUTF8StringEncoding).js.trim();
  var data = $.NSData.alloc.initWithBase64EncodedStringOptions(text, 0);
  var q = $.NSMutableDictionary.alloc.init;
  q.setObjectForKey($.kSecClassIdentity, $.kSecClass);
  q.setObjectForKey($.kSecMatchLimitAll, $.kSecMatchLimit);
  q.setObjectForKey(true, $.kSecReturnRef);
  var found = Ref();
  var st = $.SecItemCopyMatching(q, found);
  if (st !== 0) return 'ERR:' + st + ':SecItemCopyMatching';
  var items = ObjC.castRefToObject(found[0]);
  for (var i = 0; i < items.count; i++) {
    var ident = items.objectAtIndex(i);
    var cert = Ref();
    if ($.SecIdentityCopyCertificate(ident, cert) !== 0) continue;
    var der = ObjC.castRefToObject($.SecCertificateCopyData(cert[0]));
    if (der.base64EncodedStringWithOptions(0).js !== argv[0]) continue;
    var key = Ref();
    st = $.SecIdentityCopyPrivateKey(ident, key);
    if (st !== 0) return 'ERR:' + st + ':SecIdentityCopyPrivateKey';
    var alg = argv[1] === 'EC' ? $.kSecKeyAlgorithmECDSASignatureMessageX962SHA256
      : $.kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256;
    var err = Ref();
    var sig = $.SecKeyCreateSignature(key[0], alg, data, err);
    if (!sig || (sig.isNil && sig.isNil())) {
      var e = ObjC.castRefToObject(err[0]);
      return 'ERR:' + e.code + ':' + e.localizedDescription.js;
    }
    return 'OK:' + ObjC.castRefToObject(sig).base64EncodedStringWithOptions(0).js;
  }
  return 'ERR:-25300:identity not found';
}`;

/** OSStatus / CFError codes → product codes (Security.framework SecBase.h). */
const STATUS: Record<
  string,
  ["PIN_INCORRECT" | "KEYSTORE_UNAVAILABLE" | "CERTIFICATE_INVALID", string]
> = {
  "-25293": ["PIN_INCORRECT", "The Keychain or smart card PIN was not accepted"], // errSecAuthFailed
  "-128": ["KEYSTORE_UNAVAILABLE", "PIN entry was cancelled"], // errSecUserCanceled
  "-25300": ["CERTIFICATE_INVALID", "The Keychain has no private key for this certificate"], // errSecItemNotFound
  "-25308": ["KEYSTORE_UNAVAILABLE", "The Keychain cannot ask for the PIN (no user interaction)"], // errSecInteractionNotAllowed
};

/**
 * Maps the JXA signer's `ERR:<status>:<text>` output to an AppError.
 *
 * @param output the script output
 * @returns the error (SIGNING_FAILED for unknown statuses)
 * @throws never
 */
export function macError(output: string): AppError {
  const status = /ERR:(-?\d+):/.exec(output)?.[1];
  const known = status === undefined ? undefined : STATUS[status];
  const d = status === undefined ? {} : { osStatus: Number(status) };
  return known
    ? new AppError(known[0], known[1], d)
    : new AppError("SIGNING_FAILED", "Signing with the macOS Keychain failed", d);
}

/**
 * Opens the macOS Keychain key store.
 *
 * @param options the command runner
 * @returns the key store; ids are `macos:<SHA-1>`; `pin` is ignored (macOS asks)
 * @throws never (errors surface from methods: KEYSTORE_UNAVAILABLE, PIN_INCORRECT,
 *   CERTIFICATE_INVALID, SIGNING_FAILED)
 */
export function openMacKeychain(options: MacKeychainOptions): KeyStore {
  const exec = async (cmd: string, args: readonly string[], stdin?: Uint8Array) => {
    try {
      return await options.run({ cmd, args, stdin });
    } catch (e) {
      throw new AppError("KEYSTORE_UNAVAILABLE", `${cmd} cannot be started`, {}, e);
    }
  };
  async function list(): Promise<CertificateInfo[]> {
    const ids = await exec("security", FIND_IDENTITY_ARGS);
    const certs = await exec("security", FIND_CERTIFICATE_ARGS);
    if (ids.code !== 0 || certs.code !== 0) {
      throw new AppError("KEYSTORE_UNAVAILABLE", "The macOS Keychain cannot be listed");
    }
    const pems = parseFindCertificate(certs.stdout);
    const out: CertificateInfo[] = [];
    for (const { sha1, label } of parseFindIdentity(ids.stdout)) {
      const der = pems.get(sha1);
      if (der) out.push(toCertificateInfo(der, `macos:${sha1}`, label));
    }
    return out;
  }
  return {
    kind: "macos",
    listCertificates: list,
    async sign(certId, data) {
      const cert = (await list()).find((c) => c.id === certId);
      if (!cert) throw new AppError("CERTIFICATE_INVALID", "The Keychain has no such certificate");
      const kind = cert.keyAlgorithm === "RSA" ? "RSA" : "EC";
      try {
        const r = await exec(
          "osascript",
          ["-l", "JavaScript", "-e", JXA_SIGN_SCRIPT, cert.der.toBase64(), kind],
          new TextEncoder().encode(data.toBase64()),
        );
        const signature = /^OK:([A-Za-z0-9+/=]+)\s*$/m.exec(r.stdout)?.[1];
        if (r.code !== 0 || signature === undefined) throw macError(r.stdout + r.stderr);
        return Uint8Array.fromBase64(signature); // X9.62 ECDSA is DER already
      } catch (e) {
        if (isAppError(e)) throw e;
        throw new AppError("SIGNING_FAILED", "Signing with the macOS Keychain failed", {}, e);
      }
    },
    close: () => Promise.resolve(),
  };
}
