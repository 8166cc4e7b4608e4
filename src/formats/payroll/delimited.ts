/**
 * The comma-separated engine for the payroll files D1 (EMPL2021.TXT) and D6 (NRA62007.TXT):
 * a quote-aware tokenizer plus typed fields driven by a table. Implements docs/nra-formats.md §2.1
 * (fields separated by commas; character fields in double quotes; numeric fields unquoted and
 * 0 when empty; CR LF after each record; CTRL+Z 0x1A at the end; Windows-1251) and §2.2.
 *
 * Empty-field rule here: an empty numeric field reads as 0 (the D1 rule "0 when empty"); an
 * empty date reads as null. Readers accept quoted or unquoted values for every field.
 * @module
 */
import {
  formatAmount,
  formatDate,
  formatInt,
  isWritableText,
  parseAmountAt,
  parseDateAt,
  parseIntAt,
  trimEndAt,
  trimStartAt,
} from "../field_values.ts";
import type { LineNotes } from "../file_warnings.ts";
import { type FieldRef, parseError, showFound, writeError } from "../format_error.ts";
import { parseEachLine } from "../text_lines.ts";

/** Value type of a comma-separated field: "text" is the reference's "C" type (quoted). */
export type DelimType = "text" | "int" | "amount" | "decimal" | "date";

/** One field of a D1/D6 record, restated from docs/nra-formats.md §2.1 / §2.2. */
export interface DelimFieldSpec {
  /** 1-based field number (also used as the field code in messages). */
  readonly no: number;
  /** Record property name (English, camelCase). */
  readonly name: string;
  /** English label for messages. */
  readonly label: string;
  /** Value type. */
  readonly type: DelimType;
  /** Text: maximum characters; numbers: maximum digits before the decimal point. */
  readonly size?: number | undefined;
}

/** The JS type of a parsed field: text → string; date → ISO string or null; numbers → number. */
export type DelimValue<T extends DelimType> = T extends "text" ? string
  : T extends "date" ? string | null
  : number;

/** The record type described by a comma-separated field table. */
export type DelimRecordOf<F extends readonly DelimFieldSpec[]> = {
  [K in F[number] as K["name"]]: DelimValue<K["type"]>;
};

/** A rule on a solid field: returns a reason ("is not a month 1-12") or null when fine. */
export type DelimCheck = (value: unknown) => string | null;

/** A compiled comma-separated table. */
export interface DelimLayout<F extends readonly DelimFieldSpec[]> {
  /** The fields in order. */
  readonly fields: F;
  /** Extra checks of solid fields, by field number (applied when reading and writing). */
  readonly checks: ReadonlyMap<number, DelimCheck>;
  /** When true, writers refuse negative amounts (D1: "amounts are always positive"). */
  readonly nonNegative: boolean;
  /** Internal: all-empty template record (fast-mode object, cloned per record). */
  readonly template: Readonly<Record<string, unknown>>;
}

/**
 * One field of a delimited layout, with literal types kept for {@link DelimRecordOf}.
 * @param no the field's number in the NRA document (1-based)
 * @param name the record property
 * @param label the document's label (for messages)
 * @param type its value type
 * @param size text: max characters; numbers: max digits before the decimal point
 * @returns the field spec
 */
export const delimField = <const N extends string, const Y extends DelimFieldSpec["type"]>(
  no: number,
  name: N,
  label: string,
  type: Y,
  size?: number,
) => ({ no, name, label, type, size }) as const;

/**
 * Compile a comma-separated table, checking that fields are numbered 1..n.
 * @param fields the table (declare it `as const`)
 * @param options `checks` for solid fields; `nonNegative` amounts
 * @returns the layout
 * @throws Error (a programming error) when the numbering has gaps
 */
