/**
 * Files to be filed must be plain Windows-1251, as the NRA accepts them (docs/nra-formats.md §1.1,
 * §2.1). A submission refuses UTF-8, UTF-16 and byte-order marks with FILE_ENCODING_UNSUPPORTED
 * naming each file and its encoding (docs/formats.md); the agent never converts, since what it
 * signs and sends must be the accountant's own bytes. Reading and scans decode such files and
 * warn instead (src/formats/text_encoding.ts).
 * @module
 */
import { AppError, isAppError } from "../../contract/mod.ts";
import { requireWindows1251 } from "../../formats/mod.ts";

/**
 * Refuse the files of one submission unless every one is plain Windows-1251.
 * @param files the files, each with the path shown to the user
 * @returns nothing
 * @throws AppError FILE_ENCODING_UNSUPPORTED: one file's error as is, or several joined with
 *   " ; " and listed in `details.errors`
 */
export function requireWindows1251Files(
  files: ReadonlyArray<{ readonly path: string; readonly bytes: Uint8Array }>,
): void {
  const errors: AppError[] = [];
  for (const f of files) {
    try {
      requireWindows1251(f.bytes, f.path);
    } catch (e) {
      if (!isAppError(e)) throw e;
      errors.push(e);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) {
    throw new AppError("FILE_ENCODING_UNSUPPORTED", errors.map((e) => e.message).join(" ; "), {
      errors: errors.map((e) => ({ message: e.message, ...e.details })),
    });
  }
}
