/**
 * What a signing certificate is, as the Senders page and the CLI show it
 * ({@link FoundCertificate}): names, the holder's personal id MASKED (`80******08`), validity,
 * the certificate checks and the key store reference agent.json would store; and a chosen
 * PKCS#12 file's certificates ({@link describePkcs12}). No PIN is stored or logged here.
 * @module
 */
import { basename, isAbsolute, resolve } from "node:path";
import { AppError, isAppError } from "../../contract/mod.ts";
import { maskPersonalId } from "../../log.ts";
import type { CertificateCheck, CertificateInfo } from "../../signing/mod.ts";
import { type KeyStoreRef, readKeyStoreFile } from "./sender_keys.ts";

/** The signing library loads on first use (the agent's start never pays for it). */
const signing = () => import("../../signing/mod.ts");

/** Where a certificate was found. */
export type CertificateSource = "pkcs11" | "pkcs12" | "windows" | "macos" | "csc";

/** One certificate as the Senders page shows it (nothing secret, the personal id masked). */
export interface FoundCertificate {
  /** Stable opaque id for forms: the same certificate in the same place gives the same key. */
  readonly key: string;
  readonly source: CertificateSource;
  /** Where it is, human readable: middleware and token label, file name, OS store. */
  readonly sourceLabel: string;
  /** The holder's name (subject CN; else given name and surname). */
  readonly holderName: string;
  /** The subject DN with the personal id masked. */
  readonly subject: string;
  /** The holder's EGN masked (`80******08`), another personal id masked likewise, or null. */
  readonly personalIdMasked: string | null;
  /** The issuer, human readable: its CN, with its O in parentheses when that adds something. */
  readonly issuer: string;
  /** Start of validity, ISO 8601 UTC. */
  readonly notBefore: string;
  /** End of validity, ISO 8601 UTC. */
  readonly notAfter: string;
  /** Whole days until `notAfter` (negative once expired). */
  readonly expiresInDays: number;
  /** Valid now but fewer than 30 days left. */
  readonly expiringSoon: boolean;
  readonly expired: boolean;
  /** The qualified-certificate statements check passed (QcCompliance). */
  readonly qualified: boolean;
  /** validity, keyUsage, qcStatements, issuer — each with its reason (English). */
  readonly checks: readonly CertificateCheck[];
  /** What agent.json stores for a sender with this certificate (always with `certId`). */
  readonly ref: KeyStoreRef;
}

const DAY_MS = 86_400_000;
/** Fewer days left than this is "expiring soon". */
export const EXPIRING_SOON_DAYS = 30;

/**
 * Mask the personal id of a certificate subject (`serialNumber`, e.g. `PNOBG-8001010008`): an
 * EGN/LNCh becomes `80******08` (maskPersonalId in src/log.ts, the semantics prefix dropped);
 * another identifier (identity card, passport) keeps its prefix, first and last two characters.
 * @param personalId the subject serialNumber, or undefined
 * @returns the masked id, or null when there is none
 * @throws never
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(maskCertificatePersonalId("PNOBG-8001010008"), "80******08");
 * ```
 */
export function maskCertificatePersonalId(personalId: string | undefined): string | null {
  if (!personalId) return null;
  const m = /^([A-Z]{5})-(.+)$/.exec(personalId);
  // non-null: group 2 of the pattern is not optional, so a match has it
  const value = m ? m[2]! : personalId;
  if (/^\d{10}$/.test(value)) return maskPersonalId(value);
  const masked = value.length > 4
    ? `${value.slice(0, 2)}${"*".repeat(value.length - 4)}${value.slice(-2)}`
    : "*".repeat(value.length);
  return m ? `${m[1]}-${masked}` : masked;
}

/** The subject DN with the personal id replaced by its masked form (semantics prefix kept). */
function maskSubject(subject: string, personalId?: string, masked?: string | null): string {
  if (!personalId || !masked) return subject;
  const prefix = /^[A-Z]{5}-/.exec(personalId)?.[0] ?? "";
  return subject.split(personalId).join(masked.startsWith(prefix) ? masked : prefix + masked);
}

async function keyOf(parts: readonly (string | undefined)[]): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(parts));
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `cert_${hash.subarray(0, 16).toHex()}`;
}

