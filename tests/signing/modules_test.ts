/** PKCS#11 module discovery list and discoverPkcs11Modules(). */

import assert from "node:assert/strict";
import {
  discoverPkcs11Modules,
  fileExists,
  PKCS11_MODULE_CANDIDATES,
} from "../../src/signing/pkcs11/modules.ts";

Deno.test("PKCS11_MODULE_CANDIDATES covers every provider on Windows, macOS and Linux", () => {
  const providers = [
    "B-Trust (BORICA)",
    "StampIT (Information Services)",
    "InfoNotary",
    "Evrotrust",
    "SEP Bulgaria / SafeNet eToken",
    "OpenSC",
    "SoftHSM2",
  ];
  for (const p of providers) {
    for (const os of ["windows", "darwin", "linux"]) {
      assert.ok(
        PKCS11_MODULE_CANDIDATES.some((c) => c.provider === p && c.os === os),
        `${p} on ${os}`,
      );
    }
  }
  assert.ok(PKCS11_MODULE_CANDIDATES.some((c) => c.path.endsWith("eTPKCS11.dll")));
  for (const c of PKCS11_MODULE_CANDIDATES) {
    if (c.os === "windows") assert.match(c.path, /^C:\\/);
    else assert.match(c.path, /^\//);
  }
});

Deno.test("only paths seen on this project's Debian machines are marked verified", () => {
  const verified = PKCS11_MODULE_CANDIDATES.filter((c) => c.verified).map((c) => c.path);
  assert.deepEqual(verified, [
    "/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so",
    "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so",
  ]);
});

Deno.test("discoverPkcs11Modules() keeps existing paths of the OS, in list order", async () => {
  const present = new Set(["C:\\Windows\\System32\\eTPKCS11.dll", "/usr/lib/libeTPkcs11.so"]);
  const found = await discoverPkcs11Modules("windows", (p) => Promise.resolve(present.has(p)));
  assert.deepEqual(found.map((c) => c.path), ["C:\\Windows\\System32\\eTPKCS11.dll"]);
  assert.deepEqual(await discoverPkcs11Modules("darwin", () => Promise.resolve(false)), []);
  assert.equal(await fileExists("/definitely/not/here.so"), false);
});
