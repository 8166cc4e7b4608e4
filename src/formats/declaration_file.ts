/**
 * Is this file the declaration a filing claims? One check per submission kind of a file filed
 * on its own (`dec731`, `dec736`, `etz62`, `etz123`, `high_fisc_risk`, `odit`), run before the
 * confirmation page for inline input and before anything is signed or sent, the same in test and
 * live mode. What each kind is checked for is docs/local-input.md § What is checked per filing;
 * the formats are docs/nra-formats.md § 4:
 *
 * - **ETZ notices** (art. 62, art. 123): well-formed XML, root `<etzemploy>` (form 62, the public
 *   XSD) or a root whose name holds "123" (form 123: the XSD exists, its root is not verified),
 *   `<eik>` equal to the request's EIK.
 * - **Audit files** (`odit`): well-formed XML, root `<audit>` (the Н-18 e-shop audit file: its
 *   `eik`, `mon`, `god` are checked against the request's EIK, month and year) or a SAF-T
 *   `AuditFile` (which must name the request's EIK; its period is not checked).
 * - **Annual returns 731/736, high-fiscal-risk notices**: no public format exists. The file must
 *   be well-formed XML or an NRA-style text layout (Windows-1251, no control characters, every
 *   line of one fixed width or one comma-separated field count), must not be a file of another
 *   declaration this project knows (D1, D6, DEKLAR, the ledgers, VIES, an ETZ notice, an audit
 *   file), and must name the request's EIK (an element's text or an attribute's value for XML, a
 *   field for text); an `<eik>`/`<bulstat>` element of another EIK is a mismatch.
 *
 * A file that passes none of it (not XML, not an NRA layout) is FILE_KIND_UNKNOWN; a file of
 * another declaration FILE_KIND_MISMATCH; both are PARAMETER errors.
 * @module
 */
import { XMLValidator } from "fast-xml-parser";
import { AppError, type SubmissionKind } from "../contract/mod.ts";
import { decodeCp1251 } from "./cp1251.ts";
import { detectFileKind } from "./detect.ts";
import { NRA_FORMATS, type NraFileKind } from "./kinds.ts";
import { requireWindows1251 } from "./text_encoding.ts";

/** What a file was recognised as. */
export type FileIdentity =
  /** One of the NRA text formats of the registry (kinds.ts). */
  | { readonly family: "nra"; readonly kind: NraFileKind; readonly label: string }
  /** Well-formed XML; `declaration` is the kind its root names, if a known one. */
  | {
    readonly family: "xml";
    readonly root: string;
    readonly declaration: XmlDeclaration | null;
    readonly label: string;
    /** The document's text (well-formed: its elements are read with patterns, not a parser). */
    readonly text: string;
  }
  /** A text of one NRA-style layout (one width, or one comma-separated field count). */
  | { readonly family: "text"; readonly fields: readonly string[]; readonly label: string };

/** The XML documents this project recognises by their root element. */
export type XmlDeclaration = "etz62" | "etz123" | "audit_n18" | "saft";

const XML_LABELS: Readonly<Record<XmlDeclaration, string>> = {
  etz62: "an employment notice, art. 62 (<etzemploy>)",
  etz123: "a change-of-employer notice, art. 123",
  audit_n18: "an e-shop audit file (<audit>, Н-18)",
  saft: "a SAF-T audit file (<AuditFile>)",
};

/** Which identities each kind filed as one file accepts. */
const ACCEPTS: Readonly<
  Record<SingleFileKind, readonly (XmlDeclaration | "unknown_xml" | "text")[]>
> = {
  etz62: ["etz62"],
  etz123: ["etz123"],
  odit: ["audit_n18", "saft"],
  dec731: ["unknown_xml", "text"],
  dec736: ["unknown_xml", "text"],
  high_fisc_risk: ["unknown_xml", "text"],
};

