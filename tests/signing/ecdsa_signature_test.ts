/** ecdsaRawToDer() / ecdsaDerToRaw() round trips and edge cases. */

import assert from "node:assert/strict";
import {
  ecdsaDerToRaw,
  ecdsaRawToDer,
  isDerEcdsaSignature,
} from "../../src/signing/ecdsa_signature.ts";

Deno.test("ecdsaRawToDer() pads high bits, strips leading zeros and round-trips", () => {
  const raw = new Uint8Array(64);
  raw[0] = 0x80; // r needs a 0x00 pad
  raw[32] = 0x00;
  raw[33] = 0x01; // s has a leading zero to strip
  const der = ecdsaRawToDer(raw);
  assert.equal(der[0], 0x30);
  assert.deepEqual(der.subarray(2, 5), new Uint8Array([0x02, 33, 0x00]));
  assert.deepEqual(ecdsaDerToRaw(der, 32), raw);
  assert.ok(isDerEcdsaSignature(der));
  assert.ok(!isDerEcdsaSignature(raw));
});

Deno.test("ecdsaRawToDer() uses long-form length for P-521 and rejects bad input", () => {
  const raw = new Uint8Array(132).fill(0xff);
  const der = ecdsaRawToDer(raw);
  assert.deepEqual(der.subarray(0, 2), new Uint8Array([0x30, 0x81]));
  assert.deepEqual(ecdsaDerToRaw(der, 66), raw);
  assert.throws(() => ecdsaRawToDer(new Uint8Array(63)), { code: "SIGNING_FAILED" });
  assert.throws(() => ecdsaDerToRaw(new Uint8Array([0x30, 0x02, 0x05, 0x00]), 32), {
    code: "SIGNING_FAILED",
  });
});

Deno.test("ecdsaDerToRaw() refuses a signature cut anywhere with SIGNING_FAILED, never a TypeError", () => {
  const der = ecdsaRawToDer(new Uint8Array(132).fill(0xff)); // long-form length: every branch
  for (let n = 0; n < der.length; n++) {
    assert.throws(() => ecdsaDerToRaw(der.subarray(0, n), 66), { code: "SIGNING_FAILED" }, `${n}`);
  }
  assert.deepEqual(ecdsaDerToRaw(der, 66), new Uint8Array(132).fill(0xff));
});
