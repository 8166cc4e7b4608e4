/**
 * Checks of a signing certificate before it is used for an NRA filing: validity dates (against an
 * injected clock), key usage (digitalSignature or nonRepudiation), qualified-certificate
 * statements (QcStatements 1.3.6.1.5.5.7.1.3 with QcCompliance 0.4.0.1862.1.1, ETSI EN 319 412-5)
 * and an issuer among the Bulgarian QES providers. Every check returns a reason a CLI can show.
 * The agency rejects unrecognised certificates (API_UNRECOGNIZED_CERTIFICATE_OR_USER,
 * docs/nra-api.md §5), so these checks catch the obvious cases locally; they do not replace
 * chain, revocation or trusted-list validation (not done here).
 * @module
 */

import * as asn1js from "asn1js";
import { AppError } from "../contract/mod.ts";
import { toArrayBuffer } from "./bytes.ts";
import { nameValue, parseCertificate } from "./cert_info.ts";
import type { Clock } from "./keystore.ts";

/** Names of the checks, in the order they run. */
export type CertificateCheckName = "validity" | "keyUsage" | "qcStatements" | "issuer";

/** One check result. */
export interface CertificateCheck {
  readonly check: CertificateCheckName;
  readonly ok: boolean;
  /** Human-readable reason (English, sentence case). */
  readonly reason: string;
  /** Which failure, for texts in other words (absent when `ok`). */
  readonly why?: CertificateFailure;
  /** The validity check of a valid certificate: whole days left until it ends. */
  readonly daysLeft?: number;
}

/** Why a check failed: stable names a page turns into words. */
export type CertificateFailure =
  | "notYetValid"
  | "expired"
  | "noKeyUsage"
  | "keyUsageNotForSigning"
  | "noQcStatements"
  | "noQcCompliance"
  | "unknownIssuer";

/** A Bulgarian qualified trust service provider, matched on the issuer's O or CN. */
export interface QesProvider {
  readonly name: string;
  readonly patterns: readonly RegExp[];
}

/**
 * Bulgarian QES providers. The match patterns come from public knowledge of the providers' CA
 * names (e.g. "B-Trust Operational Qualified CA" / O=BORICA AD, "StampIT Global Qualified CA" /
 * O=Information Services JSC); they were NOT checked against the EU Trusted List here, and the
 * Cyrillic variants are an unverified precaution.
 */
export const BULGARIAN_QES_PROVIDERS: readonly QesProvider[] = [
  { name: "BORICA (B-Trust)", patterns: [/\bBORICA\b/i, /B-Trust/i, /БОРИКА/i] },
  {
    name: "Information Services (StampIT)",
    patterns: [/Information Services/i, /StampIT/i, /Информационно обслужване/i],
  },
  { name: "InfoNotary", patterns: [/InfoNotary/i, /i-Notary/i] },
  { name: "Evrotrust", patterns: [/Evrotrust/i] },
  { name: "SEP Bulgaria", patterns: [/SEP Bulgaria/i] },
];

const QC_COMPLIANCE = "0.4.0.1862.1.1";
const QC_SSCD = "0.4.0.1862.1.4";
const QC_TYPE = "0.4.0.1862.1.6";
const QC_TYPE_ESIGN = "0.4.0.1862.1.6.1";

/** A passed check with its reason. */
const passed = (check: CertificateCheckName, reason: string): CertificateCheck => ({
  check,
  ok: true,
  reason,
});

/** A failed check: its reason and which failure it is. */
const failed = (
  check: CertificateCheckName,
  reason: string,
  why: CertificateFailure,
): CertificateCheck => ({ check, ok: false, reason, why });

function checkValidity(notBefore: Date, notAfter: Date, now: Date): CertificateCheck {
  const iso = (d: Date) => d.toISOString();
  if (now < notBefore) {
    return failed("validity", `Not valid before ${iso(notBefore)}`, "notYetValid");
  }
  if (now > notAfter) {
    return failed("validity", `Expired on ${iso(notAfter)}`, "expired");
  }
  const days = Math.floor((notAfter.getTime() - now.getTime()) / 86_400_000);
  return {
    ...passed("validity", `Valid until ${iso(notAfter)} (${days} days left)`),
    daysLeft: days,
  };
}

function checkKeyUsage(bits: Uint8Array | undefined): CertificateCheck {
  if (!bits) {
    return failed("keyUsage", "The certificate has no keyUsage extension", "noKeyUsage");
  }
  const first = bits[0] ?? 0; // an empty BIT STRING sets no usage
  const ds = (first & 0x80) !== 0, nr = (first & 0x40) !== 0;
  const has = [ds ? "digitalSignature" : "", nr ? "nonRepudiation" : ""].filter(Boolean);
  return has.length > 0 ? passed("keyUsage", `Key usage allows ${has.join(" and ")}`) : failed(
    "keyUsage",
    "Key usage allows neither digitalSignature nor nonRepudiation",
    "keyUsageNotForSigning",
  );
}

/**
 * Statement ids (and QcType values) in a QcStatements extension value.
 *
 * @param extnValue DER of the extension value
 * @returns statement OIDs; QcType values are reported as `0.4.0.1862.1.6/<type OID>`
 * @throws never (an unparsable value yields an empty list)
 */
