/**
 * docs/formats.md § D6 periods: the annual D6 (month 13, nra-formats.md §2.2) and empty D6 fields.
 * An empty number reads as null, distinct from a written 0, and null writes back as an empty field;
 * the summary of an annual D6 says so.
 */
import assert from "node:assert/strict";
import { parseD6, summarizeD6, writeD6 } from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import { fixtureBytes, throwsApp } from "./_helpers.ts";
import { nth } from "../_helpers/nth.ts";

const annual = await fixtureBytes("d6/NRA62007_ANNUAL.TXT");

Deno.test("parseD6() reads empty D6 numbers as null and written zeros as 0 (NRA62007_ANNUAL.TXT)", () => {
  const r = nth(parseD6(annual));
  // Written: fundMember 0, block 1 correction code 0, the income tax of the year.
  assert.equal(r.fundMember, 0);
  assert.equal(r.block1CorrectionCode, 0);
  assert.equal(r.block1IncomeTax1, 412.37);
  // Left empty: the payment type, the other amounts and blocks 2–4 entirely.
  assert.equal(r.block1PaymentType, null);
  assert.equal(r.block1PensionInsurance, null);
  assert.equal(r.block1IncomeTax2, null);
  for (const b of [2, 3, 4]) {
    const rec = r as unknown as Record<string, unknown>;
    assert.deepStrictEqual(
      [rec[`block${b}Month`], rec[`block${b}Year`], rec[`block${b}GuaranteeFund`]],
      [null, null, null],
      `block ${b} is empty, not a block of month 0 in year 0`,
    );
  }
});

Deno.test("summarizeD6() of an annual D6 gives period YYYY13 and annual: true", () => {
  const s = summarizeD6(parseD6(annual));
  assert.deepStrictEqual(
    [s.eik, s.year, s.month, s.period, s.annual, s.correctionCode, s.numRecords],
    ["203456783", 2026, 13, "202613", true, 0, 1],
  );
});

Deno.test("writeD6() writes null as an empty field and 0 as 0, and reads back the same", async () => {
  const text = new TextDecoder("windows-1251").decode(annual);
  const r = nth(parseD6(annual));
  assert.equal(writeD6([r]), text);
  assert.ok(text.includes(',13,2026,"29/01/2027",0,,,,,,,,412.37,,'), text);
  const zeros = { ...r, block1PaymentType: 0, block2Month: 0 };
  const back = nth(parseD6(encodeCp1251(writeD6([zeros]))));
  assert.deepStrictEqual([back.block1PaymentType, back.block2Month], [0, 0]);
  // The monthly fixture writes its unused blocks with zeros: they stay zeros.
  const monthly = nth(parseD6(await fixtureBytes("d6/NRA62007.TXT")));
  assert.deepStrictEqual([monthly.block2Month, monthly.block2PensionInsurance], [0, 0]);
});

Deno.test("parseD6() still refuses an empty month or year in block 1 and malformed numbers", () => {
  const text = new TextDecoder("windows-1251").decode(annual);
  const noMonth = throwsApp(
    () => parseD6(text.replace(",13,2026,", ",,2026,")),
    "FILE_PARSE_ERROR",
  );
  assert.match(noMonth.message, /line 1: field 7 \(block 1 month\) .*is not a month 1-13/);
  const bad = throwsApp(() => parseD6(text.replace(",412.37,", ",4x2.37,")), "FILE_PARSE_ERROR");
  assert.match(bad.message, /field 18 \(block 1 income tax amount 1\)/);
});
