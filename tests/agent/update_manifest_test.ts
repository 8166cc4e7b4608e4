/**
 * The signed update manifest: scripts/update_keys.ts makes a pair, scripts/sign_manifest.ts signs
 * a build's manifest, and the agent's verifyManifest() accepts only what one of its keys signed,
 * as a well-formed manifest; packageFor() picks this system's package and refuses plain http but
 * on loopback; versions compare by semver. The token service's side (SVC_UPDATE_MANIFEST) is
 * read from a file and served as is.
 */
import * as assert from "node:assert/strict";
import { CompactSign, importJWK } from "jose";
import { join } from "node:path";
import {
  allowedPackageUrl,
  packageFor,
  requireNotDowngrade,
  verifyManifest,
  versionRelation,
} from "../../src/agent/update/mod.ts";
import { manifestFileSource } from "../../src/cli/token_servers.ts";
import {
  type BuildManifest,
  checkArchives,
  signManifest,
  updatePayload,
} from "../../scripts/sign_manifest.ts";
import { makeUpdateKeyPair } from "../../scripts/update_keys.ts";

const SHA = "a".repeat(64);
const build: BuildManifest = {
  name: "svc-filing",
  version: "0.2.0",
  packages: [
    {
      target: "linux-x64",
      triple: "x86_64-unknown-linux-gnu",
      file: "a.tar.gz",
      size: 3,
      sha256: SHA,
    },
    { target: "win-x64", triple: "x86_64-pc-windows-msvc", file: "a b.zip", size: 4, sha256: SHA },
  ],
};
const published = new Date("2025-11-25T00:00:00Z");

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
  return "resolved";
};

Deno.test("signManifest() → verifyManifest() round-trips with the signing key's public half", async () => {
  const keys = await makeUpdateKeyPair();
  const payload = updatePayload(build, "https://example.com/releases/v0.2.0", published);
  assert.equal(payload.packages[1]!.url, "https://example.com/releases/v0.2.0/a%20b.zip");
  const jws = await signManifest(payload, keys.privateJwk, [keys.publicKey]);
  const m = await verifyManifest(`${jws}\n`, [keys.publicKey]);
  assert.deepEqual(m, payload);
  assert.equal(packageFor(m, "x86_64-unknown-linux-gnu").target, "linux-x64");
});

Deno.test("verifyManifest() refuses what its keys did not sign (UPDATE_SIGNATURE_INVALID)", async () => {
  const keys = await makeUpdateKeyPair();
  const other = await makeUpdateKeyPair();
  const payload = updatePayload(build, "https://example.com/r/", published);
  const jws = await signManifest(payload, keys.privateJwk, [keys.publicKey]);
  const forged = await signManifest(payload, { ...other.privateJwk, kid: keys.publicKey.kid }, [
    { ...other.publicKey, kid: keys.publicKey.kid },
  ]);
  const [h, p, s] = jws.split(".");
  const tampered = `${h}.${
    btoa(JSON.stringify({ ...payload, version: "9.9.9" })).replace(/=+$/, "")
      .replaceAll("+", "-").replaceAll("/", "_")
  }.${s}`;
  const jwt = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: "EdDSA", kid: keys.publicKey.kid, typ: "JWT" })
    .sign(await importJWK(keys.privateJwk, "EdDSA"));
  for (
    const [what, text, trusted] of [
      ["another key under the trusted kid", forged, [keys.publicKey]],
      ["a changed payload", tampered, [keys.publicKey]],
      ["an unknown kid", jws, [other.publicKey]],
      ["no built-in key", jws, []],
      ["another typ", jwt, [keys.publicKey]],
      ["not a JWS", "hello", [keys.publicKey]],
      ["a JSON body", `{"${p}": 1}`, [keys.publicKey]],
    ] as const
  ) {
    assert.equal(await codeOf(verifyManifest(text, trusted)), "UPDATE_SIGNATURE_INVALID", what);
  }
});

Deno.test("verifyManifest() refuses a signed payload that is no manifest (UPDATE_MANIFEST_INVALID)", async () => {
  const keys = await makeUpdateKeyPair();
  const sign = async (body: unknown) =>
    await new CompactSign(new TextEncoder().encode(JSON.stringify(body)))
      .setProtectedHeader({ alg: "EdDSA", kid: keys.publicKey.kid, typ: "svc-update+jws" })
      .sign(await importJWK(keys.privateJwk, "EdDSA"));
  const good = updatePayload(build, "https://example.com/r/", published);
  for (
    const bad of [
      { ...good, version: "v1" },
      { ...good, name: "other" },
      { ...good, packages: [] },
      { ...good, packages: [{ ...good.packages[0], sha256: "xyz" }] },
      { ...good, packages: [{ ...good.packages[0], size: -1 }] },
      [good],
    ]
  ) {
    assert.equal(
      await codeOf(verifyManifest(await sign(bad), [keys.publicKey])),
      "UPDATE_MANIFEST_INVALID",
    );
  }
});