export function qcStatementIds(extnValue: Uint8Array): string[] {
  const asn = asn1js.fromBER(toArrayBuffer(extnValue));
  if (asn.offset === -1 || !(asn.result instanceof asn1js.Sequence)) return [];
  const out: string[] = [];
  for (const st of asn.result.valueBlock.value) {
    if (!(st instanceof asn1js.Sequence)) continue;
    const [id, info] = st.valueBlock.value;
    if (!(id instanceof asn1js.ObjectIdentifier)) continue;
    const oid = id.valueBlock.toString();
    out.push(oid);
    if (oid === QC_TYPE && info instanceof asn1js.Sequence) {
      for (const t of info.valueBlock.value) {
        if (t instanceof asn1js.ObjectIdentifier) out.push(`${QC_TYPE}/${t.valueBlock.toString()}`);
      }
    }
  }
  return out;
}

function checkQc(extnValue: Uint8Array | undefined): CertificateCheck {
  if (!extnValue) {
    return failed("qcStatements", "No QcStatements: not a qualified certificate", "noQcStatements");
  }
  const ids = qcStatementIds(extnValue);
  if (!ids.includes(QC_COMPLIANCE)) {
    return failed(
      "qcStatements",
      "QcStatements lack QcCompliance (0.4.0.1862.1.1)",
      "noQcCompliance",
    );
  }
  const extra = [
    ids.includes(QC_SSCD) ? "QcSSCD (key on a qualified device)" : "",
    ids.includes(`${QC_TYPE}/${QC_TYPE_ESIGN}`) ? "QcType esign" : "",
  ].filter(Boolean);
  return passed(
    "qcStatements",
    `Qualified certificate (QcCompliance${extra.length ? `, ${extra.join(", ")}` : ""})`,
  );
}

function checkIssuer(o: string | undefined, cn: string | undefined): CertificateCheck {
  const text = [o, cn].filter(Boolean).join(" / ");
  const p = BULGARIAN_QES_PROVIDERS.find((q) =>
    q.patterns.some((re) => (o !== undefined && re.test(o)) || (cn !== undefined && re.test(cn)))
  );
  return p
    ? passed("issuer", `Issued by ${p.name} (${text})`)
    : failed("issuer", `Issuer "${text}" is not a Bulgarian QES provider`, "unknownIssuer");
}

/**
 * Runs all checks on a certificate.
 *
 * @param der certificate DER
 * @param clock injected "now"
 * @returns the four results, in order validity, keyUsage, qcStatements, issuer
 * @throws AppError CERTIFICATE_INVALID when `der` is not a certificate
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * // A self-signed certificate: valid now, but not a Bulgarian qualified one.
 * import "reflect-metadata"; // @peculiar/x509 needs it loaded first
 * import { X509CertificateGenerator } from "@peculiar/x509";
 * const alg = {
 *   name: "RSASSA-PKCS1-v1_5",
 *   hash: "SHA-256",
 *   publicExponent: new Uint8Array([1, 0, 1]),
 *   modulusLength: 2048,
 * };
 * const keys = await crypto.subtle.generateKey(alg, false, ["sign", "verify"]);
 * const cert = await X509CertificateGenerator.createSelfSigned({
 *   name: "CN=Иван Петров",
 *   keys,
 *   signingAlgorithm: alg,
 * });
 * const results = checkCertificate(new Uint8Array(cert.rawData), () => new Date());
 * for (const r of results) console.log(r.ok ? "ok " : "NO ", r.check, r.reason);
 * equal(results.find((r) => r.check === "validity")?.ok, true);
 * equal(results.find((r) => r.check === "issuer")?.ok, false);
 * ```
 */
export function checkCertificate(der: Uint8Array, clock: Clock): CertificateCheck[] {
  const p = parseCertificate(der);
  const ext = (oid: string) => p.cert.extensions?.find((e) => e.extnID === oid);
  const ku = ext("2.5.29.15");
  const kuBits = ku
    ? (asn1js.fromBER(toArrayBuffer(ku.extnValue.valueBlock.valueHexView))
      .result as asn1js.BitString)
      .valueBlock.valueHexView
    : undefined;
  const qc = ext("1.3.6.1.5.5.7.1.3");
  return [
    checkValidity(p.cert.notBefore.value, p.cert.notAfter.value, clock()),
    checkKeyUsage(kuBits && kuBits.length > 0 ? kuBits : ku ? new Uint8Array(1) : undefined),
    checkQc(qc ? new Uint8Array(qc.extnValue.valueBlock.valueHexView) : undefined),
    checkIssuer(nameValue(p.issuer, "O"), nameValue(p.issuer, "CN")),
  ];
}

/**
 * Throws when a required check failed.
 *
 * @param results output of {@link checkCertificate}
 * @param required the checks that must pass (default: all four)
 * @returns when all required checks passed
 * @throws AppError CERTIFICATE_INVALID with `details.failed` = [{check, reason}]
 */
export function assertCertificateUsable(
  results: readonly CertificateCheck[],
  required: readonly CertificateCheckName[] = ["validity", "keyUsage", "qcStatements", "issuer"],
): void {
  const failed = results.filter((r) => !r.ok && required.includes(r.check));
  if (failed.length === 0) return;
  throw new AppError(
    "CERTIFICATE_INVALID",
    `The certificate cannot be used: ${failed.map((f) => f.reason).join("; ")}`,
    { failed: failed.map((f) => ({ check: f.check, reason: f.reason, why: f.why })) },
  );
}