/** What each kind expects, for messages. */
const EXPECTED: Readonly<Record<SingleFileKind, string>> = {
  etz62: "an employment notice, art. 62 (XML with the root <etzemploy>)",
  etz123: "a change-of-employer notice, art. 123 (XML)",
  odit: "an audit file (XML: <audit> of Н-18, or a SAF-T <AuditFile>)",
  dec731: "an annual tax return form 731 (XML, or an NRA text layout, naming the EIK)",
  dec736: "an annual tax return form 736 (XML, or an NRA text layout, naming the EIK)",
  high_fisc_risk: "a high fiscal risk goods notice (XML, or an NRA text layout, naming the EIK)",
};

/** The submission kinds filed as one file. */
export type SingleFileKind = Exclude<SubmissionKind, "vat" | "dec1_6">;

/** What the request says the file must be for. */
export interface FileRequest {
  readonly eik: string;
  readonly year?: number;
  readonly month?: number;
}

/** What the check learnt. */
export interface CheckedFile {
  /** What the NRA's `fileType` calls it. */
  readonly fileType: "xml" | "txt";
  /** What the file was recognised as, for messages and the page. */
  readonly label: string;
  /** The EIK(s) the file names (the request's, once checked). */
  readonly eiks: readonly string[];
}

const XML_HEAD = /^(?:\uFEFF)?\s*</;

/** The encoding an XML declaration names, lower case, or null. */
function declaredEncoding(bytes: Uint8Array): string | null {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 200));
  return /^(?:\uFEFF|ï»¿)?\s*<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/i.exec(head)?.[1]
    ?.toLowerCase() ?? null;
}

/** Decode an XML file in the encoding it declares (none: UTF-8, the XML default). */
function decodeXml(bytes: Uint8Array, fileName: string): string {
  const enc = declaredEncoding(bytes) ?? "utf-8";
  const label = enc === "cp1251" ? "windows-1251" : enc;
  if (label !== "windows-1251" && label !== "utf-8") {
    throw new AppError(
      "FILE_ENCODING_UNSUPPORTED",
      `${fileName} declares the encoding ${enc}; an NRA XML file is Windows-1251 or UTF-8`,
      { file: fileName, encoding: enc },
    );
  }
  if (label === "windows-1251") {
    requireWindows1251(bytes, fileName);
    return decodeCp1251(bytes);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError(
      "FILE_ENCODING_UNSUPPORTED",
      `${fileName} declares UTF-8 but is not valid UTF-8`,
      { file: fileName, encoding: "utf-8" },
    );
  }
}

function localName(name: string): string {
  const i = name.indexOf(":");
  return (i < 0 ? name : name.slice(i + 1)).toLowerCase();
}

function xmlDeclaration(root: string): XmlDeclaration | null {
  const local = localName(root);
  if (local === "etzemploy") return "etz62";
  if (local.includes("123")) return "etz123";
  if (local === "audit") return "audit_n18";
  if (local === "auditfile") return "saft";
  return null;
}

/** Whether a text file is one NRA-style layout; its fields (comma-separated, or the digit runs
 * of fixed-width lines) when it is. */
function textLayout(bytes: Uint8Array): string[] | null {
  const text = decodeCp1251(bytes);
  // A trailing 0x1A (end-of-file mark of DOS programs) is no content.
  // deno-lint-ignore no-control-regex
  const lines = text.split(/\r?\n/).map((l) => l.replace(/\x1a+$/, "")).filter((l) =>
    l.trim() !== ""
  );
  if (lines.length === 0) return null;
  // Printable text only (tabs and the Windows-1251 letters allowed).
  // deno-lint-ignore no-control-regex
  if (lines.some((l) => /[\x00-\x08\x0b-\x1f\x7f]/.test(l))) return null;
  const counts = lines.map((l) => l.split(",").length);
  // non-null: lines is not empty (null was returned above when it is)
  if (counts[0]! >= 3 && counts.every((n) => n === counts[0])) {
    return lines.flatMap((l) => l.split(",").map((f) => f.replace(/^"|"$/g, "").trim()));
  }
  // non-null: lines is not empty (null was returned above when it is)
  const width = lines[0]!.length;
  if (
    width >= 20 && lines.every((l) => l.length === width) && lines.every((l) => l.includes("  "))
  ) {
    return lines.flatMap((l) => l.match(/\d+/g) ?? []);
  }
  return null;
}

