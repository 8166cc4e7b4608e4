import type { AppError } from "../../src/contract/mod.ts";
/** RC2 (RFC 2268) used to read legacy PKCS#12 files. */

import assert from "node:assert/strict";
import { rc2CbcDecrypt, rc2DecryptBlock, rc2ExpandKey } from "../../src/signing/rc2.ts";

Deno.test("rc2DecryptBlock() reproduces the RFC 2268 §5 test vectors", () => {
  const vectors: [string, number, string, string][] = [
    ["0000000000000000", 63, "0000000000000000", "ebb773f993278eff"],
    ["ffffffffffffffff", 64, "ffffffffffffffff", "278b27e42e2f0d49"],
    ["3000000000000000", 64, "1000000000000001", "30649edf9be7d2c2"],
    ["88", 64, "0000000000000000", "61a8a244adacccf0"],
    ["88bca90e90875a", 64, "0000000000000000", "6ccf4308974c267f"],
  ];
  for (const [key, bits, plain, cipher] of vectors) {
    const block = Uint8Array.fromHex(cipher);
    rc2DecryptBlock(rc2ExpandKey(Uint8Array.fromHex(key), bits), block);
    assert.equal(block.toHex(), plain, key);
  }
});

Deno.test("rc2CbcDecrypt() rejects bad lengths and bad padding", () => {
  const key = Uint8Array.fromHex("0102030405");
  // A wrong PKCS#12 password shows as either: PIN_INCORRECT, the reason kept as its cause.
  const wrongPassword = (why: RegExp) => (e: unknown) =>
    (e as AppError).code === "PIN_INCORRECT" && why.test(String((e as AppError).cause));
  assert.throws(
    () => rc2CbcDecrypt(key, 40, new Uint8Array(8), new Uint8Array(7)),
    wrongPassword(/length/),
  );
  assert.throws(
    () => rc2CbcDecrypt(key, 40, new Uint8Array(8), new Uint8Array(8)),
    wrongPassword(/padding/),
  );
  assert.throws(() => rc2ExpandKey(new Uint8Array(0), 40), RangeError);
});
