/**
 * Conversions between the two ECDSA signature encodings: raw `r || s` (IEEE P1363; what
 * WebCrypto, PKCS#11 CKM_ECDSA and Windows CNG return) and DER `ECDSA-Sig-Value` (RFC 3279
 * §2.2.3; what CMS and X.509 carry).
 * @module
 */

import { AppError } from "../contract/mod.ts";

function encodeInteger(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  const pad = (trimmed[0] ?? 0) & 0x80 ? 1 : 0;
  const out = new Uint8Array(2 + pad + trimmed.length);
  out[0] = 0x02;
  out[1] = pad + trimmed.length;
  out.set(trimmed, 2 + pad);
  return out;
}

/**
 * Converts a raw `r || s` ECDSA signature to DER.
 *
 * @param raw `r || s`, both halves the curve's byte length (64 bytes for P-256, 96 for P-384)
 * @returns DER `SEQUENCE { INTEGER r, INTEGER s }`
 * @throws AppError SIGNING_FAILED when the length is odd, zero or too large
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(ecdsaRawToDer(new Uint8Array(64).fill(1)).length, 70);
 * ```
 */
export function ecdsaRawToDer(raw: Uint8Array): Uint8Array {
  if (raw.length === 0 || raw.length % 2 !== 0 || raw.length > 132) {
    throw new AppError("SIGNING_FAILED", `ECDSA signature has an invalid length (${raw.length})`);
  }
  const half = raw.length / 2;
  const r = encodeInteger(raw.subarray(0, half));
  const s = encodeInteger(raw.subarray(half));
  const bodyLen = r.length + s.length;
  const head = bodyLen < 0x80 ? [0x30, bodyLen] : [0x30, 0x81, bodyLen];
  const out = new Uint8Array(head.length + bodyLen);
  out.set(head, 0);
  out.set(r, head.length);
  out.set(s, head.length + r.length);
  return out;
}

/**
 * Converts a DER ECDSA-Sig-Value to raw `r || s` of a fixed half length.
 *
 * @param der DER `SEQUENCE { INTEGER r, INTEGER s }`
 * @param halfLength byte length of one coordinate (32 for P-256, 48 for P-384, 66 for P-521)
 * @returns `r || s`, each left-padded to `halfLength`
 * @throws AppError SIGNING_FAILED when `der` is not a well-formed ECDSA-Sig-Value
 */
export function ecdsaDerToRaw(der: Uint8Array, halfLength: number): Uint8Array {
  const fail = () => new AppError("SIGNING_FAILED", "ECDSA signature is not a valid DER value");
  if (der[0] !== 0x30) throw fail();
  let pos = 2;
  let len = der[1];
  if (len === 0x81) {
    len = der[2];
    pos = 3;
  } else if (len === undefined || len > 0x80) throw fail();
  if (len === undefined || pos + len !== der.length) throw fail();
  const out = new Uint8Array(halfLength * 2);
  for (let i = 0; i < 2; i++) {
    if (der[pos] !== 0x02) throw fail();
    const n = der[pos + 1];
    if (n === undefined || n === 0 || n > 0x7f || pos + 2 + n > der.length) throw fail();
    let v = der.subarray(pos + 2, pos + 2 + n);
    while (v.length > 1 && v[0] === 0) v = v.subarray(1);
    if (v.length > halfLength) throw fail();
    out.set(v, i * halfLength + halfLength - v.length);
    pos += 2 + n;
  }
  if (pos !== der.length) throw fail();
  return out;
}

/**
 * True when `sig` parses as a DER ECDSA-Sig-Value (used to reject raw `r || s` by mistake).
 *
 * @param sig candidate signature
 * @returns whether it is DER
 */
export function isDerEcdsaSignature(sig: Uint8Array): boolean {
  try {
    ecdsaDerToRaw(sig, 66);
    return true;
  } catch {
    return false;
  }
}
