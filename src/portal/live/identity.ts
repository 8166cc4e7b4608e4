/**
 * The identity fields every NRA public API call carries: the taxpayer (EIK → BUS_BULSTAT, a
 * 10-digit EGN → IND_EGN), the signing user (EGN from the certificate subject serialNumber
 * `PNOBG-<EGN>`, OID 2.5.4.5) and the certificate itself as `userSignatureBase64`. Implements
 * docs/nra-api.md §3 (identity fields) and §6 (PIN types).
 * @module
 */
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { Buffer } from "node:buffer";
import { AppError } from "../../contract/mod.ts";
import type { PortalContext } from "../adapter.ts";

/** The identity fields of a submit or result request (docs/nra-api.md §3, §4). */
export interface NraIdentity {
  readonly taxpayerPin: string;
  readonly taxpayerPinType: "BUS_BULSTAT" | "IND_EGN";
  readonly userPin: string;
  readonly userPinType: "IND_EGN";
  /** The signer certificate, DER, Base64 (not a signature, despite the name). */
  readonly userSignatureBase64: string;
}

const SERIAL_NUMBER_OID = "2.5.4.5";

/**
 * The taxpayer PIN type of an identifier: 10 digits are an EGN (a natural person), anything
 * else an EIK/Bulstat of a legal entity.
 *
 * Implements docs/nra-api.md §6 (`taxpayerPinType`).
 * @param pin the EIK or EGN
 * @returns IND_EGN or BUS_BULSTAT
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(taxpayerPinTypeOf("121212121"), "BUS_BULSTAT");
 * ```
 */
export function taxpayerPinTypeOf(pin: string): "BUS_BULSTAT" | "IND_EGN" {
  return /^\d{10}$/.test(pin) ? "IND_EGN" : "BUS_BULSTAT";
}

/**
 * The EGN of the certificate holder from the subject serialNumber (`PNOBG-<EGN>`, or a bare
 * 10-digit value), parsed with @peculiar/x509.
 *
 * Implements docs/nra-api.md §3 (`userPin` from the certificate subject serialNumber).
 * @param certificate the signer certificate, DER
 * @returns the 10-digit EGN
 * @throws AppError CERTIFICATE_INVALID when the certificate cannot be parsed or its subject has
 *   no Bulgarian personal number (the NRA needs the EGN as userPin)
 */
export function userPinOf(certificate: Uint8Array): string {
  let values: string[];
  try {
    values = new x509.X509Certificate(new Uint8Array(certificate)).subjectName.getField(
      SERIAL_NUMBER_OID,
    );
  } catch (e) {
    throw new AppError(
      "CERTIFICATE_INVALID",
      "The sender's certificate cannot be parsed",
      {},
      e,
    );
  }
  for (const v of values) {
    const m = /^(?:PNOBG-)?(\d{10})$/.exec(v.trim());
    // non-null: group 1 of the pattern is not optional, so a match has it
    if (m) return m[1]!;
  }
  throw new AppError(
    "CERTIFICATE_INVALID",
    "The sender's certificate has no Bulgarian personal number (subject serialNumber " +
      '"PNOBG-<EGN>"), which the NRA needs as userPin',
    { field: "subject.serialNumber" },
  );
}

/**
 * The certificate of the context, or SIGNING_FAILED.
 * @param ctx the portal context
 * @param needSign whether the signing step is needed too (submissions)
 * @returns the certificate DER
 * @throws AppError SIGNING_FAILED when the sender has no certificate (or no signer)
 */
export function certificateOf(ctx: PortalContext, needSign: boolean): Uint8Array {
  if (!ctx.certificate || (needSign && !ctx.sign)) {
    throw new AppError(
      "SIGNING_FAILED",
      "Live filing needs a sender with a certificate (and its signing key)",
      { sender: ctx.sender?.id ?? null },
    );
  }
  return ctx.certificate;
}

/**
 * The identity fields for an EIK and a certificate.
 *
 * Implements docs/nra-api.md §3 (taxpayerPin, taxpayerPinType, userPin, userPinType,
 * userSignatureBase64).
 * @param eik the taxpayer's EIK (or EGN)
 * @param certificate the signer certificate, DER
 * @returns the identity fields
 * @throws AppError CERTIFICATE_INVALID (see {@link userPinOf})
 */
export function identityOf(eik: string, certificate: Uint8Array): NraIdentity {
  return {
    taxpayerPin: eik,
    taxpayerPinType: taxpayerPinTypeOf(eik),
    userPin: userPinOf(certificate),
    userPinType: "IND_EGN",
    userSignatureBase64: base64(certificate),
  };
}

/**
 * Standard Base64 of bytes.
 * @param bytes the bytes
 * @returns the Base64 text
 * @throws nothing
 */
export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}
