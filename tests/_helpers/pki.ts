/**
 * Test PKI helpers for the signing tests: a CA and signer certificates generated at test time
 * (@peculiar/x509 over WebCrypto), files for openssl/SoftHSM2, and the "skip locally, fail on
 * CI" rule for tests that need system tools.
 * @module
 */

import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import * as asn1js from "asn1js";
import { join } from "node:path";

x509.cryptoProvider.set(crypto);

/** Key kinds the helpers can make. */
export type TestKeyKind = "RSA" | "EC-P256" | "EC-P384";

/** A generated certificate with its key pair (the private key is extractable for export). */
export interface TestCert {
  readonly cert: x509.X509Certificate;
  readonly der: Uint8Array;
  readonly keys: CryptoKeyPair;
  readonly kind: TestKeyKind;
}

/** Options for {@link makeCert}. */
export interface CertOptions {
  readonly subject: string;
  readonly kind?: TestKeyKind;
  readonly issuer?: TestCert;
  readonly notBefore?: Date;
  readonly notAfter?: Date;
  readonly ca?: boolean;
  /** x509.KeyUsageFlags bit set; default nonRepudiation (CA: keyCertSign|cRLSign). */
  readonly keyUsage?: number | null;
  /** Add QcStatements with QcCompliance, QcSSCD and QcType esign (default true for leaves). */
  readonly qc?: boolean;
  readonly serial?: string;
}

function keyParams(kind: TestKeyKind): RsaHashedKeyGenParams | EcKeyGenParams {
  return kind === "RSA"
    ? {
      name: "RSASSA-PKCS1-v1_5",
      hash: "SHA-256",
      publicExponent: new Uint8Array([1, 0, 1]),
      modulusLength: 2048,
    }
    : { name: "ECDSA", namedCurve: kind === "EC-P256" ? "P-256" : "P-384" };
}

function signingAlg(kind: TestKeyKind): Algorithm {
  return kind === "RSA"
    ? { name: "RSASSA-PKCS1-v1_5" }
    : ({ name: "ECDSA", hash: kind === "EC-P384" ? "SHA-384" : "SHA-256" } as Algorithm);
}

/** DER of a QcStatements extension value: QcCompliance, QcSSCD, QcType = esign. */
export function qcStatementsDer(): Uint8Array<ArrayBuffer> {
  const oid = (v: string) => new asn1js.ObjectIdentifier({ value: v });
  const seq = new asn1js.Sequence({
    value: [
      new asn1js.Sequence({ value: [oid("0.4.0.1862.1.1")] }),
      new asn1js.Sequence({ value: [oid("0.4.0.1862.1.4")] }),
      new asn1js.Sequence({
        value: [oid("0.4.0.1862.1.6"), new asn1js.Sequence({ value: [oid("0.4.0.1862.1.6.1")] })],
      }),
    ],
  });
  return new Uint8Array(seq.toBER());
}