Deno.test("packageFor() needs this system's package with an https (or loopback http) URL", () => {
  const m = updatePayload(build, "https://example.com/r/", published);
  assert.throws(() => packageFor(m, "aarch64-apple-darwin"), { code: "UPDATE_MANIFEST_INVALID" });
  const http = {
    ...m,
    packages: m.packages.map((p) => ({ ...p, url: "http://example.com/a.tar.gz" })),
  };
  assert.throws(() => packageFor(http, "x86_64-unknown-linux-gnu"), /not https/);
  const other = { ...m, packages: m.packages.map((p) => ({ ...p, url: "https://e.com/a.exe" })) };
  assert.throws(
    () => packageFor(other, "x86_64-unknown-linux-gnu"),
    /neither a .tar.gz nor a .zip/,
  );
  assert.equal(allowedPackageUrl("http://127.0.0.1:9/a.zip"), true);
  assert.equal(allowedPackageUrl("http://[::1]:9/a.zip"), true);
  assert.equal(allowedPackageUrl("http://localhost.example.com/a.zip"), false);
  assert.equal(allowedPackageUrl("https://user:pw@example.com/a.zip"), false);
  assert.equal(allowedPackageUrl("file:///tmp/a.zip"), false);
  assert.throws(() => updatePayload(build, "http://example.com/r/", published), /not https/);
});

Deno.test("versionRelation() compares by semver; requireNotDowngrade() refuses an older one", () => {
  assert.equal(versionRelation("0.1.0", "0.1.1"), "newer");
  assert.equal(versionRelation("0.1.9", "0.1.10"), "newer");
  assert.equal(versionRelation("0.1.0", "0.1.0"), "same");
  assert.equal(versionRelation("0.2.0", "0.1.9"), "older");
  assert.equal(versionRelation("1.0.0", "1.0.0-rc.1"), "older");
  const c = { current: "0.2.0", latest: "0.1.0", relation: "older" as const, manifest: null! };
  assert.throws(() => requireNotDowngrade(c), { code: "UPDATE_DOWNGRADE" });
});

Deno.test("signManifest() refuses a key the agent does not embed, and a public key", async () => {
  const keys = await makeUpdateKeyPair();
  const payload = updatePayload(build, "https://example.com/r/", published);
  await assert.rejects(
    signManifest(payload, keys.privateJwk),
    /not in src\/agent\/update\/keys.ts/,
  );
  const { d: _d, ...pub } = keys.privateJwk;
  await assert.rejects(signManifest(payload, pub, [keys.publicKey]), /not an Ed25519 private JWK/);
});

Deno.test("checkArchives() checks the archives beside manifest.json", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "a.tar.gz"), "abc");
    const sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    const ok = { ...build, packages: [{ ...build.packages[0]!, sha256: sha }, build.packages[1]!] };
    assert.deepEqual(await checkArchives(dir, ok), ["a.tar.gz"]);
    await assert.rejects(checkArchives(dir, build), /a.tar.gz differs/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("manifestFileSource() serves SVC_UPDATE_MANIFEST's JWS, and nothing for a bad file", async () => {
  const dir = await Deno.makeTempDir();
  const lines: string[] = [];
  const log = (_l: string, msg: string, f?: Record<string, unknown>) =>
    void lines.push(`${msg} ${JSON.stringify(f)}`);
  try {
    assert.equal(await manifestFileSource(undefined, log), null);
    const file = join(dir, "manifest.jws");
    const source = (await manifestFileSource(file, log))!;
    assert.equal(await source(), null);
    await Deno.writeTextFile(file, "not a jws\n");
    assert.equal(await source(), null);
    const keys = await makeUpdateKeyPair();
    const jws = await signManifest(
      updatePayload(build, "https://e.com/", published),
      keys.privateJwk,
      [
        keys.publicKey,
      ],
    );
    await Deno.writeTextFile(file, `${jws}\n`);
    assert.equal(await source(), jws);
    assert.ok(lines.some((l) => l.startsWith("publishing an agent update") && l.includes("0.2.0")));
    assert.ok(lines.some((l) => l.includes("not a compact JWS")));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the win-x64 entry's MSI is signed with its URL, size and hash; checkArchives() checks it", async () => {
  const msi = { file: "svc-filing-0.2.0-win-x64.msi", size: 3, sha256: SHA };
  const withMsi: BuildManifest = {
    ...build,
    packages: [build.packages[0]!, { ...build.packages[1]!, msi }],
  };
  const keys = await makeUpdateKeyPair();
  const payload = updatePayload(withMsi, "https://example.com/r", published);
  assert.equal(payload.packages[0]!.msi, undefined);
  assert.deepEqual(payload.packages[1]!.msi, {
    url: "https://example.com/r/svc-filing-0.2.0-win-x64.msi",
    size: 3,
    sha256: SHA,
  });
  const m = await verifyManifest(await signManifest(payload, keys.privateJwk, [keys.publicKey]), [
    keys.publicKey,
  ]);
  assert.deepEqual(packageFor(m, "x86_64-pc-windows-msvc").msi, payload.packages[1]!.msi);
  // A plain-http MSI URL is refused as a package's is.
  assert.throws(
    () =>
      updatePayload(
        { ...withMsi, packages: [withMsi.packages[1]!] },
        "http://example.com/r/",
        published,
      ),
    /not https/,
  );
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, msi.file), "abd");
    await assert.rejects(checkArchives(dir, withMsi), /win-x64\.msi differs/);
    const sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    await Deno.writeTextFile(join(dir, msi.file), "abc");
    const ok = {
      ...withMsi,
      packages: [{ ...withMsi.packages[1]!, msi: { ...msi, sha256: sha } }],
    };
    assert.deepEqual(await checkArchives(dir, ok), [msi.file]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
