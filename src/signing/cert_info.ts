/**
 * Reads an X.509 certificate (DER) into the fields the signing layer needs: names, serial,
 * validity, key algorithm and the holder's personal id (subject serialNumber, e.g.
 * `PNOBG-<EGN>`, which the NRA request carries as `userPin`; docs/nra-api.md §3).
 * @module
 */

import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { AppError } from "../contract/mod.ts";
import { toArrayBuffer } from "./bytes.ts";
import type { CertificateInfo, KeyAlgorithm } from "./keystore.ts";

/** Short names for the DN attribute OIDs seen in Bulgarian QES certificates. */
const DN_NAMES: Record<string, string> = {
  "2.5.4.3": "CN",
  "2.5.4.4": "SN",
  "2.5.4.5": "serialNumber",
  "2.5.4.6": "C",
  "2.5.4.7": "L",
  "2.5.4.8": "ST",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
  "2.5.4.12": "title",
  "2.5.4.42": "GN",
  "2.5.4.97": "organizationIdentifier",
  "1.2.840.113549.1.9.1": "emailAddress",
};

/** One attribute of a distinguished name. */
export interface NameAttribute {
  /** Attribute type OID. */
  readonly oid: string;
  /** Short name (CN, O, …) or the OID when unknown. */
  readonly name: string;
  /** Decoded string value. */
  readonly value: string;
}

/** A parsed certificate: the pkijs object plus decoded names. */
export interface ParsedCertificate {
  /** The pkijs certificate. */
  readonly cert: pkijs.Certificate;
  /** Subject attributes in encoding order. */
  readonly subject: readonly NameAttribute[];
  /** Issuer attributes in encoding order. */
  readonly issuer: readonly NameAttribute[];
  /** The DER bytes. */
  readonly der: Uint8Array;
}

function decodeName(name: pkijs.RelativeDistinguishedNames): NameAttribute[] {
  return name.typesAndValues.map((tv) => {
    const block = tv.value as unknown as { valueBlock: { value?: unknown } };
    const v = block.valueBlock.value;
    const value = typeof v === "string" ? v : new Uint8Array(tv.value.toBER()).toHex();
    return { oid: tv.type, name: DN_NAMES[tv.type] ?? tv.type, value };
  });
}

/**
 * Formats decoded name attributes as an RFC 4514-style string (most specific first).
 *
 * @param attrs attributes in encoding order
 * @returns e.g. `CN=Ivan Petrov, O=BORICA AD, C=BG`
 * @throws never
 */
export function formatName(attrs: readonly NameAttribute[]): string {
  return [...attrs].reverse().map((a) => `${a.name}=${a.value.replace(/([,+"\\<>;])/g, "\\$1")}`)
    .join(", ");
}

/**
 * Parses DER certificate bytes.
 *
 * @param der certificate DER
 * @returns the parsed certificate
 * @throws AppError CERTIFICATE_INVALID when `der` is not an X.509 certificate
 */
export function parseCertificate(der: Uint8Array): ParsedCertificate {
  try {
    const asn = asn1js.fromBER(toArrayBuffer(der));
    if (asn.offset === -1) {
      const reason = asn.result.error;
      throw new AppError(
        "CERTIFICATE_INVALID",
        "The certificate cannot be parsed",
        undefined,
        reason,
      );
    }
    const cert = new pkijs.Certificate({ schema: asn.result });
    return { cert, subject: decodeName(cert.subject), issuer: decodeName(cert.issuer), der };
  } catch (e) {
    throw new AppError("CERTIFICATE_INVALID", "The certificate cannot be parsed", undefined, e);
  }
}

/**
 * The key algorithm of a parsed certificate.
 *
 * @param parsed parsed certificate
 * @returns RSA, EC-P256/P384/P521 or UNKNOWN
 * @throws never
 */
export function keyAlgorithmOf(parsed: ParsedCertificate): KeyAlgorithm {
  const alg = parsed.cert.subjectPublicKeyInfo.algorithm;
  if (alg.algorithmId === "1.2.840.113549.1.1.1") return "RSA";
  if (alg.algorithmId === "1.2.840.10045.2.1") {
    // Duck-typed: pkijs may hand back nodes of its own asn1js copy (instanceof would fail).
    const p = alg.algorithmParams as { idBlock?: { tagNumber?: number }; valueBlock?: object };
    const curve = p?.idBlock?.tagNumber === 6 ? String(p.valueBlock) : "";
    if (curve === "1.2.840.10045.3.1.7") return "EC-P256";
    if (curve === "1.3.132.0.34") return "EC-P384";
    if (curve === "1.3.132.0.35") return "EC-P521";
  }
  return "UNKNOWN";
}

/**
 * First value of a name attribute.
 *
 * @param attrs decoded name
 * @param oidOrName OID or short name (`CN`, `O`, `serialNumber`)
 * @returns the value, or undefined
 * @throws never
 */
export function nameValue(attrs: readonly NameAttribute[], oidOrName: string): string | undefined {
  return attrs.find((a) => a.oid === oidOrName || a.name === oidOrName)?.value;
}

/**
 * The holder's EGN (Bulgarian personal number) in a certificate subject: the first
 * serialNumber (OID 2.5.4.5) that is `PNOBG-<EGN>` or a bare 10-digit value. The NRA request
 * carries it as `userPin` (docs/nra-api.md §3).
 *
 * @param subject the decoded subject ({@link ParsedCertificate.subject})
 * @returns the 10-digit EGN, or null when the subject has none (an identity card or passport
 *   number, a foreign personal number, no serialNumber)
 * @throws never
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const attr = (value: string) => ({ oid: "2.5.4.5", name: "serialNumber", value });
 * equal(holderEgn([attr("IDCBG-AA1234567"), attr("PNOBG-8001010008")]), "8001010008");
 * equal(holderEgn([attr(" 8001010008 ")]), "8001010008");
 * equal(holderEgn([attr("PNORO-1800101223344")]), null);
 * ```
 */
export function holderEgn(subject: readonly NameAttribute[]): string | null {
  for (const a of subject) {
    if (a.oid !== "2.5.4.5") continue;
    const m = /^(?:PNOBG-)?(\d{10})$/.exec(a.value.trim());
    if (m) return m[1]!; // non-null: the regex has one group, which matched
  }
  return null;
}

/**
 * Builds a {@link CertificateInfo} from DER.
 *
 * @param der certificate DER
 * @param id the store's id for this certificate
 * @param label optional store label
 * @returns the certificate info
 * @throws AppError CERTIFICATE_INVALID when `der` is not a certificate
 */
export function toCertificateInfo(der: Uint8Array, id: string, label?: string): CertificateInfo {
  const parsed = parseCertificate(der);
  const c = parsed.cert;
  const personalId = nameValue(parsed.subject, "2.5.4.5");
  return {
    id,
    subject: formatName(parsed.subject),
    issuer: formatName(parsed.issuer),
    serialNumber: c.serialNumber.valueBlock.valueHexView.toHex().replace(
      /^(00)+(?=.)/,
      "",
    ),
    notBefore: c.notBefore.value,
    notAfter: c.notAfter.value,
    keyAlgorithm: keyAlgorithmOf(parsed),
    der,
    ...(personalId !== undefined ? { personalId } : {}),
    ...(label ? { label } : {}),
  };
}