/**
 * Recognise a file: an NRA text format of the registry, well-formed XML (by its root), an
 * NRA-style text layout, or nothing.
 * @param bytes the file's bytes
 * @param fileName its name or path (messages; the name weighs in NRA text detection)
 * @returns the identity, or null when the file is none of these
 * @throws AppError FILE_ENCODING_UNSUPPORTED (XML in an encoding it does not declare, or another
 *   than Windows-1251 and UTF-8; a text file not in Windows-1251), FILE_PARSE_ERROR (a file that
 *   starts as XML and is not well-formed)
 */
export function identifyFile(bytes: Uint8Array, fileName: string): FileIdentity | null {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 64));
  if (XML_HEAD.test(head) || head.startsWith("ï»¿")) {
    const text = decodeXml(bytes, fileName);
    const valid = XMLValidator.validate(text);
    if (valid !== true) {
      throw new AppError(
        "FILE_PARSE_ERROR",
        `${fileName} is not well-formed XML: line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`,
        { file: fileName, line: valid.err.line, column: valid.err.col },
      );
    }
    // The root: the first element after the prolog, comments, processing instructions and a
    // document type declaration (the validator has checked that the text is well-formed).
    const root = /<([A-Za-z_][\w.:-]*)[\s/>]/.exec(
      text.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>/gi, ""),
    )?.[1];
    if (root === undefined) return null;
    const declaration = xmlDeclaration(root);
    return {
      family: "xml",
      root,
      declaration,
      text,
      label: declaration ? XML_LABELS[declaration] : `an XML document (<${root}>)`,
    };
  }
  const kind = detectFileKind(bytes, fileName);
  if (kind !== "unknown") return { family: "nra", kind, label: NRA_FORMATS[kind].label };
  requireWindows1251(bytes, fileName);
  const fields = textLayout(bytes);
  return fields === null ? null : { family: "text", fields, label: "an NRA text layout" };
}

/** The texts of the elements of a local name (any namespace prefix), trimmed. */
function elementTexts(text: string, name: string): string[] {
  const re = new RegExp(`<(?:[\\w.-]+:)?${name}(?:\\s[^>]*)?>([^<]*)</`, "gi");
  // non-null: group 1 of the pattern is not optional, so a match has it
  return [...text.matchAll(re)].map((m) => m[1]!.trim());
}

/** The EIKs an XML document names in elements called eik / bulstat (any namespace). */
function namedEiks(text: string): string[] {
  return [
    ...new Set(
      [...elementTexts(text, "eik"), ...elementTexts(text, "bulstat")].filter((v) =>
        /^\d{9,13}$/.test(v)
      ),
    ),
  ];
}

/** Whether a text field names the EIK (also as a VAT number `BG<EIK>`). */
const names = (v: string, eik: string) => v === eik || v.toUpperCase() === `BG${eik}`;

/** Whether an element's text or an attribute's value is the EIK (or the VAT number BG<EIK>). */
function namesEik(text: string, eik: string): boolean {
  const v = `(?:BG)?${eik}`;
  return new RegExp(`>\\s*${v}\\s*<|=\\s*(?:"\\s*${v}\\s*"|'\\s*${v}\\s*')`, "i").test(text);
}

