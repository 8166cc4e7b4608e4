/**
 * The signed update manifest (docs/install.md § Updates): a compact JWS (RFC 7515)
 * signed with Ed25519 (`alg: EdDSA`, `typ: svc-update+jws`, `kid` naming one of the keys built
 * into the agent, src/agent/update/keys.ts) whose payload is
 *
 * ```json
 * { "name": "svc-filing", "version": "0.1.1", "published": "2025-11-25T00:00:00Z",
 *   "packages": [{ "target": "linux-x64", "triple": "x86_64-unknown-linux-gnu",
 *                  "url": "https://…/svc-filing-0.1.1-linux-x64.tar.gz",
 *                  "size": 42509918, "sha256": "…64 hex…" }] }
 * ```
 *
 * The win-x64 entry also names its MSI: `"msi": { "url": "https://…/svc-filing-0.1.1-win-x64.msi",
 * "size": 43000000, "sha256": "…" }`, signed with the rest.
 *
 * `size` is in bytes; `triple` is the Rust target triple (`Deno.build.target`) the package runs
 * on. `scripts/sign_manifest.ts` writes it from the build's `dist/manifest.json`.
 * @module
 */
import { compactVerify, decodeProtectedHeader, importJWK } from "jose";
import valid from "semver/functions/valid.js";
import { z } from "zod";
import { AppError } from "../../contract/mod.ts";
import type { UpdatePublicKey } from "./keys.ts";

/** The JWS `typ` of an update manifest (keeps it apart from any other JWS the keys might sign). */
export const MANIFEST_TYP = "svc-update+jws";
/** Largest manifest accepted, bytes. */
export const MAX_MANIFEST_BYTES = 64 * 1024;
/** Largest package accepted, bytes (the build refuses archives over 60 MB). */
export const MAX_PACKAGE_BYTES = 200 * 1024 * 1024;

/** One archive of a release. */
export const UpdatePackage = z.object({
  /** Short name: win-x64, macos-arm64, macos-x64, linux-x64. */
  target: z.string().min(1).max(40),
  /** Rust target triple, as `Deno.build.target` says it. */
  triple: z.string().regex(/^[a-z0-9_]+(-[a-z0-9_]+){2,3}$/),
  url: z.string().url().max(2048),
  /** Bytes. */
  size: z.number().int().positive().max(MAX_PACKAGE_BYTES),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The Windows installer of the same version (win-x64 only): what `agent update` installs on
   * an install the MSI made (docs/install.md § Updates). Size in bytes. Agents that predate it
   * ignore it. */
  msi: z.object({
    url: z.string().url().max(2048),
    size: z.number().int().positive().max(MAX_PACKAGE_BYTES),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  }).optional(),
});
/** One archive of a release. */
export type UpdatePackage = z.infer<typeof UpdatePackage>;

/** The manifest's payload. */
export const UpdateManifest = z.object({
  name: z.literal("svc-filing"),
  version: z.string().refine((v) => valid(v) === v, "is not a semantic version (X.Y.Z)"),
  /** ISO-8601 time of publication. */
  published: z.iso.datetime({ offset: true }),
  packages: z.array(UpdatePackage).min(1).max(32),
});
/** The manifest's payload. */
export type UpdateManifest = z.infer<typeof UpdateManifest>;

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const refused = (why: string, details?: Record<string, unknown>) =>
  new AppError("UPDATE_SIGNATURE_INVALID", `The update manifest was refused: ${why}`, details);

/**
 * Verify a signed manifest with the built-in keys and read its payload.
 * @param jws the compact JWS as the token service served it (surrounding white space allowed)
 * @param keys the trusted keys ({@link UpdatePublicKey}, src/agent/update/keys.ts)
 * @returns the manifest
 * @throws AppError UPDATE_SIGNATURE_INVALID (not a compact JWS, another `alg`/`typ`, a `kid` no
 *   built-in key has — `details.kid` —, a signature that does not verify);
 *   UPDATE_MANIFEST_INVALID (signed, but the payload is not a manifest; `details.issues`)
 */
