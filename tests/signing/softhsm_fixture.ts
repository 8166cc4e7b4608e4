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
 * Initialises a token in `dir` and imports both signers (key + certificate). A test that runs
 * the agent as a child process passes the token's `env` to it; a test that loads the module in
 * this process holds {@link holdSoftHsm} and points it at the token.
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

/** SoftHSM2 in this process, held by one test: see {@link holdSoftHsm}. */
export interface HeldSoftHsm extends AsyncDisposable {
  /** Point this process's SOFTHSM2_CONF at `token` (SoftHSM2 reads it at C_Initialize). */
  use(token: SoftHsmToken): SoftHsmToken;
}

/**
 * Hold SoftHSM2 in this process until disposed (`await using`, as the test's first statement,
 * so that it outlasts the test's own clean-up, where the key store is closed). `deno test
 * --parallel` runs the test files as workers of one process, which share the environment and
 * the dlopen'ed module: one C_Initialize per process, which reads SOFTHSM2_CONF then, and a
 * C_Finalize by one file would cut the other's sessions. The lock is an exclusive `flock` on a
 * file in the temporary folder; separate opens contend for it, in one process as in several.
 */
export async function holdSoftHsm(): Promise<HeldSoftHsm> {
  const file = await Deno.open(join(Deno.env.get("TMPDIR") ?? "/tmp", "svc-test-softhsm.lock"), {
    create: true,
    write: true,
  });
  await file.lock(true);
  return {
    use(token) {
      Deno.env.set("SOFTHSM2_CONF", token.conf);
      return token;
    },
    async [Symbol.asyncDispose]() {
      Deno.env.delete("SOFTHSM2_CONF");
      await file.unlock();
      file.close();
    },
  };
}
