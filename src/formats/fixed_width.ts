/**
 * The one fixed-width engine for the VAT files (DEKLAR, POKUPKI, PRODAGBI, VIES), driven by
 * declarative field tables. Implements nra-formats.md §1.1 (fixed width, text left-aligned
 * and space-padded, numbers right-aligned, amounts 2 decimals, dates dd/mm/yyyy, periods
 * YYYYMM) and the "How to use this" rules (1-based positions, trim every field).
 *
 * Writing lives in fixed_width_write.ts.
 *
 * Empty-field rule: a blank numeric, date or period field parses to `null` and `null` writes
 * back as blanks, so files round-trip byte for byte; blank text and code fields parse to "".
 * @module
 */
import {
  dateKeyAt,
  isCodeAt,
  isoDateOfKey,
  parseAmountAt,
  parseIntAt,
  periodKeyAt,
} from "./field_values.ts";
import { parseError } from "./format_error.ts";
import { lineSpans } from "./text_lines.ts";

/** How a field's characters are interpreted (nra-formats.md §1.1). */
export type FieldType = "text" | "int" | "amount" | "date" | "period" | "decimal" | "code";

/** Alignment inside the field: L = left, space-padded right; R = right, space-padded left. */
export type Align = "L" | "R";

/** One field of a fixed-width record, restated from a table of nra-formats.md. */
export interface FieldSpec {
  /** Code from the reference, e.g. "03-07" (VIES fields use "VIR-4" style codes). */
  readonly code: string;
  /** Record property name (English, camelCase), e.g. "documentDate". */
  readonly name: string;
  /** English label used in messages, e.g. "document date". */
  readonly label: string;
  /** 1-based start position. */
  readonly start: number;
  /** Width in characters (= bytes in cp1251). */
  readonly length: number;
  /** Value type. */
  readonly type: FieldType;
  /** Alignment used when writing. */
  readonly align: Align;
}

/** The JS type of a parsed field: text/code → string; date/period → ISO string or null;
 * int/amount/decimal → number or null. */
export type FieldValue<T extends FieldType> = T extends "text" | "code" ? string
  : T extends "date" | "period" ? string | null
  : number | null;

/** The record type described by a field table: one property per field. */
export type RecordOf<F extends readonly FieldSpec[]> = {
  [K in F[number] as K["name"]]: FieldValue<K["type"]>;
};

const TYPE_CODES: Record<FieldType, number> = {
  text: 0,
  int: 1,
  amount: 2,
  date: 3,
  period: 4,
  decimal: 5,
  code: 6,
};

const REASONS = [
  "",
  "is not a whole number",
  "is not an amount with at most 2 decimals",
  "is not a date dd/mm/yyyy",
  "is not a period YYYYMM",
  "is not a decimal number with at most 2 decimals",
  "is not a code of Latin letters and digits",
];

/** A compiled field table: what `parseFixedLines` and `formatFixedLines` run on. */
export interface FixedLayout<F extends readonly FieldSpec[]> {
  /** The field table, in position order. */
  readonly fields: F;
  /** Canonical record width (sum of all field lengths). */
  readonly width: number;
  /** Accepted widths, canonical first (e.g. [274, 272]). */
  readonly widths: readonly number[];
  /** When true, shorter lines are read as if padded with spaces (VIES records). */
  readonly padShort: boolean;
  /** Internal: 0-based starts, lengths, type codes, the empty value of each field, and the
   * record factory (see {@link recordFactory}). */
  readonly compiled: {
    readonly starts: Int32Array;
    readonly lengths: Int32Array;
    readonly types: Uint8Array;
    readonly names: readonly string[];
    readonly empty: readonly (string | null)[];
    readonly make: (values: readonly unknown[]) => Record<string, unknown>;
    readonly scratch: unknown[];
  };
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Build `(v) => ({ name0: v[0], name1: v[1], … })` for a field table. The object literal gives
 * every record of a layout one hidden class, created in one step — about 7× faster than
 * cloning a template and storing 18–36 properties by computed key, which matters at 100,000
 * lines (issue 3 §1 item 9). The code is generated only from the table's property names,
 * each checked to be a plain identifier, never from file content. Where code generation from
 * strings is disabled, a slower closure does the same.
 * @param names record property names, in field order
 * @returns the factory
 * @throws Error (a programming error) when a name is not a plain identifier
 */
function recordFactory(
  names: readonly string[],
): (v: readonly unknown[]) => Record<string, unknown> {
  for (const n of names) {
    if (!IDENTIFIER.test(n) || n === "__proto__") {
      throw new Error(`Field table error: bad name ${n}`);
    }
  }
  try {
    const body = "return {" + names.map((n, i) => `${n}: v[${i}]`).join(", ") + "};";
    return new Function("v", body) as (v: readonly unknown[]) => Record<string, unknown>;
  } catch {
    return (v) => {
      const r: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) r[names[i]] = v[i];
      return r;
    };
  }
}

