/**
 * A file of each declaration filed on its own, as the filing checks expect it
 * (src/formats/declaration_file.ts, docs/local-input.md § What is checked per filing): ETZ
 * notices in Windows-1251 XML (the public XSD's `<etzemploy>` for art. 62), the Н-18 audit file
 * (`<audit>` with `eik`, `mon`, `god`), and XML naming the EIK for the forms without a public
 * format (731, 736, high-fiscal-risk notices). Plus the files a filing must refuse: a system
 * file that is no NRA format, and another declaration's file (a D6 from fixtures/).
 */
import type { SingleFileKind } from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import { fixtureBytes } from "../formats/_helpers.ts";

const xml = (body: string) =>
  encodeCp1251(`<?xml version="1.0" encoding="WINDOWS-1251"?>\n${body}\n`);

/**
 * A valid file of a single-file declaration for an EIK.
 * @param kind the submission kind
 * @param eik the EIK it names
 * @param period year and month (audit files carry them)
 * @returns the bytes and a file name
 */
export function sampleDeclarationFile(
  kind: SingleFileKind,
  eik: string,
  period: { year: number; month: number } = { year: 2026, month: 9 },
): { name: string; bytes: Uint8Array } {
  switch (kind) {
    case "etz62":
      return {
        name: "etz62.xml",
        bytes: xml(
          `<etzemploy><eik>${eik}</eik><contract><rowenum><employtype>01</employtype>` +
            `<egn>8001010008</egn><name>Иван Петров</name></rowenum></contract></etzemploy>`,
        ),
      };
    case "etz123":
      return {
        name: "etz123.xml",
        bytes: xml(`<etz123employer><eik>${eik}</eik><name>Фирма ООД</name></etz123employer>`),
      };
    case "odit":
      return {
        name: "audit.xml",
        bytes: xml(
          `<audit><eik>${eik}</eik><e_shop_n>1</e_shop_n><domain_name>shop.bg</domain_name>` +
            `<mon>${String(period.month).padStart(2, "0")}</mon><god>${period.year}</god></audit>`,
        ),
      };
    case "dec731":
    case "dec736":
      return {
        name: `${kind}.xml`,
        bytes: xml(
          `<declaration form="${kind.slice(3)}"><taxpayer bulstat="${eik}">Фирма ООД</taxpayer>` +
            `<year>${period.year - 1}</year></declaration>`,
        ),
      };
    case "high_fisc_risk":
      return {
        name: "vfr.xml",
        bytes: xml(`<notification type="EU_BG"><eik>${eik}</eik><goods>1</goods></notification>`),
      };
  }
}

/** A system file that is no NRA format (like /etc/passwd). */
export const SYSTEM_FILE = new TextEncoder().encode(
  "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n",
);

/** Another declaration's file: a D6 (NRA62007.TXT) from fixtures/. */
export async function otherDeclarationFile(): Promise<{ name: string; bytes: Uint8Array }> {
  return { name: "NRA62007.TXT", bytes: await fixtureBytes("d6/NRA62007.TXT") };
}

/** A file of another declaration this project knows, for each kind (an ETZ 62 notice for the
 * XML-only kinds, an audit file for the ETZ notices). */
export function otherXmlDeclaration(kind: SingleFileKind, eik: string) {
  return sampleDeclarationFile(kind === "odit" ? "etz62" : "odit", eik);
}
