/**
 * RC2-CBC decryption (RFC 2268), only for reading legacy PKCS#12 files: OpenSSL 1.x and
 * `openssl pkcs12 -legacy` encrypt the certificate bag with `pbeWithSHAAnd40BitRC2-CBC`, and
 * Deno's `node:crypto` has no RC2. RC2 is obsolete; nothing here ever encrypts with it.
 * @module
 */
import { AppError } from "../contract/mod.ts";

/** RFC 2268 §2 PITABLE (a permutation of 0..255 derived from the digits of pi). */
// deno-fmt-ignore
const PITABLE = new Uint8Array([
  0xd9, 0x78, 0xf9, 0xc4, 0x19, 0xdd, 0xb5, 0xed, 0x28, 0xe9, 0xfd, 0x79, 0x4a, 0xa0, 0xd8, 0x9d,
  0xc6, 0x7e, 0x37, 0x83, 0x2b, 0x76, 0x53, 0x8e, 0x62, 0x4c, 0x64, 0x88, 0x44, 0x8b, 0xfb, 0xa2,
  0x17, 0x9a, 0x59, 0xf5, 0x87, 0xb3, 0x4f, 0x13, 0x61, 0x45, 0x6d, 0x8d, 0x09, 0x81, 0x7d, 0x32,
  0xbd, 0x8f, 0x40, 0xeb, 0x86, 0xb7, 0x7b, 0x0b, 0xf0, 0x95, 0x21, 0x22, 0x5c, 0x6b, 0x4e, 0x82,
  0x54, 0xd6, 0x65, 0x93, 0xce, 0x60, 0xb2, 0x1c, 0x73, 0x56, 0xc0, 0x14, 0xa7, 0x8c, 0xf1, 0xdc,
  0x12, 0x75, 0xca, 0x1f, 0x3b, 0xbe, 0xe4, 0xd1, 0x42, 0x3d, 0xd4, 0x30, 0xa3, 0x3c, 0xb6, 0x26,
  0x6f, 0xbf, 0x0e, 0xda, 0x46, 0x69, 0x07, 0x57, 0x27, 0xf2, 0x1d, 0x9b, 0xbc, 0x94, 0x43, 0x03,
  0xf8, 0x11, 0xc7, 0xf6, 0x90, 0xef, 0x3e, 0xe7, 0x06, 0xc3, 0xd5, 0x2f, 0xc8, 0x66, 0x1e, 0xd7,
  0x08, 0xe8, 0xea, 0xde, 0x80, 0x52, 0xee, 0xf7, 0x84, 0xaa, 0x72, 0xac, 0x35, 0x4d, 0x6a, 0x2a,
  0x96, 0x1a, 0xd2, 0x71, 0x5a, 0x15, 0x49, 0x74, 0x4b, 0x9f, 0xd0, 0x5e, 0x04, 0x18, 0xa4, 0xec,
  0xc2, 0xe0, 0x41, 0x6e, 0x0f, 0x51, 0xcb, 0xcc, 0x24, 0x91, 0xaf, 0x50, 0xa1, 0xf4, 0x70, 0x39,
  0x99, 0x7c, 0x3a, 0x85, 0x23, 0xb8, 0xb4, 0x7a, 0xfc, 0x02, 0x36, 0x5b, 0x25, 0x55, 0x97, 0x31,
  0x2d, 0x5d, 0xfa, 0x98, 0xe3, 0x8a, 0x92, 0xae, 0x05, 0xdf, 0x29, 0x10, 0x67, 0x6c, 0xba, 0xc9,
  0xd3, 0x00, 0xe6, 0xcf, 0xe1, 0x9e, 0xa8, 0x2c, 0x63, 0x16, 0x01, 0x3f, 0x58, 0xe2, 0x89, 0xa9,
  0x0d, 0x38, 0x34, 0x1b, 0xab, 0x33, 0xff, 0xb0, 0xbb, 0x48, 0x0c, 0x5f, 0xb9, 0xb1, 0xcd, 0x2e,
  0xc5, 0xf3, 0xdb, 0x47, 0xe5, 0xa5, 0x9c, 0x77, 0x0a, 0xa6, 0x20, 0x68, 0xfe, 0x7f, 0xc1, 0xad,
]);

/**
 * Entry `i` of one of the fixed-size tables here (PITABLE, L, K, R, S, a block): every index
 * below is bounded or masked to its table's size.
 */
function t(a: ArrayLike<number>, i: number): number {
  // non-null: every index given is bounded or masked to its table's size (the doc comment above)
  return a[i]!;
}

