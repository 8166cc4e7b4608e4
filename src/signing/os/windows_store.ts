/**
 * {@link KeyStore} over the Windows certificate store (CurrentUser\My by default) through
 * Windows PowerShell 5.1 and .NET (`GetRSAPrivateKey` / `GetECDsaPrivateKey`), run via an injected
 * {@link CommandRunner}. The key's CSP/KSP (smart-card minidriver) shows its own PIN dialog, so
 * the `pin` argument is ignored and never passed on.
 *
 * NOT VERIFIED ON WINDOWS: this was built and unit-tested on Linux with synthesised outputs in
 * the documented formats. The HRESULT mapping follows winerror.h / scarderr.h.
 * @module
 */

import { Buffer } from "node:buffer";
import { AppError, isAppError } from "../../contract/mod.ts";
import { toCertificateInfo } from "../cert_info.ts";
import { ecdsaRawToDer } from "../ecdsa_signature.ts";
import type { CertificateInfo, KeyStore } from "../keystore.ts";
import type { CommandRunner } from "../../command_runner.ts";

/** Options of {@link openWindowsCertStore}. */
export interface WindowsStoreOptions {
  /** Runs powershell.exe (inject a fake in tests). */
  readonly run: CommandRunner;
  /** Store location (default CurrentUser). */
  readonly location?: "CurrentUser" | "LocalMachine";
  /** PowerShell executable (default powershell.exe, Windows PowerShell 5.1). */
  readonly powershell?: string;
}

const PRELUDE = "$ErrorActionPreference='Stop';[Console]::OutputEncoding=[Text.Encoding]::UTF8;" +
  "trap{Write-Output ('ERR:'+('{0:X8}' -f $_.Exception.HResult)+':'+$_.Exception.Message);exit 2};";

/**
 * The PowerShell script that lists certificates with a private key as JSON.
 *
 * @param location store location
 * @returns script text
 * @throws never
 */
export function listScript(location: string): string {
  return PRELUDE +
    `$c=@(Get-ChildItem -Path 'Cert:\\${location}\\My' | Where-Object {$_.HasPrivateKey} | ` +
    "ForEach-Object {[pscustomobject]@{thumbprint=$_.Thumbprint;friendlyName=$_.FriendlyName;" +
    "der=[Convert]::ToBase64String($_.RawData)}});ConvertTo-Json -InputObject $c -Compress";
}

/**
 * The PowerShell script that signs Base64 data read from stdin with SHA-256.
 *
 * @param location store location
 * @param thumbprint 40 hex digits (validated: nothing else reaches the script)
 * @returns script text; prints `RSA:<b64>` or `EC:<b64 r||s>`, or `ERR:<HRESULT>:<message>`
 * @throws AppError CERTIFICATE_INVALID for a malformed thumbprint
 */
export function signScript(location: string, thumbprint: string): string {
  if (!/^[0-9A-F]{40}$/i.test(thumbprint)) {
    throw new AppError("CERTIFICATE_INVALID", "Not a Windows certificate thumbprint");
  }
  const ns = "System.Security.Cryptography";
  return PRELUDE +
    `$cert=Get-Item -Path 'Cert:\\${location}\\My\\${thumbprint}';` +
    "$d=[Convert]::FromBase64String([Console]::In.ReadToEnd().Trim());" +
    `$h=[${ns}.HashAlgorithmName]::SHA256;` +
    `$k=[${ns}.X509Certificates.RSACertificateExtensions]::GetRSAPrivateKey($cert);` +
    `if($k){Write-Output ('RSA:'+[Convert]::ToBase64String($k.SignData($d,$h,[${ns}.RSASignaturePadding]::Pkcs1)));exit 0};` +
    `$k=[${ns}.X509Certificates.ECDsaCertificateExtensions]::GetECDsaPrivateKey($cert);` +
    "if($k){Write-Output ('EC:'+[Convert]::ToBase64String($k.SignData($d,$h)));exit 0};" +
    "Write-Output 'ERR:80090016:No private key';exit 2";
}

/**
 * powershell.exe arguments for a script (`-EncodedCommand` takes Base64 of UTF-16LE, which
 * avoids every quoting problem).
 *
 * @param script script text
 * @returns argument list
 * @throws never
 */
export function powershellArgs(script: string): string[] {
  return [
    "-NoProfile",
    "-NonInteractive",
    "-ExecutionPolicy",
    "Bypass",
    "-EncodedCommand",
    Buffer.from(script, "utf16le").toString("base64"),
  ];
}