/**
 * Check that one file is the declaration a single-file filing claims, for the request's EIK
 * (and period where the format carries one). The same in test and live mode.
 * @param kind the submission kind (its registry entry's `kind`)
 * @param bytes the file's bytes (as they will be signed and sent)
 * @param fileName its path or name, for messages
 * @param request the request's EIK (and year, month)
 * @returns the NRA file type, what the file is, the EIK it names
 * @throws AppError FILE_KIND_UNKNOWN (no XML, no NRA layout), FILE_KIND_MISMATCH (a file of
 *   another declaration), FILE_PARSE_ERROR (malformed XML), FILE_ENCODING_UNSUPPORTED,
 *   FILE_EIK_MISMATCH (another EIK, or none named), FILE_PERIOD_MISMATCH (an audit file of
 *   another month)
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * const xmlBytes = new TextEncoder().encode("<etzemploy><eik>121212121</eik></etzemploy>");
 * const checked = checkDeclarationFile("etz62", xmlBytes, "notice.xml", { eik: "121212121" });
 * deepEqual(checked, {
 *   fileType: "xml",
 *   label: "an employment notice, art. 62 (<etzemploy>)",
 *   eiks: ["121212121"],
 * });
 * ```
 */
export function checkDeclarationFile(
  kind: SingleFileKind,
  bytes: Uint8Array,
  fileName: string,
  request: FileRequest,
): CheckedFile {
  const id = identifyFile(bytes, fileName);
  if (id === null) {
    throw new AppError(
      "FILE_KIND_UNKNOWN",
      `${fileName} is neither XML nor an NRA text layout; ${kind} files ${EXPECTED[kind]}`,
      { file: fileName, expected: EXPECTED[kind] },
    );
  }
  const as = id.family === "xml"
    ? id.declaration ?? "unknown_xml"
    : id.family === "text"
    ? "text"
    : null;
  if (as === null || !ACCEPTS[kind].includes(as)) {
    throw new AppError(
      "FILE_KIND_MISMATCH",
      `${fileName} is ${id.label}, not ${EXPECTED[kind]}`,
      { file: fileName, found: id.label, expected: EXPECTED[kind] },
    );
  }
  const eik = request.eik;
  if (id.family === "text") {
    if (!id.fields.some((f) => names(f, eik))) {
      throw new AppError(
        "FILE_EIK_MISMATCH",
        `${fileName} does not name the EIK ${eik} in any of its fields`,
        { file: fileName, requested: eik },
      );
    }
    return { fileType: "txt", label: id.label, eiks: [eik] };
  }
  // A programming error: every family of kinds.ts is handled above (a new one must be added).
  if (id.family !== "xml") throw new Error("unreachable");
  const named = namedEiks(id.text);
  const other = named.filter((e) => e !== eik);
  if (other.length > 0) {
    throw new AppError(
      "FILE_EIK_MISMATCH",
      `${fileName} is for EIK ${other.join(", ")}, not for ${eik}`,
      { file: fileName, eiks: named, requested: eik },
    );
  }
  const strict = id.declaration === "etz62" || id.declaration === "etz123" ||
    id.declaration === "audit_n18";
  if (strict ? named.length === 0 : !namesEik(id.text, eik)) {
    throw new AppError(
      "FILE_EIK_MISMATCH",
      strict
        ? `${fileName} has no <eik> element; it must name the EIK ${eik}`
        : `${fileName} does not name the EIK ${eik}`,
      { file: fileName, requested: eik },
    );
  }
  if (id.declaration === "audit_n18") checkAuditPeriod(id.text, fileName, request);
  return { fileType: "xml", label: id.label, eiks: [eik] };
}

/** An Н-18 audit file's `mon` and `god` against the request's month and year. */
function checkAuditPeriod(text: string, fileName: string, request: FileRequest): void {
  if (request.year === undefined || request.month === undefined) return;
  const mon = elementTexts(text, "mon")[0];
  const god = elementTexts(text, "god")[0];
  const want = `${request.year}${String(request.month).padStart(2, "0")}`;
  const found = god && mon ? `${god}${mon.padStart(2, "0")}` : null;
  if (found !== want) {
    throw new AppError(
      "FILE_PERIOD_MISMATCH",
      `${fileName} is for period ${found ?? "?"} (god, mon), not for the requested ${want}`,
      { file: fileName, period: found, requested: want },
    );
  }
}
