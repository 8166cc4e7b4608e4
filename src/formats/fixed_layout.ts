/**
 * The field tables of the fixed-width engine (fixed_width.ts): field specs, the compiled layout
 * with its per-layout record factory, and the check whether a short line may be one whose
 * trailing spaces an editor trimmed (docs/formats.md). Implements docs/nra-formats.md §1.1 and the
 * "How to use this" rules (1-based positions).
 * @module
 */

/** How a field's characters are interpreted (docs/nra-formats.md §1.1). */
export type FieldType = "text" | "int" | "amount" | "date" | "period" | "decimal" | "code";

/** Alignment inside the field: L = left, space-padded right; R = right, space-padded left. */
export type Align = "L" | "R";

/** One field of a fixed-width record, restated from a table of docs/nra-formats.md. */
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

/** How each value type is aligned when written (docs/nra-formats.md §1.1: numbers right, the rest
 * left). */
const ALIGN_OF: Readonly<Record<FieldType, Align>> = {
  text: "L",
  int: "R",
  amount: "R",
  date: "L",
  period: "L",
  decimal: "R",
  code: "L",
};

/**
 * One field of a fixed-width table, aligned as its type is written (§1.1), with literal types
 * kept for {@link RecordOf}.
 * @param code the field's code in the reference, e.g. "03-07"
 * @param name the record property
 * @param label the English label (for messages)
 * @param type its value type
 * @param start 1-based start position
 * @param length width in characters
 * @returns the field spec
 */
export const fixedField = <const N extends string, const T extends FieldType>(
  code: string,
  name: N,
  label: string,
  type: T,
  start: number,
  length: number,
) => ({ code, name, label, start, length, type, align: ALIGN_OF[type] }) as const;

const TYPE_CODES: Record<FieldType, number> = {
  text: 0,
  int: 1,
  amount: 2,
  date: 3,
  period: 4,
  decimal: 5,
  code: 6,
};

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
  /**
   * Shorter lines at least this wide are read as if an editor had trimmed their trailing
   * spaces, with a warning (docs/formats.md); Infinity when the layout does not allow it.
   */
  readonly padFrom: number;
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
 * lines (BENCHMARKS.md § Parsing). The code is generated only from the table's property names,
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
      // A programming error: the layout's own field table is wrong (never bad input).
      throw new Error(`Field table error: bad name ${n}`);
    }
  }
  try {
    const body = "return {" + names.map((n, i) => `${n}: v[${i}]`).join(", ") + "};";
    return new Function("v", body) as (v: readonly unknown[]) => Record<string, unknown>;
  } catch {
    return (v) => {
      const r: Record<string, unknown> = {};
      names.forEach((n, i) => r[n] = v[i]);
      return r;
    };
  }
}

/**
 * Compile a field table, checking that its fields are contiguous from position 1.
 * @param fields the table (declare it `as const`)
 * @param options `widths`: accepted line widths (default: the canonical width only; each must
 *   end at a field boundary); `padShort`: read shorter lines as space-padded; `padFrom`: read
 *   shorter lines at least this wide as space-padded, noting them (a warning)
 * @returns the layout
 * @throws Error (a programming error, not an AppError) when the table has gaps or overlaps
 */
export function defineLayout<const F extends readonly FieldSpec[]>(
  fields: F,
  options: { widths?: readonly number[]; padShort?: boolean; padFrom?: number } = {},
): FixedLayout<F> {
  let pos = 1;
  for (const f of fields) {
    if (f.start !== pos || f.length < 1) {
      // A programming error: the layout's own field table is wrong (never bad input).
      throw new Error(`Field table error at ${f.code}: starts at ${f.start}, expected ${pos}`);
    }
    pos += f.length;
  }
  const width = pos - 1;
  const widths = options.widths ?? [width];
  for (const w of widths) {
    if (w !== width && !fields.some((f) => f.start - 1 + f.length === w)) {
      // A programming error: the layout's own widths are wrong (never bad input).
      throw new Error(`Field table error: width ${w} does not end at a field boundary`);
    }
  }
  return {
    fields,
    width,
    widths,
    padShort: options.padShort ?? false,
    padFrom: options.padFrom ?? Infinity,
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

/**
 * Whether a short line may be read as padded: what is missing can only be trailing blanks. It
 * ends at a field boundary, or inside a field whose value starts at the field's first
 * character and does not end in a space (left-aligned, its trailing spaces trimmed). A line
 * ending inside a right-aligned value (leading spaces) or inside blanks was cut, and reading
 * it would give a wrong value.
 * @param layout the compiled table
 * @param text decoded text
 * @param start offset of the line's first character
 * @param len the line's width, shorter than the layout's widest
 * @returns -1 when the line may be padded, else the index of the field it was cut in
 * @throws nothing
 */
export function cutFieldOf<F extends readonly FieldSpec[]>(
  layout: FixedLayout<F>,
  text: string,
  start: number,
  len: number,
): number {
  const { starts, lengths } = layout.compiled;
  // An indexed loop, no entries() iterator: this runs once per short line (VIES lines).
  for (let i = 0; i < starts.length; i++) {
    const a = starts[i]!; // non-null: i < starts.length = lengths.length
    if (a >= len) return -1;
    // non-null: i < starts.length = lengths.length
    if (a + lengths[i]! <= len) continue;
    const c = text.charCodeAt(start + a);
    const trimmed = c !== 0x20 && c !== 0x09 && text.charCodeAt(start + len - 1) !== 0x20;
    return trimmed ? -1 : i;
  }
  return -1;
}
