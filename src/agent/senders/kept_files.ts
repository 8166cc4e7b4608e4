/**
 * The files the agent keeps for senders in its data folder, in `certificates/` (mode 0600 in a
 * 0700 folder):
 *
 * - a PKCS#12 file the accountant dropped on the console's Senders page (or chose with the
 *   browser's own file input): kept byte for byte as it came — its private key stays encrypted
 *   under the file's password, which the agent never stores. A file whose key is readable
 *   without the password is refused (it would be a key stored unencrypted);
 * - each sender's certificate (public, DER), so that the console can show the holder, issuer,
 *   validity and checks without the PIN or the token (the key store reference's
 *   `certificateFile`, sender_keys.ts).
 * @module
 */
import { basename, join, resolve } from "node:path";
import { AppError, isAppError } from "../../contract/mod.ts";
import { writePrivateFile } from "../../private_files.ts";

/** The signing library loads on first use. */
const signing = () => import("../../signing/mod.ts");

/** The largest PKCS#12 file taken from the page, bytes (a QES file is a few KiB). */
export const MAX_PKCS12_BYTES = 128 * 1024;

/** The folder of kept files. */
export const certificatesDir = (dataDir: string): string => join(resolve(dataDir), "certificates");

/**
 * Keep a PKCS#12 file sent by the console's page.
 * @param dataDir the agent's data folder
 * @param fileName the name the browser gave (only its base name is used, made safe)
 * @param bytes the file's bytes
 * @returns the kept file's absolute path (`certificates/<name>-<sha256 prefix>.p12`); the same
 *   bytes give the same path
 * @throws AppError VALIDATION_FAILED (`field` "file": empty or larger than
 *   {@link MAX_PKCS12_BYTES}), KEYSTORE_UNAVAILABLE (`details.notPkcs12`: not a PKCS#12 file;
 *   `details.plainKey`: its key is not protected by a password)
 */
export async function keepUploadedPkcs12(
  dataDir: string,
  fileName: string,
  bytes: Uint8Array,
): Promise<string> {
  if (bytes.length === 0 || bytes.length > MAX_PKCS12_BYTES) {
    throw new AppError(
      "VALIDATION_FAILED",
      `The file must be 1 byte to ${MAX_PKCS12_BYTES / 1024} KiB`,
      { field: "file" },
    );
  }
  const m = await signing();
  let plain: boolean;
  try {
    plain = await m.pkcs12HasPlainKey(bytes);
  } catch (e) {
    if (isAppError(e) && e.code !== "KEYSTORE_UNAVAILABLE") throw e;
    throw new AppError("KEYSTORE_UNAVAILABLE", "The file is not a PKCS#12 file", {
      notPkcs12: true,
    }, e);
  }
  if (plain) {
    throw new AppError(
      "KEYSTORE_UNAVAILABLE",
      "The PKCS#12 file's private key is not protected by a password",
      { plainKey: true },
    );
  }
  const stem = basename(fileName.replace(/\\/g, "/")).replace(/\.(p12|pfx)$/i, "")
    .replace(/[^\p{L}\p{N}._ -]+/gu, "_").replace(/^[.\s]+/, "").slice(0, 60) || "certificate";
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes.slice())).subarray(0, 6)
    .toHex();
  const dir = certificatesDir(dataDir);
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${stem}-${hash}.p12`);
  await writePrivateFile(path, bytes);
  return path;
}

/**
 * Keep a sender's certificate (public) for the console.
 * @param dataDir the agent's data folder
 * @param senderId the sender's id (a safe file name: SenderConfig's id pattern)
 * @param der the certificate's DER
 * @returns the file's absolute path (`certificates/<senderId>.cer`)
 * @throws Deno errors when the folder cannot be written
 */
export async function keepSenderCertificate(
  dataDir: string,
  senderId: string,
  der: Uint8Array,
): Promise<string> {
  const dir = certificatesDir(dataDir);
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${senderId}.cer`);
  await writePrivateFile(path, der);
  return path;
}