export function defineDelimLayout<const F extends readonly DelimFieldSpec[]>(
  fields: F,
  options: { checks?: Record<number, DelimCheck>; nonNegative?: boolean } = {},
): DelimLayout<F> {
  const template: Record<string, unknown> = {};
  fields.forEach((f, i) => {
    // A programming error: the layout's own field table is wrong (never bad input).
    if (f.no !== i + 1) throw new Error(`Field table error: field ${f.name} numbered ${f.no}`);
    template[f.name] = f.type === "text" ? "" : f.type === "date" ? null : 0;
  });
  const checks = new Map<number, DelimCheck>();
  for (const [k, v] of Object.entries(options.checks ?? {})) checks.set(Number(k), v);
  return {
    fields,
    checks,
    nonNegative: options.nonNegative ?? false,
    template: JSON.parse(JSON.stringify(template)),
  };
}

function ref(f: DelimFieldSpec): FieldRef {
  return { code: String(f.no), label: f.label };
}

interface Tokens {
  values: string[];
  positions: number[];
}

/**
 * Split one record `text[a, b)` into raw values: `"…"` is a quoted value (`""` inside it is a
 * literal quote; commas inside quotes do not split); anything else runs to the next comma.
 */
function tokenize(text: string, a: number, b: number, file: string, line: number): Tokens {
  const values: string[] = [];
  const positions: number[] = [];
  let pos = a;
  for (;;) {
    const p = trimStartAt(text, pos, b);
    positions.push(pos - a + 1);
    if (p < b && text.charCodeAt(p) === 0x22) {
      let j = p + 1;
      let value = "";
      for (;;) {
        const k = text.indexOf('"', j);
        if (k === -1 || k >= b) {
          throw parseError(
            { file, line, position: p - a + 1 },
            `has an unterminated quoted value starting at position ${p - a + 1}`,
          );
        }
        value += text.slice(j, k);
        if (k + 1 < b && text.charCodeAt(k + 1) === 0x22) {
          value += '"';
          j = k + 2;
          continue;
        }
        pos = trimStartAt(text, k + 1, b);
        break;
      }
      values.push(value);
      if (pos < b && text.charCodeAt(pos) !== 0x2c) {
        throw parseError(
          { file, line, position: pos - a + 1 },
          `has "${text[pos]}" after a closing quote at position ${pos - a + 1}; expected a comma`,
        );
      }
    } else {
      let k = text.indexOf(",", pos);
      if (k === -1 || k >= b) k = b;
      values.push(text.slice(pos, k));
      pos = k;
    }
    if (pos >= b) break;
    pos++; // skip the comma; a comma at the very end yields a final empty value
  }
  return { values, positions };
}

const REASONS: Record<DelimType, string> = {
  text: "",
  int: "is not a whole number",
  amount: "is not an amount with at most 2 decimals",
  decimal: "is not a decimal number with at most 2 decimals",
  date: "is not a date dd/mm/yyyy",
};

/** Parse the record `text[a, b)` on line `line` (see {@link parseDelimLines}). */
function parseDelimLine<F extends readonly DelimFieldSpec[]>(
  layout: DelimLayout<F>,
  text: string,
  a: number,
  b: number,
  file: string,
  line: number,
): DelimRecordOf<F> {
  const fields = layout.fields;
  const { values, positions } = tokenize(text, a, b, file, line);
  if (values.length !== fields.length) {
    throw parseError(
      { file, line },
      `has ${values.length} field${values.length === 1 ? "" : "s"}; expected ${fields.length}`,
    );
  }
  const rec: Record<string, unknown> = { ...layout.template };
  for (let i = 0; i < fields.length; i++) {
    // non-null: i < fields.length
    const f = fields[i]!;
    const s = values[i]!; // non-null: values.length === fields.length, checked above
    let v: unknown;
    if (f.type === "text") {
      const e = trimEndAt(s, 0, s.length);
      v = s.slice(trimStartAt(s, 0, e), e);
    } else if (f.type === "date") {
      v = parseDateAt(s, 0, s.length);
    } else {
      const n = f.type === "int" ? parseIntAt(s, 0, s.length) : parseAmountAt(s, 0, s.length);
      v = n === null ? 0 : n;
    }
    const where = { file, line, field: ref(f), position: positions[i] };
    if (v === undefined) {
      throw parseError(where, `${REASONS[f.type]} (found "${showFound(s)}")`);
    }
    const check = layout.checks.get(f.no);
    const reason = check === undefined ? null : check(v);
    if (reason !== null) throw parseError(where, `${reason} (found "${showFound(s)}")`);
    rec[f.name] = v;
  }
  return rec as DelimRecordOf<F>;
}

