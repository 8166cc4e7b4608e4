/**
 * SoftHSM2 test token for the PKCS#11 tests: a token in a temporary directory (through
 * SOFTHSM2_CONF) holding the RSA and EC signer keys of the test PKI under CKA_ID 01 and 02.
 * @module
 */

import { join } from "node:path";
import { runOk, SOFTHSM2_MODULE, type TestPki } from "../_helpers/pki.ts";

/** User PIN of the test token. */
export const TOKEN_PIN = "1234";
/** Label of the test token. */
export const TOKEN_LABEL = "test";

/** A prepared token. */
export interface SoftHsmToken {
  readonly module: string;
  readonly conf: string;
  readonly env: Record<string, string>;
}

/**
 * Initialises a token in `dir`, imports both signers (key + certificate) and points this
 * process's SOFTHSM2_CONF at it (SoftHSM2 reads it at C_Initialize).
 */
export async function createSoftHsmToken(pki: TestPki, dir: string): Promise<SoftHsmToken> {
  const tokens = join(dir, "tokens");
  await Deno.mkdir(tokens, { recursive: true });
  const conf = join(dir, "softhsm2.conf");
  await Deno.writeTextFile(
    conf,
    `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\n`,
  );
  const env = { SOFTHSM2_CONF: conf };
  Deno.env.set("SOFTHSM2_CONF", conf);
  await runOk("softhsm2-util", [
    "--init-token",
    "--free",
    "--label",
    TOKEN_LABEL,
    "--pin",
    TOKEN_PIN,
    "--so-pin",
    "5678",
  ], env);
  const add = async (keyPem: string, certDer: string, id: string, label: string) => {
    await runOk("softhsm2-util", [
      "--import",
      keyPem,
      "--token",
      TOKEN_LABEL,
      "--label",
      label,
      "--id",
      id,
      "--pin",
      TOKEN_PIN,
    ], env);
    await runOk("pkcs11-tool", [
      "--module",
      SOFTHSM2_MODULE,
      "--token-label",
      TOKEN_LABEL,
      "--login",
      "--pin",
      TOKEN_PIN,
      "--write-object",
      certDer,
      "--type",
      "cert",
      "--id",
      id,
      "--label",
      label,
    ], env);
  };
  await add(pki.rsa.keyPem, pki.rsa.certDer, "01", "rsa");
  await add(pki.ec.keyPem, pki.ec.certDer, "02", "ec");
  return { module: SOFTHSM2_MODULE, conf, env };
}
