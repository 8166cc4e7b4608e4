/**
 * Self-verifying document ids of the test portal. A documentId is 19 digits:
 * `seq` (11 digits: seconds since 2020-01-01 UTC × 100 + a sub-second counter), `count` (3
 * digits: records or files submitted) and a 5-digit keyed checksum of (kind, eik, seq, count).
 * `result` can therefore tell an id the test portal issued from any other id without server
 * state, and ids survive restarts. The incoming number ("входящ номер") is derived from the same
 * data. Implements docs/test-portal.md § Submissions and results (documentId, incomeNumber; an
 * unknown id answers status error).
 * @module
 */
import { createHmac } from "node:crypto";
import type { SubmissionKind } from "../contract/mod.ts";

/** Epoch of `seq`: 2020-01-01T00:00:00Z. */
const SEQ_EPOCH_MS = Date.UTC(2020, 0, 1);
/** Public, fixed key of the checksum: it only tells test ids apart, it protects nothing. */
const CHECKSUM_KEY = "svc-test-portal/document-id/v1";
const SEQ_DIGITS = 11;
const COUNT_DIGITS = 3;
const MAC_DIGITS = 5;

/** Two-digit incoming-number prefix per submission kind (fictitious, one per kind). */
export const INCOME_PREFIX: Readonly<Record<SubmissionKind, string>> = {
  vat: "22",
  dec1_6: "30",
  dec731: "73",
  dec736: "76",
  etz62: "62",
  etz123: "23",
  high_fisc_risk: "55",
  odit: "18",
};

/** What a documentId carries. */
export interface DocumentIdParts {
  readonly kind: SubmissionKind;
  readonly eik: string;
  /** Seconds since 2020-01-01 × 100 + counter. */
  readonly seq: number;
  /** Records (D1/D6) or files submitted, capped at 999. */
  readonly count: number;
}

function mac(p: DocumentIdParts): string {
  const h = createHmac("sha256", CHECKSUM_KEY)
    .update(`${p.kind}|${p.eik}|${p.seq}|${p.count}`, "utf8")
    .digest();
  return String(h.readUInt32BE(0) % 10 ** MAC_DIGITS).padStart(MAC_DIGITS, "0");
}

/**
 * The smallest `seq` of an instant: whole seconds since 2020-01-01 UTC × 100. Callers add a
 * counter (0–99) or take `max(seq, last + 1)` so two submissions never share a seq.
 * @param instant the submission time
 * @returns a non-negative integer
 * @throws RangeError when the instant is before 2020 or after 2051 (11 digits)
 */
export function seqOfInstant(instant: Date): number {
  const seq = Math.floor((instant.getTime() - SEQ_EPOCH_MS) / 1000) * 100;
  if (seq < 0 || seq >= 10 ** SEQ_DIGITS) {
    throw new RangeError(`Cannot number a submission made at ${instant.toISOString()}`);
  }
  return seq;
}

/**
 * The instant coded in a seq (to the second).
 * @param seq a seq from {@link seqOfInstant}
 * @returns the Date
 * @throws nothing
 */
export function instantOfSeq(seq: number): Date {
  return new Date(SEQ_EPOCH_MS + Math.floor(seq / 100) * 1000);
}

/**
 * Issue the documentId of a submission.
 * @param parts kind, EIK, seq and count (count is capped at 999)
 * @returns 19 digits
 * @throws RangeError when seq is not an 11-digit non-negative integer
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * const id = issueDocumentId({ kind: "vat", eik: "121212121", seq: 20_000_000_000, count: 3 });
 * deepStrictEqual(verifyDocumentId("vat", "121212121", id)?.count, 3);
 * ```
 */
export function issueDocumentId(parts: DocumentIdParts): string {
  if (!Number.isSafeInteger(parts.seq) || parts.seq < 0 || parts.seq >= 10 ** SEQ_DIGITS) {
    throw new RangeError(`Sequence ${parts.seq} does not fit ${SEQ_DIGITS} digits`);
  }
  const count = Math.max(0, Math.min(999, Math.trunc(parts.count)));
  const p = { ...parts, count };
  return String(parts.seq).padStart(SEQ_DIGITS, "0") +
    String(count).padStart(COUNT_DIGITS, "0") + mac(p);
}

/**
 * Check a documentId against the kind and EIK it is asked for.
 * @param kind the submission kind of the result operation
 * @param eik the EIK of the result request
 * @param documentId the id to check
 * @returns the decoded parts, or null for an id the test portal never issued for this kind and
 *   EIK (wrong shape, wrong checksum, other kind, other EIK)
 * @throws nothing
 */
export function verifyDocumentId(
  kind: SubmissionKind,
  eik: string,
  documentId: string,
): DocumentIdParts | null {
  const len = SEQ_DIGITS + COUNT_DIGITS + MAC_DIGITS;
  if (!new RegExp(`^[0-9]{${len}}$`).test(documentId)) return null;
  const seq = Number(documentId.slice(0, SEQ_DIGITS));
  const count = Number(documentId.slice(SEQ_DIGITS, SEQ_DIGITS + COUNT_DIGITS));
  const parts: DocumentIdParts = { kind, eik, seq, count };
  return mac(parts) === documentId.slice(SEQ_DIGITS + COUNT_DIGITS) ? parts : null;
}

/**
 * The incoming number of a submission, NRA style: the kind's 2-digit prefix, "E", 9 digits
 * (e.g. "30E004217765"), derived from the documentId parts.
 * @param parts the documentId parts
 * @returns 12 characters
 * @throws nothing
 */
export function incomeNumberOf(parts: DocumentIdParts): string {
  const h = createHmac("sha256", CHECKSUM_KEY)
    .update(`income|${parts.kind}|${parts.eik}|${parts.seq}`, "utf8")
    .digest();
  return `${INCOME_PREFIX[parts.kind]}E${String(h.readUInt32BE(0) % 1e9).padStart(9, "0")}`;
}
