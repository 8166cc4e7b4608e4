/**
 * Optional HTTPS on loopback (docs/https.md), for Safari, which blocks `http://` calls from
 * `https://` pages. The agent makes its own certificate authority, name-constrained to
 * `localhost`, `127.0.0.1` and `::1` (RFC 5280, section 4.2.1.10) so that even if it is trusted it
 * can vouch for nothing else, issues one server certificate with it, and **discards the CA's
 * private key** at once: no other certificate can ever be issued under that root. The user
 * trusts the CA in the OS store with `agent trust-certificate` (see {@link trustCommands}).
 * Files in `<dataDir>/tls/` (a 0700 folder): ca.pem, server.pem, server.key (0600).
 * @module
 */
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { AsnConvert } from "@peculiar/asn1-schema";
import { GeneralName, GeneralSubtree, GeneralSubtrees, NameConstraints } from "@peculiar/asn1-x509";
import { join } from "node:path";
import { ensurePrivateDirSync, PRIVATE_FILE_MODE, tightenFilesSync } from "../../private_files.ts";

/** Validity of the server certificate, days (browsers accept at most 398). */
export const SERVER_CERT_DAYS = 397;
/** A certificate closer than this to its end is renewed at start, days. */
export const RENEW_BEFORE_DAYS = 30;

/** The PEM files of the loopback TLS setup. */
export interface LoopbackTls {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
  readonly caFile: string;
  readonly notAfter: Date;
}

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

function nameConstraints(): x509.Extension {
  const permitted = new GeneralSubtrees([
    new GeneralSubtree({ base: new GeneralName({ dNSName: "localhost" }) }),
    new GeneralSubtree({ base: new GeneralName({ iPAddress: "127.0.0.1/32" }) }),
    new GeneralSubtree({ base: new GeneralName({ iPAddress: "::1/128" }) }),
  ]);
  const der = AsnConvert.serialize(new NameConstraints({ permittedSubtrees: permitted }));
  return new x509.Extension("2.5.29.30", true, der);
}

/**
 * Make (or reuse) the loopback CA and server certificate.
 * @param dataDir the agent's data directory
 * @param now the current time
 * @returns the PEMs and the CA file path
 */
export async function ensureLoopbackTls(dataDir: string, now: Date): Promise<LoopbackTls> {
  const dir = join(dataDir, "tls");
  const paths = {
    ca: join(dir, "ca.pem"),
    cert: join(dir, "server.pem"),
    key: join(dir, "server.key"),
  };
  try {
    const [caPem, certPem, keyPem] = await Promise.all([
      Deno.readTextFile(paths.ca),
      Deno.readTextFile(paths.cert),
      Deno.readTextFile(paths.key),
    ]);
    const notAfter = new x509.X509Certificate(certPem).notAfter;
    if (notAfter.getTime() - now.getTime() > RENEW_BEFORE_DAYS * 86_400_000) {
      return { caPem, certPem, keyPem, caFile: paths.ca, notAfter };
    }
  } catch {
    // missing or unreadable: make new ones
  }
  ensurePrivateDirSync(dir);
  const caKeys = await crypto.subtle.generateKey(ALG, true, ["sign", "verify"]) as CryptoKeyPair;
  const serverKeys = await crypto.subtle.generateKey(ALG, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const serial = () => crypto.getRandomValues(new Uint8Array(16)).toHex().replace(/^[89a-f]/, "1");
  const notAfter = new Date(now.getTime() + SERVER_CERT_DAYS * 86_400_000);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=svc-filing local agent CA (this computer only) ${now.toISOString().slice(0, 10)}`,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      nameConstraints(),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const server = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: "CN=localhost",
    issuer: ca.subject,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: "dns", value: "localhost" },
        { type: "ip", value: "127.0.0.1" },
        { type: "ip", value: "::1" },
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  // The CA's private key is never exported or written: it goes out of scope here.
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", serverKeys.privateKey));
  const keyPem = x509.PemConverter.encode(pkcs8.buffer as ArrayBuffer, "PRIVATE KEY");
  const caPem = ca.toString("pem");
  const certPem = server.toString("pem");
  await Deno.writeTextFile(paths.ca, caPem);
  await Deno.writeTextFile(paths.cert, certPem + "\n" + caPem);
  await Deno.writeTextFile(paths.key, keyPem, { mode: PRIVATE_FILE_MODE });
  tightenFilesSync([paths.key]); // `mode` applies only when the file is created
  return { caPem, certPem: certPem + "\n" + caPem, keyPem, caFile: paths.ca, notAfter };
}

/**
 * The commands that add the CA to the OS trust store for the current user (none on Windows:
 * `agent trust-certificate` adds it through the Windows API and reads it back).
 * @param os Deno.build.os
 * @param caFile path of ca.pem
 * @param home the user's home directory (HOME; Linux: the NSS database under it; default ".")
 * @returns program + arguments to run, in order (the user may be asked to confirm by the OS)
 */
export function trustCommands(os: string, caFile: string, home = "."): [string, string[]][] {
  if (os === "darwin") {
    return [["security", ["add-trusted-cert", "-r", "trustRoot", "-k", "login.keychain", caFile]]];
  }
  // Windows: no program; `agent trust-certificate` calls the Windows API (signing/os).
  if (os === "windows") return [];
  // Linux: the per-user NSS database that Chromium and Firefox-on-NSS read.
  return [[
    "certutil",
    [
      "-d",
      "sql:" + join(home, ".pki", "nssdb"),
      "-A",
      "-t",
      "C,,",
      "-n",
      "svc-filing agent CA",
      "-i",
      caFile,
    ],
  ]];
}
