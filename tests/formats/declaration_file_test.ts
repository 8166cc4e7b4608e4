/**
 * A single-file filing's file is the declaration it claims (src/formats/declaration_file.ts):
 * each kind accepts its own sample and refuses a system file, another declaration's file, a
 * file of another EIK, malformed XML and a wrong encoding declaration.
 */
import { equal, throws } from "node:assert/strict";
import { checkDeclarationFile, type SingleFileKind } from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import {
  otherDeclarationFile,
  otherXmlDeclaration,
  sampleDeclarationFile,
  SYSTEM_FILE,
} from "../_helpers/sample_files.ts";

const EIK = "121212121";
const OTHER = "831234567";
const KINDS: SingleFileKind[] = ["dec731", "dec736", "etz62", "etz123", "high_fisc_risk", "odit"];
const req = { eik: EIK, year: 2026, month: 9 };
const code = (c: string) => (e: unknown) => (e as { code?: string }).code === c;

Deno.test("[formats] each single-file kind accepts its own declaration of the request's EIK", () => {
  for (const kind of KINDS) {
    const f = sampleDeclarationFile(kind, EIK);
    const r = checkDeclarationFile(kind, f.bytes, f.name, req);
    equal(r.fileType, "xml", kind);
    equal(r.eiks[0], EIK);
  }
});

Deno.test("[formats] a system file, another declaration's file and a file of another EIK are refused", async () => {
  const d6 = await otherDeclarationFile();
  for (const kind of KINDS) {
    throws(
      () => checkDeclarationFile(kind, SYSTEM_FILE, "/etc/passwd", req),
      code("FILE_KIND_UNKNOWN"),
      kind,
    );
    throws(
      () => checkDeclarationFile(kind, d6.bytes, d6.name, req),
      code("FILE_KIND_MISMATCH"),
      kind,
    );
    const other = sampleDeclarationFile(kind, OTHER);
    throws(
      () => checkDeclarationFile(kind, other.bytes, other.name, req),
      code("FILE_EIK_MISMATCH"),
      kind,
    );
    if (kind === "etz62" || kind === "etz123" || kind === "odit") {
      const x = otherXmlDeclaration(kind, EIK);
      throws(
        () => checkDeclarationFile(kind, x.bytes, x.name, req),
        code("FILE_KIND_MISMATCH"),
        kind,
      );
    } else {
      // The forms without a public format refuse the known XML declarations of other forms too.
      const x = sampleDeclarationFile("etz62", EIK);
      throws(
        () => checkDeclarationFile(kind, x.bytes, x.name, req),
        code("FILE_KIND_MISMATCH"),
        kind,
      );
    }
  }
});

Deno.test("[formats] malformed XML, an undeclared encoding and an audit file of another month are refused", () => {
  const bad = new TextEncoder().encode("<etzemploy><eik>121212121</eik>");
  throws(() => checkDeclarationFile("etz62", bad, "a.xml", req), code("FILE_PARSE_ERROR"));
  const latin = encodeCp1251(
    '<?xml version="1.0" encoding="ISO-8859-5"?><etzemploy><eik>121212121</eik></etzemploy>',
  );
  throws(
    () => checkDeclarationFile("etz62", latin, "a.xml", req),
    code("FILE_ENCODING_UNSUPPORTED"),
  );
  // Windows-1251 Cyrillic declared as UTF-8: not valid UTF-8.
  const lie = encodeCp1251(
    '<?xml version="1.0" encoding="UTF-8"?><etzemploy><eik>121212121</eik><n>Иван</n></etzemploy>',
  );
  throws(() => checkDeclarationFile("etz62", lie, "a.xml", req), code("FILE_ENCODING_UNSUPPORTED"));
  const audit = sampleDeclarationFile("odit", EIK, { year: 2026, month: 8 });
  throws(
    () => checkDeclarationFile("odit", audit.bytes, audit.name, req),
    code("FILE_PERIOD_MISMATCH"),
  );
  // An XML naming no EIK at all, for a form without a public format.
  const anon = new TextEncoder().encode("<declaration><year>2025</year></declaration>");
  throws(() => checkDeclarationFile("dec731", anon, "d.xml", req), code("FILE_EIK_MISMATCH"));
});

Deno.test("[formats] an NRA text layout naming the EIK passes for the forms without a public format, not for the XML notices", () => {
  const text = encodeCp1251(
    `"731","${EIK}","2025","Фирма ООД"\r\n"731","${EIK}","01","1234.56"\r\n`,
  );
  equal(checkDeclarationFile("dec731", text, "D731.TXT", req).fileType, "txt");
  throws(
    () => checkDeclarationFile("dec731", text, "D731.TXT", { eik: OTHER }),
    code("FILE_EIK_MISMATCH"),
  );
  throws(() => checkDeclarationFile("etz62", text, "D731.TXT", req), code("FILE_KIND_MISMATCH"));
  // UTF-8 text is not what the NRA takes.
  const utf8 = new TextEncoder().encode(`"731","${EIK}","Фирма"\n`);
  throws(
    () => checkDeclarationFile("dec736", utf8, "D736.TXT", req),
    code("FILE_ENCODING_UNSUPPORTED"),
  );
});
