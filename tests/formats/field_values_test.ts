import assert from "node:assert/strict";
import {
  formatAmount,
  formatDate,
  formatPeriod,
  parseAmountAt,
  parseDateAt,
  parseIntAt,
  parsePeriodAt,
} from "../../src/formats/field_values.ts";

const whole = <T>(f: (s: string, a: number, b: number) => T) => (s: string) => f(s, 0, s.length);

Deno.test("parseAmountAt() reads amounts with 0-2 decimals, blank as null, junk as undefined", () => {
  const cases: Array<[string, number | null | undefined]> = [
    ["         -20.00", -20],
    ["        1210.00", 1210],
    ["           0.10", 0.1],
    ["  12.5", 12.5],
    ["12", 12],
    ["-0.00", 0],
    ["               ", null],
    ["", null],
    ["1.234", undefined],
    ["1,50", undefined],
    ["12.", undefined],
    ["-", undefined],
    ["1 000.00", undefined],
    ["+5.00", undefined],
    ["99999999999999.00", undefined],
  ];
  for (const [s, want] of cases) assert.equal(whole(parseAmountAt)(s), want, JSON.stringify(s));
  assert.ok(Object.is(whole(parseAmountAt)("-0.00"), 0), "never -0");
});

Deno.test("parseAmountAt() and formatAmount() round-trip every cent value exactly", () => {
  for (let c = -100_000; c <= 100_000; c += 7) {
    const t = formatAmount(c / 100)!;
    assert.equal(whole(parseAmountAt)(t), c / 100);
    assert.equal(formatAmount(whole(parseAmountAt)(t)!), t);
  }
  assert.equal(formatAmount(999999999999.99), "999999999999.99");
  assert.equal(whole(parseAmountAt)("999999999999.99"), 999999999999.99);
});

Deno.test("formatAmount() refuses more than 2 decimals, NaN and Infinity", () => {
  assert.equal(formatAmount(0.105), undefined);
  assert.equal(formatAmount(Number.NaN), undefined);
  assert.equal(formatAmount(Infinity), undefined);
  assert.equal(formatAmount(-0), "0.00");
  assert.equal(formatAmount(0.1 + 0.2), undefined); // 0.30000000000000004 is not 2 decimals
});

Deno.test("parseIntAt() reads right- and left-aligned whole numbers", () => {
  assert.equal(whole(parseIntAt)("              7"), 7);
  assert.equal(whole(parseIntAt)("7              "), 7);
  assert.equal(whole(parseIntAt)("    "), null);
  assert.equal(whole(parseIntAt)("-1"), undefined);
  assert.equal(whole(parseIntAt)("1.0"), undefined);
});

Deno.test("parseDateAt() reads dd/mm/yyyy into ISO and checks the calendar", () => {
  assert.equal(whole(parseDateAt)("03/08/2026"), "2026-08-03");
  assert.equal(whole(parseDateAt)("29/02/2024"), "2024-02-29");
  assert.equal(whole(parseDateAt)("29/02/2026"), undefined);
  assert.equal(whole(parseDateAt)("31/04/2026"), undefined);
  assert.equal(whole(parseDateAt)("2026-08-03"), undefined);
  assert.equal(whole(parseDateAt)("3/8/2026"), undefined);
  assert.equal(whole(parseDateAt)("          "), null);
  assert.equal(formatDate("2026-08-03"), "03/08/2026");
  assert.equal(formatDate("2026-02-30"), undefined);
});

Deno.test("parsePeriodAt() reads YYYYMM and VIES MM/YYYY as YYYYMM", () => {
  assert.equal(whole(parsePeriodAt)("202608"), "202608");
  assert.equal(whole(parsePeriodAt)("08/2026"), "202608");
  assert.equal(whole(parsePeriodAt)("202613"), undefined);
  assert.equal(whole(parsePeriodAt)("2026-8"), undefined);
  assert.equal(whole(parsePeriodAt)("      "), null);
  assert.equal(formatPeriod("202608", 6), "202608");
  assert.equal(formatPeriod("202608", 7), "08/2026");
  assert.equal(formatPeriod("202600", 6), undefined);
});
