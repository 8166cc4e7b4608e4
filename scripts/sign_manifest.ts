/**
 * Sign the build's `dist/manifest.json` as the update manifest agents verify
 * (docs/install.md § Updates): each archive gets its download URL (`--base-url` + its file name),
 * the payload is checked against the agent's own schema (src/agent/update/manifest.ts), and the
 * compact JWS (EdDSA, `typ: svc-update+jws`, the key's `kid`) is written to `dist/manifest.jws`.
 * The token service serves that file (SVC_UPDATE_MANIFEST).
 *
 * The private JWK (scripts/update_keys.ts) comes from `--key FILE` or the variable
 * `SVC_UPDATE_SIGNING_KEY` (its JSON text). The script refuses a key whose public half is not in
 * src/agent/update/keys.ts (agents built from this source would refuse the manifest), and an
 * archive beside the manifest whose size or SHA-256 differs from what it lists.
 *
 * Usage: `deno run -A scripts/sign_manifest.ts --base-url https://…/releases/download/v0.1.1/
 * [--manifest dist/manifest.json] [--out dist/manifest.jws] [--key FILE]`
 * @module
 */
import { CompactSign, importJWK, type JWK } from "jose";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import {
  allowedPackageUrl,
  MANIFEST_TYP,
  UPDATE_PUBLIC_KEYS,
  UpdateManifest,
  type UpdatePublicKey,
} from "../src/agent/update/mod.ts";

/** The build's manifest.json (scripts/package.ts). */
export interface BuildManifest {
  readonly name: string;
  readonly version: string;
  readonly packages: readonly {
    readonly target: string;
    readonly triple: string;
    readonly file: string;
    readonly size: number;
    readonly sha256: string;
    /** The win-x64 MSI (scripts/package.ts). */
    readonly msi?: { readonly file: string; readonly size: number; readonly sha256: string };
  }[];
}

/**
 * The update manifest's payload for a build.
 * @param build the build's manifest.json
 * @param baseUrl where the archives are published (a trailing `/` is added)
 * @param published the time of publication
 * @returns the payload, checked against the agent's schema
 * @throws Error when it does not pass (e.g. a non-https base URL)
 */
export function updatePayload(
  build: BuildManifest,
  baseUrl: string,
  published: Date,
): UpdateManifest {
  const base = baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`;
  const payload = {
    name: build.name,
    version: build.version,
    published: published.toISOString(),
    packages: build.packages.map((p) => ({
      target: p.target,
      triple: p.triple,
      url: new URL(encodeURIComponent(p.file), base).href,
      size: p.size,
      sha256: p.sha256,
      ...(p.msi
        ? {
          msi: {
            url: new URL(encodeURIComponent(p.msi.file), base).href,
            size: p.msi.size,
            sha256: p.msi.sha256,
          },
        }
        : {}),
    })),
  };
  const bad = payload.packages.flatMap((p) => [p.url, ...(p.msi ? [p.msi.url] : [])])
    .find((u) => !allowedPackageUrl(u));
  if (bad) throw new Error(`${bad} is not https (http only on loopback)`);
  const r = UpdateManifest.safeParse(payload);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new Error(`The manifest is not valid: ${i.path.join(".")} ${i.message}`);
  }
  return r.data;
}

/**
 * Sign a payload.
 * @param payload the update manifest
 * @param privateJwk the Ed25519 private JWK with its `kid`
 * @param trusted the keys the agent embeds (default: src/agent/update/keys.ts)
 * @returns the compact JWS
 * @throws Error when the key has no kid, is not Ed25519, or its public half is not trusted
 */
export async function signManifest(
  payload: UpdateManifest,
  privateJwk: JWK,
  trusted: readonly UpdatePublicKey[] = UPDATE_PUBLIC_KEYS,
): Promise<string> {
  if (privateJwk.kty !== "OKP" || privateJwk.crv !== "Ed25519" || !privateJwk.d) {
    throw new Error("The signing key is not an Ed25519 private JWK");
  }
  if (!privateJwk.kid) throw new Error("The signing key has no kid");
  const known = trusted.find((k) => k.kid === privateJwk.kid);
  if (!known || known.x !== privateJwk.x) {
    throw new Error(
      `The key "${privateJwk.kid}" is not in src/agent/update/keys.ts: agents built from this ` +
        "source would refuse the manifest (add its public JWK, see scripts/update_keys.ts)",
    );
  }
  const key = await importJWK(privateJwk, "EdDSA");
  return await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: "EdDSA", typ: MANIFEST_TYP, kid: privateJwk.kid })
    .sign(key);
}

/**
 * Check the archives lying beside the manifest against it (size, SHA-256).
 * @param dir the folder of manifest.json
 * @param build its content
 * @returns the files checked (absent ones are skipped)
 * @throws Error for an archive that differs
 */
export async function checkArchives(dir: string, build: BuildManifest): Promise<string[]> {
  const checked: string[] = [];
  for (const p of build.packages.flatMap((p) => [p, ...(p.msi ? [p.msi] : [])])) {
    const bytes = await Deno.readFile(join(dir, p.file)).catch(() => null);
    if (!bytes) continue;
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    if (bytes.length !== p.size || sha256 !== p.sha256) {
      throw new Error(`${p.file} differs from manifest.json (${bytes.length} bytes, ${sha256})`);
    }
    checked.push(p.file);
  }
  return checked;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      "base-url": { type: "string" },
      manifest: { type: "string", default: "dist/manifest.json" },
      out: { type: "string" },
      key: { type: "string" },
    },
  });
  const fail = (msg: string, code = 1): never => {
    console.error(`FAIL ${msg}`);
    Deno.exit(code);
  };
  if (!values["base-url"]) fail("--base-url is required (where the archives are published)", 2);
  try {
    const keyText = values.key
      ? await Deno.readTextFile(values.key)
      : Deno.env.get("SVC_UPDATE_SIGNING_KEY");
    if (!keyText) fail("no signing key: pass --key FILE or set SVC_UPDATE_SIGNING_KEY", 2);
    const build = JSON.parse(await Deno.readTextFile(values.manifest)) as BuildManifest;
    const checked = await checkArchives(dirname(values.manifest), build);
    const epoch = Number(Deno.env.get("SOURCE_DATE_EPOCH"));
    const published = Number.isFinite(epoch) && epoch > 0 ? new Date(epoch * 1000) : new Date();
    const payload = updatePayload(build, values["base-url"]!, published);
    const jws = await signManifest(payload, JSON.parse(keyText!));
    const out = values.out ?? join(dirname(values.manifest), "manifest.jws");
    await Deno.writeTextFile(out, jws + "\n");
    console.log(
      `ok   ${out}: version ${payload.version}, ${payload.packages.length} packages ` +
        `(${checked.length} archives checked)`,
    );
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
}