export async function verifyManifest(
  jws: string,
  keys: readonly UpdatePublicKey[],
): Promise<UpdateManifest> {
  const text = jws.trim();
  if (text.length > MAX_MANIFEST_BYTES || !COMPACT_JWS.test(text)) {
    throw refused("it is not a compact JWS");
  }
  let header;
  try {
    header = decodeProtectedHeader(text);
  } catch {
    throw refused("its header is not readable");
  }
  if (header.alg !== "EdDSA" || header.typ !== MANIFEST_TYP) {
    throw refused(`it is not an EdDSA ${MANIFEST_TYP} (alg ${header.alg}, typ ${header.typ})`);
  }
  if (keys.length === 0) {
    throw refused("this build has no update key (src/agent/update/keys.ts)", {
      kid: header.kid ?? null,
    });
  }
  const key = keys.find((k) => k.kid === header.kid);
  if (!key) {
    throw refused(`it is signed with key "${header.kid}", which this agent does not trust`, {
      kid: header.kid ?? null,
    });
  }
  let payload: Uint8Array;
  try {
    const pub = await importJWK({ kty: key.kty, crv: key.crv, x: key.x }, "EdDSA");
    ({ payload } = await compactVerify(text, pub, { algorithms: ["EdDSA"] }));
  } catch {
    throw refused(`its signature does not verify with key "${key.kid}"`, { kid: key.kid });
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
  } catch {
    throw new AppError("UPDATE_MANIFEST_INVALID", "The signed update manifest is not JSON");
  }
  const parsed = UpdateManifest.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 10).map((i) => ({
      field: i.path.map(String).join("."),
      message: i.message,
    }));
    throw new AppError(
      "UPDATE_MANIFEST_INVALID",
      `The signed update manifest is malformed: ${issues[0]?.field || "body"} ${
        issues[0]?.message
      }`,
      { issues },
    );
  }
  return parsed.data;
}

/**
 * Whether a package URL may be downloaded: https, or http to the loopback interface (tests and
 * a local mirror).
 * @param url the URL
 * @returns true when allowed
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(allowedPackageUrl("https://example.com/a.zip"), true);
 * equal(allowedPackageUrl("http://127.0.0.1:8080/a.zip"), true);
 * equal(allowedPackageUrl("http://example.com/a.zip"), false);
 * ```
 */
export function allowedPackageUrl(url: string | URL): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.username || u.password) return false;
  if (u.protocol === "https:") return true;
  return u.protocol === "http:" && ["127.0.0.1", "[::1]", "localhost"].includes(u.hostname);
}

/**
 * The manifest's package for this system.
 * @param m the verified manifest
 * @param triple the running system's target triple (`Deno.build.target`)
 * @returns the package
 * @throws AppError UPDATE_MANIFEST_INVALID when there is none for `triple`, its URL is not https
 *   (nor http on loopback), or its archive is neither .tar.gz nor .zip
 */
export function packageFor(m: UpdateManifest, triple: string): UpdatePackage {
  const pkg = m.packages.find((p) => p.triple === triple);
  if (!pkg) {
    throw new AppError(
      "UPDATE_MANIFEST_INVALID",
      `Version ${m.version} has no package for this system (${triple})`,
      { triple },
    );
  }
  if (!allowedPackageUrl(pkg.url)) {
    throw new AppError(
      "UPDATE_MANIFEST_INVALID",
      `The package URL of ${pkg.target} is not https: ${pkg.url}`,
      { url: pkg.url },
    );
  }
  if (archiveKind(pkg.url) === null) {
    throw new AppError(
      "UPDATE_MANIFEST_INVALID",
      `The package of ${pkg.target} is neither a .tar.gz nor a .zip: ${pkg.url}`,
      { url: pkg.url },
    );
  }
  return pkg;
}

/**
 * The archive format a package URL names by its path's ending.
 * @param url the package URL
 * @returns "tar.gz", "zip" or null
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(archiveKind("https://x/svc-filing-0.1.1-linux-x64.tar.gz"), "tar.gz");
 * ```
 */
export function archiveKind(url: string): "tar.gz" | "zip" | null {
  const path = new URL(url).pathname.toLowerCase();
  return path.endsWith(".tar.gz") ? "tar.gz" : path.endsWith(".zip") ? "zip" : null;
}