/**
 * Parse every record of a decoded D1/D6 file.
 * @param layout the compiled table
 * @param text decoded text (CRLF or LF, optional final break, optional 0x1A marker)
 * @param file file name for messages
 * @param notes where skipped blank lines are noted (optional)
 * @returns one typed record per line that is not blank
 * @throws AppError FILE_PARSE_ERROR for a wrong field count, bad quoting, a value of the wrong
 *   type, a solid field that fails its check, or a 0x1A before the end
 */
export function parseDelimLines<F extends readonly DelimFieldSpec[]>(
  layout: DelimLayout<F>,
  text: string,
  file: string,
  notes?: LineNotes,
): DelimRecordOf<F>[] {
  return parseEachLine(
    text,
    file,
    notes,
    (a, b, line) => parseDelimLine(layout, text, a, b, file, line),
  );
}

function formatValue(f: DelimFieldSpec, v: unknown, nonNegative: boolean): string | string[] {
  switch (f.type) {
    case "text": {
      if (typeof v !== "string" || !isWritableText(v)) {
        return ["expected text without control characters"];
      }
      if (v.includes('"') || v.includes(",")) {
        return ["text may not contain double quotes or commas"];
      }
      if (f.size !== undefined && v.length > f.size) {
        return [`value "${v}" is ${v.length} characters long; the field holds ${f.size}`];
      }
      return `"${v}"`;
    }
    case "date": {
      if (v === null || v === undefined) return '""';
      const s = formatDate(v as string);
      return s === undefined ? ["expected an ISO date YYYY-MM-DD or null"] : `"${s}"`;
    }
    default: {
      const n = v === null || v === undefined ? 0 : v as number;
      const s = f.type === "int" ? formatInt(n) : formatAmount(n);
      if (s === undefined) {
        return [
          f.type === "int"
            ? "expected a non-negative whole number"
            : "expected a finite number with at most 2 decimals",
        ];
      }
      if (nonNegative && n < 0) return ["expected a non-negative amount"];
      const [whole = ""] = (s.startsWith("-") ? s.slice(1) : s).split(".");
      const digits = whole.length;
      if (f.size !== undefined && digits > f.size) {
        return [
          `value ${s} has ${digits} digits before the decimal point; the field holds ${f.size}`,
        ];
      }
      return s;
    }
  }
}

/**
 * Format records as canonical D1/D6 text: fields joined by commas, text and dates in double
 * quotes, numbers bare (amounts with 2 decimals), CR LF after each record, then 0x1A.
 * @param layout the compiled table
 * @param records the records
 * @param file file name for messages
 * @returns the file text (encode it with `encodeCp1251`)
 * @throws AppError FILE_PARSE_ERROR when a value has the wrong type, does not fit its size,
 *   contains a quote or comma, or fails a solid-field check
 */
export function formatDelimLines<F extends readonly DelimFieldSpec[]>(
  layout: DelimLayout<F>,
  records: readonly DelimRecordOf<F>[],
  file: string,
): string {
  let out = "";
  for (let li = 0; li < records.length; li++) {
    const rec = records[li] as Record<string, unknown>;
    const parts: string[] = [];
    let position = 1;
    for (const f of layout.fields) {
      const v = rec[f.name];
      const where = { file, line: li + 1, field: ref(f), position };
      const s = formatValue(f, v, layout.nonNegative);
      if (typeof s !== "string") {
        throw writeError(where, `cannot hold ${JSON.stringify(v)}: ${s[0]}`);
      }
      const check = layout.checks.get(f.no);
      const reason = check === undefined ? null : check(v ?? (f.type === "text" ? "" : 0));
      if (reason !== null) throw writeError(where, `${reason} (value ${JSON.stringify(v)})`);
      parts.push(s);
      position += s.length + 1;
    }
    out += parts.join(",") + "\r\n";
  }
  return out + "\x1a";
}
