/**
 * The test portal's {@link NraFileKit}: maps the mock's structured VAT and payroll data to the
 * format module's records, writes them with its writers (`writeDeklar`, `writePokupki`,
 * `writeProdagbi`, `writeVies`, `writeD1`, `writeD6`), checks that the text has a Windows-1251
 * encoding, so each `content` is what the CP1251 file from the portal decodes to. Lives
 * in the portal layer because it joins src/mock and src/formats (architecture.md layer rule).
 * Implements docs/test-portal.md § Portal files (content decoded
 * from CP1251) with the layouts of docs/nra-formats.md §1.2–§1.5, §2.1, §2.2.
 * @module
 */
import {
  firstUnencodableCp1251,
  parseDeklar,
  parsePokupki,
  parseProdagbi,
  parseVies,
  unencodable,
  writeD1,
  writeD6,
  writeDeklar,
  writePokupki,
  writeProdagbi,
  writeVies,
} from "../../formats/mod.ts";
import type { NraFileKit, RenderedFile, VatFileType } from "../../mock/mod.ts";
import { d1RecordsOf, d6RecordOf } from "./payroll_file_records.ts";
import {
  deklarRecordOf,
  pokupkiRecordsOf,
  prodagbiRecordsOf,
  viesRecordsOf,
} from "./vat_file_records.ts";

/**
 * What the CP1251 file decodes to: the text itself, once every character is known to have a
 * Windows-1251 byte (the check `encodeCp1251` makes, without loading its encoder).
 */
function roundTrip(name: string, text: string): RenderedFile {
  const i = firstUnencodableCp1251(text);
  if (i >= 0) throw unencodable(text, i, name);
  return { name, content: text };
}

/**
 * The test portal's file kit over src/formats.
 *
 * Implements docs/test-portal.md § Portal files.
 * @throws AppError FILE_PARSE_ERROR (from the writers) only when generated data does not fit
 *   a field, which the tests rule out
 */
export const NRA_FILE_KIT: NraFileKit = {
  vatFiles(d) {
    const vies = viesRecordsOf(d);
    return {
      declaration: roundTrip("DEKLAR.TXT", writeDeklar(deklarRecordOf(d))),
      purchases: roundTrip("POKUPKI.TXT", writePokupki(pokupkiRecordsOf(d))),
      sales: roundTrip("PRODAGBI.TXT", writeProdagbi(prodagbiRecordsOf(d))),
      vies: vies.length === 0 ? null : roundTrip("VIES.TXT", writeVies(vies)),
    };
  },
  payrollFiles(m, paymentDate) {
    return {
      dec1: roundTrip("EMPL2021.TXT", writeD1(d1RecordsOf(m))),
      dec6: roundTrip("NRA62007.TXT", writeD6([d6RecordOf(m, paymentDate)])),
    };
  },
  parseVatFile(type: VatFileType, content: string): unknown {
    switch (type) {
      case "declaration":
        return parseDeklar(content);
      case "purchases":
        return parsePokupki(content);
      case "sales":
        return parseProdagbi(content);
      case "vies":
        return parseVies(content);
    }
  },
};