/** HRESULTs (hex, upper case) → product codes; scarderr.h / winerror.h. */
const HRESULTS: Record<string, [Parameters<typeof mkErr>[0], string]> = {
  "8010006B": ["PIN_INCORRECT", "The smart card PIN is incorrect"], // SCARD_W_WRONG_CHV
  "8010006C": ["PIN_LOCKED", "The smart card PIN is locked"], // SCARD_W_CHV_BLOCKED
  "8010006E": ["KEYSTORE_UNAVAILABLE", "PIN entry was cancelled"], // SCARD_W_CANCELLED_BY_USER
  "800704C7": ["KEYSTORE_UNAVAILABLE", "The operation was cancelled"], // ERROR_CANCELLED
  "8010000C": ["KEYSTORE_UNAVAILABLE", "No smart card is inserted"], // SCARD_E_NO_SMARTCARD
  "80100069": ["KEYSTORE_UNAVAILABLE", "The smart card was removed"], // SCARD_W_REMOVED_CARD
  "8010001D": ["KEYSTORE_UNAVAILABLE", "The smart card service is not running"], // SCARD_E_NO_SERVICE
  "80090016": ["CERTIFICATE_INVALID", "The certificate has no usable private key"], // NTE_BAD_KEYSET
};

function mkErr(
  code:
    | "PIN_INCORRECT"
    | "PIN_LOCKED"
    | "KEYSTORE_UNAVAILABLE"
    | "CERTIFICATE_INVALID"
    | "SIGNING_FAILED",
  msg: string,
  d: Record<string, unknown>,
) {
  return new AppError(code, msg, d);
}

/**
 * Maps a script's `ERR:<HRESULT>:<message>` line (or any failure) to an AppError.
 *
 * @param output the script's stdout
 * @param fallback code for unknown failures
 * @returns the error
 * @throws never
 */
export function windowsError(
  output: string,
  fallback: "KEYSTORE_UNAVAILABLE" | "SIGNING_FAILED",
): AppError {
  const m = /ERR:([0-9A-F]{8}):/i.exec(output);
  const hr = m?.[1].toUpperCase();
  const known = hr ? HRESULTS[hr] : undefined;
  const d = hr ? { hresult: `0x${hr}` } : {};
  return known
    ? mkErr(known[0], known[1], d)
    : mkErr(fallback, "The Windows certificate store operation failed", d);
}

/**
 * Parses the JSON the list script prints.
 *
 * @param stdout script output
 * @param location store location (part of the ids)
 * @returns certificate infos, id `windows:<location>/My/<THUMBPRINT>`
 * @throws AppError KEYSTORE_UNAVAILABLE when the output is not the expected JSON
 */
export function parseWindowsList(stdout: string, location: string): CertificateInfo[] {
  let rows: unknown;
  try {
    rows = JSON.parse(stdout.trim() || "[]");
  } catch (e) {
    throw new AppError(
      "KEYSTORE_UNAVAILABLE",
      "Unexpected output from the Windows certificate store",
      {},
      e,
    );
  }
  const list = (Array.isArray(rows) ? rows : [rows]) as {
    thumbprint?: string;
    friendlyName?: string;
    der?: string;
  }[];
  const out: CertificateInfo[] = [];
  for (const r of list) {
    if (!r?.thumbprint || !r.der) continue;
    const der = Uint8Array.fromBase64(r.der);
    out.push(
      toCertificateInfo(
        der,
        `windows:${location}/My/${r.thumbprint.toUpperCase()}`,
        r.friendlyName || undefined,
      ),
    );
  }
  return out;
}

/**
 * Opens the Windows certificate store key store.
 *
 * @param options the command runner, store location, PowerShell path
 * @returns the key store (`pin` is ignored: Windows asks for it)
 * @throws never (errors surface from methods: KEYSTORE_UNAVAILABLE, PIN_INCORRECT, PIN_LOCKED,
 *   CERTIFICATE_INVALID, SIGNING_FAILED)
 */
export function openWindowsCertStore(options: WindowsStoreOptions): KeyStore {
  const location = options.location ?? "CurrentUser";
  const ps = options.powershell ?? "powershell.exe";
  const call = async (
    script: string,
    stdin: Uint8Array | undefined,
    fallback: "KEYSTORE_UNAVAILABLE" | "SIGNING_FAILED",
  ) => {
    try {
      const r = await options.run({ cmd: ps, args: powershellArgs(script), stdin });
      if (r.code !== 0 || r.stdout.startsWith("ERR:")) throw windowsError(r.stdout, fallback);
      return r.stdout.trim();
    } catch (e) {
      if (isAppError(e)) throw e;
      throw new AppError("KEYSTORE_UNAVAILABLE", "PowerShell cannot be started", {}, e);
    }
  };
  return {
    kind: "windows",
    async listCertificates() {
      return parseWindowsList(
        await call(listScript(location), undefined, "KEYSTORE_UNAVAILABLE"),
        location,
      );
    },
    async sign(certId, data) {
      const thumb = certId.split("/").pop() ?? "";
      const out = await call(
        signScript(location, thumb),
        new TextEncoder().encode(data.toBase64()),
        "SIGNING_FAILED",
      );
      const m = /^(RSA|EC):([A-Za-z0-9+/=]+)$/m.exec(out);
      if (!m) throw new AppError("SIGNING_FAILED", "Unexpected output from the Windows signer");
      const sig = Uint8Array.fromBase64(m[2]);
      return m[1] === "EC" ? ecdsaRawToDer(sig) : sig;
    },
    close: () => Promise.resolve(),
  };
}
