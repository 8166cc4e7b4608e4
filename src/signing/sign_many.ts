/**
 * Detached CMS signatures of many files with one call to the key: each file's CMS is built by
 * {@link signDetached} exactly as for one file (signed attributes, SHA-256, the signer
 * certificate), the signed attributes of all files are handed to `signMany` together, and each
 * signature is checked with the certificate before its CMS is returned. A cloud signature
 * (docs/signing.md § 11) authorizes a whole batch's hashes at once this way.
 * @module
 */
import { AppError } from "../contract/mod.ts";
import { signDetached, type SignDetachedOptions } from "./cms.ts";

/**
 * Sign many files at once.
 * @param files the exact bytes of each file
 * @param certificate the signer certificate, DER
 * @param signMany signs every signed-attributes DER (in order; one signature each)
 * @param options clock for signingTime (signatures are always verified)
 * @returns one DER ContentInfo(SignedData) per file, in order
 * @throws AppError SIGNING_FAILED (a signature does not verify, or the wrong count), and
 *   `signMany`'s own codes unchanged
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import "reflect-metadata";
 * import { X509CertificateGenerator } from "@peculiar/x509";
 * import { verifyDetached } from "./cms.ts";
 * const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
 * const keys = await crypto.subtle.generateKey(alg, false, ["sign", "verify"]);
 * const cert = await X509CertificateGenerator.createSelfSigned({ name: "CN=Иван Петров", keys, signingAlgorithm: alg });
 * const { ecdsaRawToDer } = await import("./ecdsa_signature.ts");
 * let calls = 0;
 * const files = ["D1", "D6"].map((t) => new TextEncoder().encode(t));
 * const p7s = await signDetachedMany(files, new Uint8Array(cert.rawData), async (tbs) => {
 *   calls++; // one call for both files
 *   return await Promise.all(tbs.map(async (t) =>
 *     ecdsaRawToDer(new Uint8Array(await crypto.subtle.sign(alg, keys.privateKey, t.slice())))));
 * });
 * equal(calls, 1);
 * await verifyDetached(p7s[1]!, files[1]!);
 * ```
 */
export async function signDetachedMany(
  files: readonly Uint8Array[],
  certificate: Uint8Array,
  signMany: (toBeSigned: Uint8Array[]) => Promise<Uint8Array[]>,
  options: Pick<SignDetachedOptions, "clock"> = {},
): Promise<Uint8Array[]> {
  if (files.length === 0) return [];
  const waiting: { tbs: Uint8Array; done: (s: Promise<Uint8Array>) => void }[] = [];
  let gaveUp = 0;
  let fired = false;
  const fire = () => {
    if (fired || waiting.length + gaveUp < files.length) return;
    fired = true;
    const all = signMany(waiting.map((w) => w.tbs)).then((sigs) => {
      if (sigs.length !== waiting.length) {
        throw new AppError("SIGNING_FAILED", "The key returned another number of signatures");
      }
      return sigs;
    });
    // non-null: all checked just above that there is one signature per waiting request
    waiting.forEach((w, i) => w.done(all.then((s) => s[i]!)));
  };
  const runs = files.map((bytes) => {
    let asked = false;
    return signDetached(bytes, {
      certificate,
      sign: (tbs) => {
        asked = true;
        return new Promise<Uint8Array>((resolve, reject) => {
          waiting.push({ tbs, done: (p) => p.then(resolve, reject) });
          fire();
        });
      },
    }, { ...options, verify: true }).catch((e) => {
      if (!asked) {
        gaveUp++;
        fire();
      }
      throw e;
    });
  });
  const settled = await Promise.allSettled(runs);
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return settled.map((s) => (s as PromiseFulfilledResult<Uint8Array>).value);
}
