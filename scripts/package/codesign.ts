/**
 * Authenticode signing of the Windows files (docs/install.md § Signed or unsigned): when
 * `SVC_CODESIGN_PFX` (a PKCS#12 file with the publisher's code-signing certificate and key) and
 * `SVC_CODESIGN_PASSWORD` are set, `svc-filing.exe` and the MSI are signed with `osslsigncode`
 * (SHA-256; with an RFC 3161 time stamp from `SVC_CODESIGN_TIMESTAMP_URL` when set), and each
 * signature is verified after signing (`osslsigncode verify`, with `SVC_CODESIGN_CA` as the CA
 * file when set). Without them the build says "unsigned" in one line and goes on.
 * @module
 */
import { runCommand, type Runner } from "./runtime.ts";

/** The signing settings, from the environment. */
export interface CodesignConfig {
  /** The PKCS#12 file. */
  readonly pfx: string;
  readonly password: string;
  /** An RFC 3161 time-stamp server, or undefined. */
  readonly timestampUrl?: string;
  /** The CA file `osslsigncode verify -CAfile` checks against (default: the system's). */
  readonly caFile?: string;
}

/**
 * The signing settings, or null when the build is unsigned.
 * @param env the environment
 * @returns the settings
 * @throws Error when only one of SVC_CODESIGN_PFX / SVC_CODESIGN_PASSWORD is set
 */
export function codesignConfig(env: Readonly<Record<string, string | undefined>>) {
  const pfx = env.SVC_CODESIGN_PFX, password = env.SVC_CODESIGN_PASSWORD;
  if (!pfx && !password) return null;
  if (!pfx || password === undefined) {
    throw new Error("set both SVC_CODESIGN_PFX and SVC_CODESIGN_PASSWORD to sign, or neither");
  }
  const c: CodesignConfig = {
    pfx,
    password,
    ...(env.SVC_CODESIGN_TIMESTAMP_URL ? { timestampUrl: env.SVC_CODESIGN_TIMESTAMP_URL } : {}),
    ...(env.SVC_CODESIGN_CA ? { caFile: env.SVC_CODESIGN_CA } : {}),
  };
  return c;
}

/**
 * Sign a file in place and verify the signature.
 * @param file the `.exe` or `.msi`
 * @param c the settings
 * @param description the program's name in the signature
 * @param run the command runner
 * @returns the signer's subject as osslsigncode reports it
 * @throws Error with osslsigncode's message when signing or the verification fails
 */
export async function signFile(
  file: string,
  c: CodesignConfig,
  description: string,
  run: Runner = runCommand,
): Promise<string> {
  const tmp = `${file}.signed`;
  await Deno.remove(tmp).catch(() => {});
  // The password goes through a file readable only here, not the command line.
  const pass = await Deno.makeTempFile({ prefix: "svc-codesign-" });
  try {
    await Deno.chmod(pass, 0o600);
    await Deno.writeTextFile(pass, c.password);
    const s = await run("osslsigncode", [
      "sign",
      "-pkcs12",
      c.pfx,
      "-readpass",
      pass,
      "-h",
      "sha256",
      "-n",
      description,
      ...(c.timestampUrl ? ["-ts", c.timestampUrl] : []),
      "-in",
      file,
      "-out",
      tmp,
    ]);
    if (s.code !== 0) throw new Error(`osslsigncode sign ${file}: ${(s.err || s.out).trim()}`);
  } finally {
    await Deno.remove(pass).catch(() => {});
  }
  await Deno.rename(tmp, file);
  const v = await verifySignature(file, c.caFile, run);
  if (!v.ok) throw new Error(`the signature of ${file} does not verify: ${v.detail}`);
  return v.signer;
}

/**
 * Verify a file's Authenticode signature (`osslsigncode verify`), judged by its report, not
 * only its exit code.
 * @param file the `.exe` or `.msi`
 * @param caFile the CA certificates (PEM), or undefined for the system's
 * @param run the command runner
 * @returns whether it verified, the signer's subject, and the report's last lines
 */
export async function verifySignature(
  file: string,
  caFile: string | undefined,
  run: Runner = runCommand,
): Promise<{ ok: boolean; signer: string; detail: string }> {
  const v = await run("osslsigncode", [
    "verify",
    ...(caFile ? ["-CAfile", caFile] : []),
    "-in",
    file,
  ]);
  const text = `${v.out}\n${v.err}`;
  const ok = v.code === 0 && /Signature verification: ok/.test(text) &&
    !/Signature verification: failed/.test(text);
  const signer = /Signer's certificate:[\s\S]*?Subject: ([^\n]+)/.exec(text)?.[1]?.trim() ?? "";
  return { ok, signer, detail: text.trim().split("\n").slice(-4).join(" | ") };
}