/**
 * RC2 key expansion (RFC 2268 §2).
 *
 * @param key 1–128 key bytes
 * @param effectiveBits effective key bits (40 for pbeWithSHAAnd40BitRC2-CBC)
 * @returns the 64 16-bit round keys
 * @throws RangeError for an empty or too long key
 */
export function rc2ExpandKey(key: Uint8Array, effectiveBits: number): Uint16Array {
  if (key.length < 1 || key.length > 128) throw new RangeError("RC2 key must be 1-128 bytes");
  const L = new Uint8Array(128);
  L.set(key);
  const T = key.length;
  for (let i = T; i < 128; i++) L[i] = t(PITABLE, (t(L, i - 1) + t(L, i - T)) & 0xff);
  const T8 = (effectiveBits + 7) >> 3;
  const TM = 0xff >> (8 * T8 - effectiveBits);
  L[128 - T8] = t(PITABLE, t(L, 128 - T8) & TM);
  for (let i = 127 - T8; i >= 0; i--) L[i] = t(PITABLE, t(L, i + 1) ^ t(L, i + T8));
  const K = new Uint16Array(64);
  for (let i = 0; i < 64; i++) K[i] = t(L, 2 * i) | (t(L, 2 * i + 1) << 8);
  L.fill(0);
  return K;
}

/**
 * Decrypts one 8-byte block in place (RFC 2268 §4: reverse 5 mixing, mashing, 6 mixing,
 * mashing, 5 mixing rounds).
 *
 * @param K round keys from {@link rc2ExpandKey}
 * @param b the block (little-endian 16-bit words), overwritten with the plaintext
 * @throws never
 */
export function rc2DecryptBlock(K: Uint16Array, b: Uint8Array): void {
  const R = [0, 2, 4, 6].map((i) => t(b, i) | (t(b, i + 1) << 8));
  const S = [1, 2, 3, 5];
  let j = 63;
  const mix = () => {
    for (let i = 3; i >= 0; i--) {
      const r = t(R, i) & 0xffff;
      const rot = ((r >>> t(S, i)) | (r << (16 - t(S, i)))) & 0xffff;
      R[i] = (rot - t(K, j--) - (t(R, (i + 3) & 3) & t(R, (i + 2) & 3)) -
        (~t(R, (i + 3) & 3) & t(R, (i + 1) & 3))) & 0xffff;
    }
  };
  const mash = () => {
    for (let i = 3; i >= 0; i--) R[i] = (t(R, i) - t(K, t(R, (i + 3) & 3) & 63)) & 0xffff;
  };
  for (const [rounds, then] of [[5, mash], [6, mash], [5, null]] as const) {
    for (let r = 0; r < rounds; r++) mix();
    then?.();
  }
  for (let i = 0; i < 4; i++) {
    b[2 * i] = t(R, i) & 0xff;
    b[2 * i + 1] = t(R, i) >> 8;
  }
}

/** A decryption that does not unpad: for a PKCS#12 file, its password is wrong. */
const badPadding = (why: string) =>
  new AppError("PIN_INCORRECT", "The PKCS#12 password is incorrect", undefined, why);

/**
 * RC2-CBC decryption with PKCS#7 padding removal.
 *
 * @param key key bytes
 * @param effectiveBits effective key bits
 * @param iv 8-byte IV
 * @param data ciphertext (a multiple of 8 bytes)
 * @returns plaintext
 * @throws AppError PIN_INCORRECT on a bad length or bad padding (a wrong password, for PKCS#12)
 */
export function rc2CbcDecrypt(
  key: Uint8Array,
  effectiveBits: number,
  iv: Uint8Array,
  data: Uint8Array,
): Uint8Array {
  if (data.length === 0 || data.length % 8 !== 0) throw badPadding("Bad RC2 ciphertext length");
  const K = rc2ExpandKey(key, effectiveBits);
  const out = new Uint8Array(data.length);
  let prev = iv;
  for (let o = 0; o < data.length; o += 8) {
    const block = data.slice(o, o + 8);
    rc2DecryptBlock(K, block);
    for (let i = 0; i < 8; i++) out[o + i] = t(block, i) ^ t(prev, i);
    prev = data.subarray(o, o + 8);
  }
  K.fill(0);
  const pad = out.at(-1);
  if (pad === undefined || pad < 1 || pad > 8) throw badPadding("Bad padding");
  for (let i = out.length - pad; i < out.length; i++) {
    if (out[i] !== pad) throw badPadding("Bad padding");
  }
  return out.subarray(0, out.length - pad);
}
