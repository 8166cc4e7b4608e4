/**
 * What a reader tolerated in a file and tells its caller: the file was not in Windows-1251, a
 * byte-order mark was skipped, short lines were read as if their trailing blanks had been
 * trimmed, blank lines were skipped (docs/formats.md § What is
 * tolerated). Warnings have the shape of the VAT cross-check warnings (`{ code, message,
 * messageBg, file, line? }`, vat/warnings.ts), so callers carry both in one list.
 * @module
 */

/** Codes of the reading warnings; documented in docs/formats.md. */
export const FILE_WARNING_CODES = [
  "ENCODING_UTF8",
  "ENCODING_UTF16",
  "BYTE_ORDER_MARK",
  "SHORT_LINES_PADDED",
  "BLANK_LINES_SKIPPED",
] as const;

/** One of {@link FILE_WARNING_CODES}. */
export type FileWarningCode = typeof FILE_WARNING_CODES[number];

/** Something a reader tolerated: the records are right, but the file is not as the NRA wants. */
export interface FileWarning {
  /** Stable code; clients rely on it, not on the message. */
  readonly code: FileWarningCode;
  /** Sentence-case English naming the file, the line(s) and what to do. */
  readonly message: string;
  /** The same in Bulgarian, for the accountant (the confirmation page shows it). */
  readonly messageBg: string;
  /** The file, as the caller named it. */
  readonly file: string;
  /** 1-based line of the first occurrence, when the warning is about lines. */
  readonly line?: number;
}

/** Options every reader takes. */
export interface ReadOptions {
  /** Where to append the reader's warnings (left out: they are dropped). */
  readonly warnings?: FileWarning[];
}

/**
 * Per-file notes of the line engines, folded into at most one warning per kind when the file
 * has been read: blank lines skipped, short lines padded.
 */
export class LineNotes {
  /** First blank line skipped (1-based), 0 when none. */
  blankFirst = 0;
  /** Number of blank lines skipped. */
  blankCount = 0;
  /** First short line padded (1-based), 0 when none. */
  paddedFirst = 0;
  /** Its width before padding, characters. */
  paddedWidth = 0;
  /** The record width the lines were padded to, characters. */
  paddedTo = 0;
  /** Number of short lines padded. */
  paddedCount = 0;

  /**
   * Note a short line read as if padded with spaces.
   * @param line 1-based line number
   * @param width its width, characters
   * @param to the record width it was padded to
   * @returns nothing
   * @throws nothing
   */
  padded(line: number, width: number, to: number): void {
    if (this.paddedCount++ === 0) {
      this.paddedFirst = line;
      this.paddedWidth = width;
      this.paddedTo = to;
    }
  }

  /**
   * Append the warnings for what was noted.
   * @param file the file name for messages
   * @param sink where to append (nothing happens when undefined)
   * @returns nothing
   * @throws nothing
   */
  flush(file: string, sink: FileWarning[] | undefined): void {
    if (sink === undefined) return;
    const warn = (code: FileWarningCode, line: number, message: string, messageBg: string) =>
      sink.push({ code, file, line, message, messageBg });
    if (this.blankCount > 0) {
      const n = this.blankCount;
      warn(
        "BLANK_LINES_SKIPPED",
        this.blankFirst,
        `"${file}" has ${n === 1 ? "a blank line" : `${n} blank lines`} between ` +
          `records (line ${this.blankFirst}${n > 1 ? " and others" : ""}): skipped. ` +
          "The NRA may refuse blank lines; delete them before filing",
        `„${file}“ има ${n === 1 ? "празен ред" : `${n} празни реда`} между ` +
          `записите (ред ${this.blankFirst}${n > 1 ? " и други" : ""}): ` +
          `${n === 1 ? "пропуснат е" : "пропуснати са"}. НАП може да откаже празни редове — ` +
          "изтрийте ги преди подаване",
      );
    }
    if (this.paddedCount > 0) {
      const n = this.paddedCount;
      warn(
        "SHORT_LINES_PADDED",
        this.paddedFirst,
        `"${file}" line ${this.paddedFirst} is ${this.paddedWidth} characters wide` +
          (n > 1 ? ` (and ${n - 1} more short line${n === 2 ? "" : "s"})` : "") +
          `; expected ${this.paddedTo}: read as if the trailing spaces had been trimmed ` +
          `(padded to ${this.paddedTo}). Save the file from its program again before filing`,
        `Ред ${this.paddedFirst} на „${file}“ е ${this.paddedWidth} знака` +
          (n > 1 ? ` (и още ${n - 1} ${n === 2 ? "къс ред" : "къси реда"})` : "") +
          `; очакват се ${this.paddedTo}: прочетен е, сякаш крайните интервали са изтрити ` +
          `(допълнен до ${this.paddedTo}). Запишете файла отново от програмата му преди подаване`,
      );
    }
  }
}
