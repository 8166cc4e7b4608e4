/**
 * fast-check arbitraries built from the field tables themselves, so the property tests cover
 * every field of every layout: canonical values only (trimmed text, ≤ 2 decimals, real dates),
 * since parse(write(x)) must give back exactly x.
 * @module
 */
import fc from "fast-check";
import type { DelimFieldSpec, FieldSpec } from "../../src/formats/mod.ts";

const LATIN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const CYRILLIC = "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЬЮЯабвгдежзийклмнопрстуфхцчшщъьюя";
const PUNCT = " .-/&()№„“'";
const TEXT_CHARS = [...LATIN + CYRILLIC + PUNCT + ',"%'];
const D_TEXT_CHARS = [...LATIN + CYRILLIC + PUNCT]; // D1/D6 text: no quotes or commas (§2.1)
const CODE_CHARS = [...LATIN];

/**
 * Text as names and descriptions are: words of Latin letters and digits, Cyrillic words of two
 * letters or more, punctuation (other than `chars` excludes), separated by single spaces;
 * characters outside ASCII never start the value. Windows-1251 Cyrillic words are never valid
 * UTF-8 (two letters are two lead bytes), which is what tells the encodings apart
 * (src/formats/text_encoding.ts); a value of lone letters next to „“№ could pass for UTF-8 and
 * is not a name.
 */
function text(chars: string[], maxLength: number): fc.Arbitrary<string> {
  const allowed = new Set(chars);
  const pick = (s: string) => [...s].filter((c) => allowed.has(c));
  const latin = fc.string({ unit: fc.constantFrom(...pick(LATIN)), minLength: 1, maxLength: 10 });
  const cyrillic = fc.string({
    unit: fc.constantFrom(...pick(CYRILLIC)),
    minLength: 2,
    maxLength: 10,
  });
  const punct = fc.constantFrom(...pick(PUNCT + ',"%').filter((c) => c !== " "));
  return fc.array(fc.oneof(latin, cyrillic, latin, cyrillic, punct), { maxLength: 5 }).map(
    (words) => {
      while (words.length > 0 && words[0]!.charCodeAt(0) > 0x7f && words[0]!.length === 1) {
        words.shift();
      }
      let s = words.join(" ");
      while (s.length > maxLength) s = s.slice(0, s.lastIndexOf(" ") < 0 ? 0 : s.lastIndexOf(" "));
      return s.trim();
    },
  );
}

function cents(maxAbs: bigint, nonNegative: boolean): fc.Arbitrary<number> {
  return fc.bigInt({ min: nonNegative ? 0n : -maxAbs, max: maxAbs }).map((c) => Number(c) / 100);
}

const isoDate = fc
  .record({
    y: fc.integer({ min: 1990, max: 2099 }),
    m: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 28 }),
  })
  .map(({ y, m, d }) => `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`);
const period = fc
  .record({ y: fc.integer({ min: 1990, max: 2099 }), m: fc.integer({ min: 1, max: 12 }) })
  .map(({ y, m }) => `${y}${String(m).padStart(2, "0")}`);

/**
 * Arbitrary value for one fixed-width field.
 * @param f the field
 * @returns values that fit the field exactly
 */
export function fixedValue(f: FieldSpec): fc.Arbitrary<unknown> {
  const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 4 });
  switch (f.type) {
    case "text":
      return text(TEXT_CHARS, f.length);
    case "code":
      return fc.string({ unit: fc.constantFrom(...CODE_CHARS), maxLength: f.length });
    case "int":
      return nullable(fc.bigInt({ min: 0n, max: 10n ** BigInt(f.length) - 1n }).map(Number));
    case "amount":
    case "decimal": {
      // sign + digits + ".dd" must fit: at most length - 4 whole digits when negative
      const neg = cents(10n ** BigInt(f.length - 2) - 1n, false).filter((v) =>
        v.toFixed(2).length <= f.length
      );
      return nullable(neg);
    }
    case "date":
      return nullable(isoDate);
    case "period":
      return nullable(period);
  }
}

/**
 * Arbitrary record for a fixed-width table, with optional fixed values.
 * @param fields the table
 * @param fixed values to force (e.g. the VIES record type)
 * @returns the record arbitrary
 */
export function fixedRecord(
  fields: readonly FieldSpec[],
  fixed: Record<string, unknown> = {},
): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of fields) {
    model[f.name] = f.name in fixed ? fc.constant(fixed[f.name]) : fixedValue(f);
  }
  return fc.record(model).map((r) => ({ ...r })); // fc.record makes null-prototype objects
}

/**
 * Arbitrary record for a D1/D6 table; `override` replaces the arbitraries of solid fields.
 * @param fields the table
 * @param nonNegative whether amounts must be ≥ 0 (D1)
 * @param override arbitraries by field name
 * @returns the record arbitrary
 */
export function delimRecord(
  fields: readonly DelimFieldSpec[],
  nonNegative: boolean,
  override: Record<string, fc.Arbitrary<unknown>>,
): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of fields) {
    const given = override[f.name];
    if (given) {
      model[f.name] = given;
      continue;
    }
    const size = f.size ?? 40;
    switch (f.type) {
      case "text":
        model[f.name] = text(D_TEXT_CHARS, size);
        break;
      case "int":
        model[f.name] = fc.bigInt({ min: 0n, max: 10n ** BigInt(size) - 1n }).map(Number);
        break;
      case "date":
        model[f.name] = fc.option(isoDate, { nil: null });
        break;
      default:
        model[f.name] = cents(10n ** BigInt(size + 2) - 1n, nonNegative);
    }
  }
  return fc.record(model).map((r) => ({ ...r })); // fc.record makes null-prototype objects
}

/** An EIK/Bulstat-shaped value: 9, 10 or 13 digits. */
export const eikLike = fc
  .constantFrom(9, 10, 13)
  .chain((n) => fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: n, maxLength: n }));
