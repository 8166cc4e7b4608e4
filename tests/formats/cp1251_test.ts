import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeCp1251, firstUnencodableCp1251 } from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import { throwsApp } from "./_helpers.ts";

Deno.test("decodeCp1251() decodes Cyrillic Windows-1251 bytes", () => {
  const bytes = new Uint8Array([
    0xcf,
    0xf0,
    0xe8,
    0xe2,
    0xe5,
    0xf2,
    0x2c,
    0x20,
    0xec,
    0xe8,
    0xf0,
    0x21,
  ]);
  assert.equal(decodeCp1251(bytes), "Привет, мир!");
});

Deno.test("decodeCp1251() maps every byte to exactly one character", () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  assert.equal(decodeCp1251(all).length, 256);
});

Deno.test("encodeCp1251() returns a plain Uint8Array with the toolchain's reference bytes", () => {
  const out = encodeCp1251("Привет, мир!");
  assert.equal(Object.getPrototypeOf(out), Uint8Array.prototype);
  assert.equal(out.toHex(), "cff0e8e2e5f22c20ece8f021");
});

Deno.test("encodeCp1251() round-trips with decodeCp1251() for „quotes“, № and €", () => {
  const s = "ЕКО ТРЕЙД ООД „Център“ № 15 € ёЁ";
  assert.equal(decodeCp1251(encodeCp1251(s)), s);
});

Deno.test("encodeCp1251() keeps a real question mark", () => {
  assert.equal(encodeCp1251("a?b").toHex(), "613f62");
});

Deno.test("encodeCp1251() rejects a character without a cp1251 byte instead of writing ?", () => {
  const e = throwsApp(() => encodeCp1251("ред 1\nMüller ł", "POKUPKI.TXT"), "FILE_PARSE_ERROR");
  assert.equal(e.details?.file, "POKUPKI.TXT");
  assert.equal(e.details?.line, 2);
  assert.equal(e.details?.position, 2);
  assert.equal(e.details?.character, "U+00FC");
  assert.match(e.message, /^Cannot write "POKUPKI.TXT" line 2: character "ü" \(U\+00FC\)/);
});

Deno.test("encodeCp1251() rejects astral characters (emoji)", () => {
  const e = throwsApp(() => encodeCp1251("ok 😀"), "FILE_PARSE_ERROR");
  assert.equal(e.details?.position, 4);
});

Deno.test("firstUnencodableCp1251() agrees with encodeCp1251() on every BMP character", () => {
  // The check the test portal makes without iconv-lite must match what the encoder refuses.
  for (let c = 0; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const ch = String.fromCharCode(c);
    let encodes = true;
    try {
      encodeCp1251(ch);
    } catch {
      encodes = false;
    }
    assert.equal(firstUnencodableCp1251(ch) === -1, encodes, `U+${c.toString(16)}`);
  }
});

Deno.test("firstUnencodableCp1251() names the first character encodeCp1251() refuses", () => {
  fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => {
    const i = firstUnencodableCp1251(text);
    if (i === -1) assert.equal(decodeCp1251(encodeCp1251(text)), text);
    else {
      assert.throws(() => encodeCp1251(text));
      assert.equal(firstUnencodableCp1251(text.slice(0, i)), -1);
    }
  }));
});

Deno.test("encodeCp1251() refuses U+FFFD instead of writing the unassigned byte 0x98", () => {
  throwsApp(() => encodeCp1251("a\uFFFDb", "X.TXT"), "FILE_PARSE_ERROR");
});
