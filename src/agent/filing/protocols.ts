/**
 * The portal's protocols of filed documents (the HTML a `*_result` answers), kept in the
 * journal's `filing_protocols` table when an integrator reads them, so the console's Filings
 * page can show the portal's answer later (sandboxed). One per document id; at most
 * {@link MAX_PROTOCOL_BYTES} each.
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

/** The largest protocol kept (bytes of UTF-8; larger ones are not kept). */
export const MAX_PROTOCOL_BYTES = 2 * 1024 * 1024;

/** A kept protocol. */
export interface FilingProtocol {
  readonly documentId: string;
  /** As the portal sent it, e.g. `text/html; charset=utf-8`. */
  readonly contentType: string;
  readonly body: string;
  /** ISO time it was read. */
  readonly fetchedAt: string;
}

/**
 * Keep (or replace) a document's protocol; a body over the limit is not kept.
 * @param db the journal's database
 * @param p the protocol
 */
export function keepProtocol(db: DatabaseSync, p: FilingProtocol): void {
  if (new TextEncoder().encode(p.body).length > MAX_PROTOCOL_BYTES) return;
  db.prepare(
    `INSERT OR REPLACE INTO filing_protocols (document_id, content_type, body, fetched_at)
     VALUES (?, ?, ?, ?)`,
  ).run(p.documentId, p.contentType, p.body, p.fetchedAt);
}

/**
 * A document's kept protocol.
 * @param db the journal's database
 * @param documentId the portal's document id
 * @returns the protocol, or null
 */
export function readProtocol(db: DatabaseSync, documentId: string): FilingProtocol | null {
  // The four columns are NOT NULL in filing_protocols.
  const r = db.prepare(
    "SELECT document_id, content_type, body, fetched_at FROM filing_protocols WHERE document_id = ?",
  ).get(documentId) as
    | { document_id: string; content_type: string; body: string; fetched_at: string }
    | undefined;
  return r
    ? {
      documentId: r.document_id,
      contentType: r.content_type,
      body: r.body,
      fetchedAt: r.fetched_at,
    }
    : null;
}
