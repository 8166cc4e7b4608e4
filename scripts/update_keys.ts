/**
 * Make the Ed25519 key pair that signs update manifests (docs/install.md
 * § Updates). The private JWK goes to a file for the maintainer's secret store (the release CI's
 * `SVC_UPDATE_SIGNING_KEY`); the public JWK is printed as a line to paste into
 * `UPDATE_PUBLIC_KEYS` of src/agent/update/keys.ts. The key id is the key's RFC 7638 thumbprint.
 *
 * Usage: `deno run -A scripts/update_keys.ts --out update-signing-key.jwk.json`
 * (the file is created 0600 and never overwritten).
 * @module
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";
import { parseArgs } from "node:util";
import type { UpdatePublicKey } from "../src/agent/update/mod.ts";

/** A new pair. */
export interface UpdateKeyPair {
  /** What the agent embeds. */
  readonly publicKey: UpdatePublicKey;
  /** What signs (`kty`, `crv`, `x`, `d`, `kid`, `alg`): secret. */
  readonly privateJwk: JWK & { kid: string };
}

/**
 * Make a key pair.
 * @returns the public key for src/agent/update/keys.ts and the private JWK
 */
export async function makeUpdateKeyPair(): Promise<UpdateKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair("EdDSA", { extractable: true });
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub);
  return {
    publicKey: { kid, kty: "OKP", crv: "Ed25519", x: pub.x! },
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: "EdDSA" },
  };
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { out: { type: "string" } } });
  if (!values.out) {
    console.error("Usage: deno run -A scripts/update_keys.ts --out <private-key-file.jwk.json>");
    Deno.exit(2);
  }
  const pair = await makeUpdateKeyPair();
  try {
    await Deno.writeTextFile(values.out, JSON.stringify(pair.privateJwk) + "\n", {
      createNew: true,
      mode: 0o600,
    });
  } catch (e) {
    console.error(`Cannot write ${values.out}: ${e instanceof Error ? e.message : e}`);
    Deno.exit(1);
  }
  console.log(`Private key written to ${values.out} (keep it in the release CI's secrets as`);
  console.log("SVC_UPDATE_SIGNING_KEY; never commit it). Add this line to UPDATE_PUBLIC_KEYS in");
  console.log("src/agent/update/keys.ts:");
  console.log("");
  console.log(`  ${JSON.stringify(pair.publicKey)},`);
}
