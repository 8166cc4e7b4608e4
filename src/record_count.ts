/**
 * The record count of an NRA text file (`numRecords` of a submission's files, docs/nra-formats.md
 * §4): used by the filing path and by the test portal alike, so it lives beside neither.
 * @module
 */

/** A file as it is submitted: its bytes, and its record count when the reader knew it. */
export interface RecordedFile {
  readonly bytes: Uint8Array;
  readonly numRecords?: number;
}

/**
 * Records in a D1/D6 file: `numRecords` when given, else its non-empty lines (without the 0x1A
 * end marker).
 * @param f the file
 * @returns the record count
 * @throws nothing
 */
export function recordCount(f: RecordedFile): number {
  if (f.numRecords !== undefined) return f.numRecords;
  let n = 0;
  let inLine = false;
  for (const b of f.bytes) {
    if (b === 0x0a || b === 0x0d) inLine = false;
    else if (b !== 0x1a && b !== 0x20 && !inLine) {
      inLine = true;
      n++;
    }
  }
  return n;
}
