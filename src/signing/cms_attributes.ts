/**
 * The signed attributes of the agent's CMS signatures (RFC 5652 §11, RFC 5035): contentType,
 * signingTime, messageDigest and ESS signingCertificateV2, encoded in DER order (a SET OF is
 * sorted by encoding, X.690 §11.6, because verifiers such as OpenSSL re-encode before checking).
 * @module
 */

import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { digest, toArrayBuffer } from "./bytes.ts";

/** OIDs used by the CMS profile. */
export const OID = {
  data: "1.2.840.113549.1.7.1",
  signedData: "1.2.840.113549.1.7.2",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingTime: "1.2.840.113549.1.9.5",
  signingCertificateV2: "1.2.840.113549.1.9.16.2.47",
  sha256: "2.16.840.1.101.3.4.2.1",
  rsaEncryption: "1.2.840.113549.1.1.1",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
} as const;

/**
 * Compares two DER encodings as X.690 §11.6 orders SET OF components (octet strings, the
 * shorter padded with trailing zero octets).
 *
 * @param a first encoding
 * @param b second encoding
 * @returns negative, zero or positive
 * @throws never
 */
export function compareDer(a: Uint8Array, b: Uint8Array): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * signingTime value: UTCTime for 1950–2049 (RFC 5652 §11.3), GeneralizedTime otherwise.
 *
 * @param when the signing time (seconds precision; milliseconds dropped)
 * @returns the ASN.1 time value
 * @throws never
 */
export function signingTimeValue(when: Date): asn1js.UTCTime | asn1js.GeneralizedTime {
  const d = new Date(Math.floor(when.getTime() / 1000) * 1000);
  const y = d.getUTCFullYear();
  return y >= 1950 && y < 2050
    ? new asn1js.UTCTime({ valueDate: d })
    : new asn1js.GeneralizedTime({ valueDate: d });
}

/**
 * ESS SigningCertificateV2 (RFC 5035 §3) for one certificate, hash SHA-256 (the DEFAULT, so the
 * hashAlgorithm field is omitted as DER requires), with issuerSerial.
 *
 * @param cert the signer certificate
 * @param der its DER bytes
 * @returns the attribute value
 * @throws never for a parsed certificate
 */
export async function signingCertificateV2(
  cert: pkijs.Certificate,
  der: Uint8Array,
): Promise<asn1js.Sequence> {
  const certHash = await digest(der);
  const issuerSerial = new asn1js.Sequence({
    value: [
      new asn1js.Sequence({
        value: [
          new asn1js.Constructed({
            idBlock: { tagClass: 3, tagNumber: 4 },
            value: [cert.issuer.toSchema()],
          }),
        ],
      }),
      new asn1js.Integer({ valueHex: toArrayBuffer(cert.serialNumber.valueBlock.valueHexView) }),
    ],
  });
  const essCertIdV2 = new asn1js.Sequence({
    value: [new asn1js.OctetString({ valueHex: toArrayBuffer(certHash) }), issuerSerial],
  });
  return new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] });
}

/** Signed attributes ready to embed, plus the exact bytes to sign. */
export interface SignedAttributes {
  /** The attributes in DER (sorted) order. */
  readonly attributes: pkijs.Attribute[];
  /** DER of `SET OF Attribute` (tag 0x31): the input of the signature (RFC 5652 §5.4). */
  readonly toBeSigned: Uint8Array;
}

/**
 * Builds the four signed attributes for detached data.
 *
 * @param data the signed content (the raw file bytes)
 * @param cert the signer certificate (parsed) and its DER
 * @param der DER of the signer certificate
 * @param signingTime time to put into signingTime
 * @returns sorted attributes and the bytes to sign
 * @throws never for valid input
 */
export async function buildSignedAttributes(
  data: Uint8Array,
  cert: pkijs.Certificate,
  der: Uint8Array,
  signingTime: Date,
): Promise<SignedAttributes> {
  const attr = (type: string, value: asn1js.AsnType) =>
    new pkijs.Attribute({ type, values: [value] });
  const list = [
    attr(OID.contentType, new asn1js.ObjectIdentifier({ value: OID.data })),
    attr(OID.signingTime, signingTimeValue(signingTime)),
    attr(
      OID.messageDigest,
      new asn1js.OctetString({ valueHex: toArrayBuffer(await digest(data)) }),
    ),
    attr(OID.signingCertificateV2, await signingCertificateV2(cert, der)),
  ];
  const encoded = list.map((a) => ({ a, der: new Uint8Array(a.toSchema().toBER()) }));
  encoded.sort((x, y) => compareDer(x.der, y.der));
  const attributes = encoded.map((e) => e.a);
  const toBeSigned = new Uint8Array(
    new asn1js.Set({ value: attributes.map((a) => a.toSchema()) }).toBER(),
  );
  return { attributes, toBeSigned };
}