/** Makes a certificate (self-signed when no issuer). */
export async function makeCert(o: CertOptions): Promise<TestCert> {
  const kind = o.kind ?? "RSA";
  const keys = await crypto.subtle.generateKey(keyParams(kind), true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const notBefore = o.notBefore ?? new Date(Date.now() - 86_400_000);
  const notAfter = o.notAfter ?? new Date(Date.now() + 365 * 86_400_000);
  const extensions: x509.Extension[] = [];
  if (o.ca) {
    extensions.push(new x509.BasicConstraintsExtension(true, undefined, true));
    extensions.push(
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
    );
  } else {
    const ku = o.keyUsage === undefined ? x509.KeyUsageFlags.nonRepudiation : o.keyUsage;
    if (ku !== null) extensions.push(new x509.KeyUsagesExtension(ku, true));
    if (o.qc ?? true) {
      extensions.push(
        new x509.Extension(
          "1.3.6.1.5.5.7.1.3",
          false,
          qcStatementsDer() as Uint8Array<ArrayBuffer>,
        ),
      );
    }
  }
  extensions.push(await x509.SubjectKeyIdentifierExtension.create(keys.publicKey));
  const serialNumber = o.serial ??
    `01${
      crypto.getRandomValues(new Uint8Array(8)).reduce((s, b) =>
        s + b.toString(16).padStart(2, "0"), "")
    }`;
  const common = { serialNumber, subject: o.subject, notBefore, notAfter, extensions };
  const cert = o.issuer
    ? await x509.X509CertificateGenerator.create({
      ...common,
      issuer: o.issuer.cert.subject,
      publicKey: keys.publicKey,
      signingKey: o.issuer.keys.privateKey,
      signingAlgorithm: signingAlg(o.issuer.kind),
    })
    : await x509.X509CertificateGenerator.createSelfSigned({
      ...common,
      name: o.subject,
      keys,
      signingAlgorithm: signingAlg(kind),
    });
  return { cert, der: new Uint8Array(cert.rawData), keys, kind };
}

/** Issuer DN of the test CA: looks like a B-Trust (BORICA) qualified CA. */
export const TEST_CA_SUBJECT = "CN=B-Trust Test Operational Qualified CA, O=BORICA AD, C=BG";
/** Personal id placed in the signers' subject serialNumber. */
export const TEST_PERSONAL_ID = "PNOBG-8001010008";

/** PEM of DER bytes. */
export function pem(label: string, der: Uint8Array): string {
  const b64 = btoa(String.fromCharCode(...der)).replace(/(.{64})/g, "$1\n").trimEnd();
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

/** Files of one signer written by {@link writeTestPki}. */
export interface SignerFiles {
  readonly cert: TestCert;
  readonly certPem: string;
  readonly certDer: string;
  readonly keyPem: string;
}

/** A CA and RSA-2048 / EC P-256 signers written to `dir`. */
export interface TestPki {
  readonly dir: string;
  readonly ca: TestCert;
  readonly caPem: string;
  readonly rsa: SignerFiles;
  readonly ec: SignerFiles;
}

/**
 * Make a signer's certificate (issued by `ca`) and write its PEM/DER files into `dir` as
 * `{name}.cert.pem`, `{name}.cert.der` and `{name}.key.pem` (PKCS#8).
 * @param dir the folder
 * @param name the files' stem
 * @param subject the certificate's subject (e.g. `CN=…, 2.5.4.5=PNOBG-…, C=BG`)
 * @param ca the issuer
 * @param kind the key's kind (default RSA-2048)
 */
export async function writeSigner(
  dir: string,
  name: string,
  subject: string,
  ca: TestCert,
  kind: TestKeyKind = "RSA",
): Promise<SignerFiles> {
  const cert = await makeCert({ subject, kind, issuer: ca });
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", cert.keys.privateKey));
  const files = {
    cert,
    certPem: join(dir, `${name}.cert.pem`),
    certDer: join(dir, `${name}.cert.der`),
    keyPem: join(dir, `${name}.key.pem`),
  };
  await Deno.writeTextFile(files.certPem, pem("CERTIFICATE", cert.der));
  await Deno.writeFile(files.certDer, cert.der);
  await Deno.writeTextFile(files.keyPem, pem("PRIVATE KEY", pkcs8));
  return files;
}

/** Generates the test PKI and writes PEM/DER files into `dir`. */
export async function writeTestPki(dir: string): Promise<TestPki> {
  const ca = await makeCert({ subject: TEST_CA_SUBJECT, ca: true });
  const caPem = join(dir, "ca.pem");
  await Deno.writeTextFile(caPem, pem("CERTIFICATE", ca.der));
  const signer = (kind: TestKeyKind, name: string) =>
    writeSigner(dir, name, `CN=Ivan Petrov ${name}, 2.5.4.5=${TEST_PERSONAL_ID}, C=BG`, ca, kind);
  return { dir, ca, caPem, rsa: await signer("RSA", "rsa"), ec: await signer("EC-P256", "ec") };
}

/** Result of {@link run}. */
export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command and captures its output (never throws on a non-zero exit). */
export async function run(
  cmd: string,
  args: string[],
  env?: Record<string, string>,
): Promise<RunResult> {
  const out = await new Deno.Command(cmd, {
    args,
    ...(env ? { env } : {}),
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Runs a command and throws with its stderr when it fails. */
export async function runOk(
  cmd: string,
  args: string[],
  env?: Record<string, string>,
): Promise<string> {
  const r = await run(cmd, args, env);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/**
 * Write a PKCS#12 file of a certificate and its key with openssl (`pkcs12 -export`).
 * @param signer the PEM files of the certificate and the key
 * @param out the file to write
 * @param password the file's password
 * @param extra more `openssl pkcs12` arguments (e.g. `-certpbe NONE`)
 * @returns `out`
 */
export async function writePkcs12(
  signer: Pick<SignerFiles, "certPem" | "keyPem">,
  out: string,
  password: string,
  extra: string[] = [],
): Promise<string> {
  await runOk("openssl", [
    "pkcs12",
    "-export",
    "-in",
    signer.certPem,
    "-inkey",
    signer.keyPem,
    "-out",
    out,
    "-passout",
    `pass:${password}`,
    ...extra,
  ]);
  return out;
}

/** True when `cmd` can be started. */
export async function hasTool(cmd: string, probeArgs: string[] = ["--version"]): Promise<boolean> {
  try {
    await new Deno.Command(cmd, { args: probeArgs, stdout: "null", stderr: "null" }).output();
    return true;
  } catch {
    return false;
  }
}

/** Default SoftHSM2 module path on Debian/Ubuntu x86_64 (apt package softhsm2). */
export const SOFTHSM2_MODULE = "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so";

/**
 * Checks that the system tools a test needs exist. Returns a skip reason when they are missing
 * and CI is not `true`; throws when CI=true (missing tools must fail CI, not skip).
 */
export async function toolsMissing(
  tools: string[],
  files: string[] = [],
): Promise<string | undefined> {
  const missing: string[] = [];
  for (const t of tools) {
    if (!(await hasTool(t, t === "openssl" ? ["version"] : ["--help"]))) missing.push(t);
  }
  for (const f of files) {
    try {
      await Deno.stat(f);
    } catch {
      missing.push(f);
    }
  }
  if (missing.length === 0) return undefined;
  const msg = `needs ${missing.join(", ")} (run scripts/softhsm_setup.sh)`;
  if (Deno.env.get("CI") === "true") throw new Error(`CI=true and the test ${msg}`);
  console.log(`SKIP: ${msg}`);
  return msg;
}

/** Temporary directory removed by the returned disposer. */
export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await Deno.makeTempDir({ prefix });
  return { path, remove: () => Deno.remove(path, { recursive: true }) };
}