/**
 * Compile a field table, checking that its fields are contiguous from position 1.
 * @param fields the table (declare it `as const`)
 * @param options `widths`: accepted line widths (default: the canonical width only; each must
 *   end at a field boundary); `padShort`: read shorter lines as space-padded
 * @returns the layout
 * @throws Error (a programming error, not an AppError) when the table has gaps or overlaps
 */
export function defineLayout<const F extends readonly FieldSpec[]>(
  fields: F,
  options: { widths?: readonly number[]; padShort?: boolean } = {},
): FixedLayout<F> {
  let pos = 1;
  for (const f of fields) {
    if (f.start !== pos || f.length < 1) {
      throw new Error(`Field table error at ${f.code}: starts at ${f.start}, expected ${pos}`);
    }
    pos += f.length;
  }
  const width = pos - 1;
  const widths = options.widths ?? [width];
  for (const w of widths) {
    if (w !== width && !fields.some((f) => f.start - 1 + f.length === w)) {
      throw new Error(`Field table error: width ${w} does not end at a field boundary`);
    }
  }
  return {
    fields,
    width,
    widths,
    padShort: options.padShort ?? false,
    compiled: {
      starts: Int32Array.from(fields, (f) => f.start - 1),
      lengths: Int32Array.from(fields, (f) => f.length),
      types: Uint8Array.from(fields, (f) => TYPE_CODES[f.type]),
      names: fields.map((f) => f.name),
      empty: fields.map((f) => f.type === "text" || f.type === "code" ? "" : null),
      make: recordFactory(fields.map((f) => f.name)),
      scratch: new Array(fields.length),
    },
  };
}

function maxOf(xs: readonly number[]): number {
  let m = 0;
  for (const x of xs) if (x > m) m = x;
  return m;
}

/** Slots of each per-field intern table (a power of two). */
const INTERN_SLOTS = 1024;

/**
 * Per-file parse state that saves allocations in the hot loop: per text/code field a small
 * hash table of strings already seen (so repeated names, VAT numbers and codes share one
 * string instead of one copy per line; switched off for a field whose values turn out to be
 * mostly unique), and the ISO strings of dates and periods already seen.
 */
export class ParseCache {
  /** Per field index: its intern table, or null once interning was switched off. */
  readonly tables: Array<Array<string | undefined> | null | undefined> = [];
  /** Per field index: lookups and hits, to decide whether interning pays. */
  readonly lookups: number[] = [];
  /** Per field index: hits. */
  readonly hits: number[] = [];
  /** yyyymmdd → "YYYY-MM-DD". */
  readonly dates = new Map<number, string>();
  /** yyyymm → "YYYYMM". */
  readonly periods = new Map<number, string>();
}

function internText(text: string, a: number, b: number, cache: ParseCache, i: number): string {
  // Trimming is written out here (not via trimStartAt/trimEndAt): this is the hot loop.
  while (a < b) {
    const c = text.charCodeAt(a);
    if (c !== 0x20 && c !== 0x09) break;
    a++;
  }
  while (b > a) {
    const c = text.charCodeAt(b - 1);
    if (c !== 0x20 && c !== 0x09) break;
    b--;
  }
  const n = b - a;
  if (n === 0) return "";
  let table = cache.tables[i];
  if (table === null) return text.slice(a, b);
  if (table === undefined) {
    table = cache.tables[i] = new Array<string | undefined>(INTERN_SLOTS);
    cache.lookups[i] = 0;
    cache.hits[i] = 0;
  }
  let h = n;
  for (let k = a; k < b; k++) h = (Math.imul(h, 31) + text.charCodeAt(k)) | 0;
  const slot = h & (INTERN_SLOTS - 1);
  const seen = table[slot];
  const lookups = ++cache.lookups[i];
  if (seen !== undefined && seen.length === n) {
    let k = 0;
    while (k < n && text.charCodeAt(a + k) === seen.charCodeAt(k)) k++;
    if (k === n) {
      cache.hits[i]++;
      return seen;
    }
  }
  // After 1024 lookups with under a quarter of hits, the values are mostly unique: stop.
  if (lookups === INTERN_SLOTS && cache.hits[i] < INTERN_SLOTS / 4) cache.tables[i] = null;
  const s = text.slice(a, b);
  table[slot] = s;
  return s;
}