/** Where a reference points, for the key (the certificate id is added by the caller). */
function placeOf(ref: KeyStoreRef): string {
  switch (ref.type) {
    case "pkcs12":
      return ref.file;
    case "pkcs11":
      return `${ref.module}|${ref.tokenLabel ?? ""}`;
    case "windows":
      return ref.thumbprint;
    case "macos":
      return "";
    case "csc":
      return `${ref.serviceUrl}|${ref.clientId}`;
  }
}

/**
 * Describe one certificate of a key store for the Senders page.
 * @param cert the certificate as the store lists it
 * @param ref the reference agent.json would store (its `certId` is set to `cert.id`)
 * @param sourceLabel where it is, human readable
 * @param now epoch ms (validity, expiry, checks)
 * @returns the description
 * @throws AppError CERTIFICATE_INVALID when the certificate cannot be parsed
 */
export async function describeCertificate(
  cert: CertificateInfo,
  ref: KeyStoreRef,
  sourceLabel: string,
  now: number,
): Promise<FoundCertificate> {
  const m = await signing();
  const parsed = m.parseCertificate(cert.der);
  const subject = (n: string) => m.nameValue(parsed.subject, n);
  const issuerOf = (n: string) => m.nameValue(parsed.issuer, n);
  const given = [subject("GN"), subject("SN")].filter(Boolean).join(" ");
  const holderName = subject("CN") ?? (given || cert.subject);
  const issuerCn = issuerOf("CN"), issuerO = issuerOf("O");
  const issuer = issuerCn
    ? issuerO && !issuerCn.includes(issuerO) ? `${issuerCn} (${issuerO})` : issuerCn
    : issuerO ?? cert.issuer;
  const personalIdMasked = maskCertificatePersonalId(cert.personalId);
  const checks = m.checkCertificate(cert.der, () => new Date(now));
  const left = cert.notAfter.getTime() - now;
  const expired = left < 0;
  const expiresInDays = Math.floor(left / DAY_MS);
  const fullRef = { ...ref, certId: cert.id } as KeyStoreRef;
  return {
    key: await keyOf([ref.type, placeOf(ref), cert.id]),
    source: ref.type,
    sourceLabel,
    holderName,
    subject: maskSubject(cert.subject, cert.personalId, personalIdMasked),
    personalIdMasked,
    issuer,
    notBefore: cert.notBefore.toISOString(),
    notAfter: cert.notAfter.toISOString(),
    expiresInDays,
    expiringSoon: !expired && expiresInDays < EXPIRING_SOON_DAYS,
    expired,
    qualified: checks.some((c) => c.check === "qcStatements" && c.ok),
    checks,
    ref: fullRef,
  };
}

/**
 * Describe the signing certificates of a PKCS#12 (.p12/.pfx) file the user chose.
 * @param file the file's path (made absolute)
 * @param password the file's password (used once, never stored)
 * @param deps the clock
 * @returns one entry per certificate that has its private key in the file (none: empty list)
 * @throws AppError KEYSTORE_UNAVAILABLE (cannot be read, not a PKCS#12 file, unsupported
 *   encryption), PIN_INCORRECT (wrong or missing password; `details.pinRequired` when missing)
 */
export async function describePkcs12(
  file: string,
  password: string | undefined,
  deps: { readonly now?: () => number } = {},
): Promise<FoundCertificate[]> {
  const path = isAbsolute(file) ? file : resolve(file);
  const bytes = await readKeyStoreFile(path, `Cannot read the file ${basename(path)}`, {
    file: basename(path),
  });
  const m = await signing();
  const store = m.openPkcs12KeyStore(bytes, { name: basename(path) });
  try {
    const certs = await store.listCertificates(password);
    const now = (deps.now ?? Date.now)();
    const ref: KeyStoreRef = { type: "pkcs12", file: path };
    const label = `${basename(path)} (PKCS#12)`;
    const out: FoundCertificate[] = [];
    for (const c of certs) out.push(await describeCertificate(c, ref, label, now));
    return out;
  } catch (e) {
    if (isAppError(e)) throw e;
    throw new AppError("KEYSTORE_UNAVAILABLE", "The PKCS#12 file cannot be read", {}, e);
  } finally {
    await store.close();
  }
}
