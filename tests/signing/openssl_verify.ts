/**
 * `openssl cms -verify` wrapper for the signing tests (the acceptance check of docs/signing.md §
 * 7).
 * @module
 */

import { join } from "node:path";
import { run } from "../_helpers/pki.ts";

/**
 * Writes `p7s` and `content` into `dir` and runs
 * `openssl cms -verify -binary -inform DER -content <file> -CAfile <ca> -purpose any`.
 * Returns openssl's combined output (it prints "Verification successful" on success).
 */
export async function opensslVerify(
  dir: string,
  name: string,
  p7s: Uint8Array,
  content: Uint8Array,
  caPem: string,
): Promise<{ code: number; output: string }> {
  const sig = join(dir, `${name}.p7s`);
  const file = join(dir, `${name}.bin`);
  await Deno.writeFile(sig, p7s);
  await Deno.writeFile(file, content);
  const r = await run("openssl", [
    "cms",
    "-verify",
    "-binary",
    "-inform",
    "DER",
    "-in",
    sig,
    "-content",
    file,
    "-CAfile",
    caPem,
    "-purpose",
    "any",
    "-out",
    join(dir, `${name}.out`),
  ]);
  return { code: r.code, output: `${r.stdout}${r.stderr}` };
}