/**
 * Parse one record occupying `text[start, end)`.
 * @param layout the compiled table
 * @param text the whole decoded file
 * @param start offset of the line's first character
 * @param end offset after its last character (line break excluded)
 * @param file file name for messages
 * @param line 1-based line number for messages
 * @param cache allocation-saving state shared by the lines of one file
 * @returns the typed record
 * @throws AppError FILE_PARSE_ERROR when the width or a field value is wrong
 */
export function parseFixedLine<F extends readonly FieldSpec[]>(
  layout: FixedLayout<F>,
  text: string,
  start: number,
  end: number,
  file: string,
  line: number,
  cache: ParseCache = new ParseCache(),
): RecordOf<F> {
  const { starts, lengths, types, empty, make, scratch } = layout.compiled;
  let len = end - start;
  if (!layout.widths.includes(len)) {
    const max = maxOf(layout.widths);
    let extra = end;
    while (extra > start + max && text.charCodeAt(extra - 1) === 0x20) extra--;
    if (len > max && extra === start + max) {
      len = max;
    } else if (!(layout.padShort && len < max && len > 0)) {
      const expected = layout.widths.join(" or ");
      throw parseError(
        { file, line },
        len === 0
          ? `is empty; expected a record of ${expected} characters`
          : `is ${len} characters wide; expected ${expected}`,
      );
    }
  }
  const limit = start + len;
  const n = types.length;
  for (let i = 0; i < n; i++) {
    const a = start + starts[i];
    if (a >= limit) {
      scratch[i] = empty[i]; // a field past the end of a shorter line (272/422, VIES) is empty
      continue;
    }
    let b = a + lengths[i];
    if (b > limit) b = limit;
    let v: unknown;
    switch (types[i]) {
      case 0:
        v = internText(text, a, b, cache, i);
        break;
      case 1:
        v = parseIntAt(text, a, b);
        break;
      case 2:
      case 5:
        v = parseAmountAt(text, a, b);
        break;
      case 3: {
        const key = dateKeyAt(text, a, b);
        if (key > 0) {
          v = cache.dates.get(key);
          if (v === undefined) cache.dates.set(key, v = isoDateOfKey(key));
        } else v = key === 0 ? null : undefined;
        break;
      }
      case 4: {
        const key = periodKeyAt(text, a, b);
        if (key > 0) {
          v = cache.periods.get(key);
          if (v === undefined) cache.periods.set(key, v = String(key));
        } else v = key === 0 ? null : undefined;
        break;
      }
      default:
        v = isCodeAt(text, a, b) ? internText(text, a, b, cache, i) : undefined;
    }
    if (v === undefined) throw fieldParseError(layout, i, text, a, b, file, line);
    scratch[i] = v;
  }
  return make(scratch) as RecordOf<F>;
}

function fieldParseError<F extends readonly FieldSpec[]>(
  layout: FixedLayout<F>,
  i: number,
  text: string,
  a: number,
  b: number,
  file: string,
  line: number,
) {
  const f = layout.fields[i];
  let reason = REASONS[layout.compiled.types[i]];
  if (f.type === "period" && f.length === 7) reason = "is not a period MM/YYYY";
  const found = text.slice(a, b).trim();
  return parseError(
    { file, line, field: f, position: f.start },
    `${reason} (found "${found.length > 20 ? found.slice(0, 20) + "…" : found}")`,
  );
}

/**
 * Parse every line of a decoded file with one layout.
 * @param layout the compiled table
 * @param text decoded file text (CRLF or LF, optional trailing break and 0x1A)
 * @param file file name for messages
 * @returns one record per line; [] for an empty file
 * @throws AppError FILE_PARSE_ERROR at the first bad line
 */
export function parseFixedLines<F extends readonly FieldSpec[]>(
  layout: FixedLayout<F>,
  text: string,
  file: string,
): RecordOf<F>[] {
  const { count, starts, ends } = lineSpans(text);
  const out: RecordOf<F>[] = new Array(count);
  const cache = new ParseCache();
  for (let i = 0; i < count; i++) {
    out[i] = parseFixedLine(layout, text, starts[i], ends[i], file, i + 1, cache);
  }
  return out;
}
