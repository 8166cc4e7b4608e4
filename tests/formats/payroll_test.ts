import assert from "node:assert/strict";
import {
  D1_FIELDS,
  type D1Record,
  D6_FIELDS,
  parseD1,
  parseD6,
  summarizeD1,
  summarizeD6,
  writeD1,
} from "../../src/formats/mod.ts";
import { fixtureBytes, throwsApp } from "./_helpers.ts";
import { nth } from "../_helpers/nth.ts";

Deno.test("D1_FIELDS and D6_FIELDS have 53 and 59 fields (nra-formats.md §2.1, §2.2)", () => {
  assert.equal(D1_FIELDS.length, 53);
  assert.equal(D6_FIELDS.length, 59);
  assert.equal(D1_FIELDS[2].name, "employerEik");
  assert.deepStrictEqual([D6_FIELDS[6].name, D6_FIELDS[7].name], ["block1Month", "block1Year"]);
});

Deno.test("parseD1() decodes CP1251 surnames and types numbers", async () => {
  const recs = parseD1(await fixtureBytes("d1/EMPL2021.TXT"));
  assert.equal(recs.length, 3);
  assert.equal(nth(recs).surname, "ПЕТРОВ");
  assert.equal(nth(recs).grossSalary, 2500);
  assert.equal(nth(recs).pensionRateEmployer, 12.62);
  assert.equal(nth(recs).insuredDaysTotal, "2100");
});

Deno.test("writeD1() quotes C fields, leaves numbers bare, ends with CRLF and 0x1A", async () => {
  const recs = parseD1(await fixtureBytes("d1/EMPL2021.TXT"));
  const text = writeD1(recs.slice(0, 1));
  assert.ok(text.startsWith('8,2026,"203456783","8503151235",0,"ПЕТРОВ","ИГ",1,1,31,'));
  assert.ok(text.endsWith(',0,0,"NRAD12008"\r\n\x1a'));
});

Deno.test("parseD1() reads the martinov/decl1 style line with 00 days and an empty quoted field", () => {
  const line =
    '8,2026,"121212123","8888888888",0,"ФАМИЛИЯ","ПВ",12,01,31,00,00,00,00,00,00,00,00,' +
    '"2100",21,00,00,00,00,00,000,000,0,"",0,"0000",0.00,0.00,710.00,0.00,14.80,0.00,0.00,0.00,' +
    '0.00,0.00,0.00,5.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0,0,"NRAD12008"\n\x1a';
  const r = nth(parseD1(line));
  assert.equal(r.insuranceStartDay1, 1);
  assert.equal(r.activityCode, "");
  assert.equal(r.insurableIncome, 710);
  assert.equal(r.universalFundRateInsured, 5);
});

Deno.test("parseD1() handles commas and doubled quotes inside quoted values", async () => {
  const r = nth(parseD1(await fixtureBytes("d1/EMPL2021.TXT")));
  const text = writeD1([r]).replace('"ПЕТРОВ"', '"ПЕТРОВ, ""МЛ."""');
  assert.equal(nth(parseD1(text)).surname, 'ПЕТРОВ, "МЛ."');
});

Deno.test("parseD1() reads empty numeric fields as 0 (the D1 rule)", async () => {
  const r = nth(parseD1(await fixtureBytes("d1/EMPL2021.TXT")));
  const text = writeD1([r]).replace(",168,0,2,", ",,,2,");
  const back = nth(parseD1(text));
  assert.equal(back.hoursWorked, 0);
  assert.equal(back.hoursOvertime, 0);
});

Deno.test("parseD1() reports a wrong field count, an unterminated quote and a bad EIK", async () => {
  const r = nth(parseD1(await fixtureBytes("d1/EMPL2021.TXT")));
  const text = writeD1([r]);
  let e = throwsApp(() => parseD1(text.replace(',"NRAD12008"', "")), "FILE_PARSE_ERROR");
  assert.equal(e.message, 'Cannot parse "EMPL2021.TXT" line 1: has 52 fields; expected 53');
  e = throwsApp(() => parseD1(text.replace('"NRAD12008"', '"NRAD12008')), "FILE_PARSE_ERROR");
  assert.match(e.message, /unterminated quoted value/);
  e = throwsApp(() => parseD1(text.replace('"ПЕТРОВ"', '"ПЕТРОВ')), "FILE_PARSE_ERROR");
  assert.match(e.message, /after a closing quote at position 44; expected a comma/);
  e = throwsApp(() => parseD1(text.replace('"203456783"', '"20345"')), "FILE_PARSE_ERROR");
  assert.match(
    e.message,
    /^Cannot parse "EMPL2021.TXT" line 1: field 3 \(employer EIK\) at position 8 is not an EIK/,
  );
  e = throwsApp(() => parseD1(text.replace("8,2026,", "13,2026,")), "FILE_PARSE_ERROR");
  assert.match(e.message, /field 1 \(month\) at position 1 is not a month 1-12/);
  e = throwsApp(() => parseD1(text.replace(",2500.00,", ",25O0.00,")), "FILE_PARSE_ERROR");
  assert.match(e.message, /is not an amount/);
});

Deno.test("writeD1() refuses overflow, negative amounts, quotes and commas in text", async () => {
  const r = nth(parseD1(await fixtureBytes("d1/EMPL2021.TXT")));
  const bad: Array<Partial<D1Record>> = [
    { surname: "А".repeat(26) },
    { grossSalary: -1 },
    { surname: 'ПЕТРОВ "МЛ."' },
    { surname: "ПЕТРОВ, МЛ." },
    { month: 0 },
    { hoursWorked: 1000 },
    { netSalary: 1.005 },
  ];
  for (const b of bad) throwsApp(() => writeD1([{ ...r, ...b }]), "FILE_PARSE_ERROR");
});

Deno.test("summarizeD1() gives employer EIK, period and numRecords", async () => {
  const s = summarizeD1(parseD1(await fixtureBytes("d1/EMPL2021.TXT")));
  assert.deepStrictEqual(s, {
    eik: "203456783",
    year: 2026,
    month: 8,
    period: "202608",
    annual: false,
    correctionCode: 0,
    numRecords: 3,
    eiks: ["203456783"],
    periods: ["202608"],
  });
  assert.equal(summarizeD1([]).eik, null);
});

Deno.test("parseD6() reads blocks leniently and checks fields 1, 2, 7, 8", async () => {
  const bytes = await fixtureBytes("d6/NRA62007.TXT");
  const recs = parseD6(bytes);
  assert.equal(nth(recs).block1PaymentDate, "2026-09-25");
  assert.equal(nth(recs).block2PaymentDate, null);
  assert.equal(nth(recs).block2Month, 0);
  assert.equal(nth(recs, 1).block1IncomeTax1, 612.69);
  assert.equal(summarizeD6(recs).period, "202608");
  const text = new TextDecoder("windows-1251").decode(bytes);
  // Month 13 (annual) is accepted in block 1 (GO-D1D6, ODOO-NRA); unknown payment types too.
  assert.equal(nth(parseD6(text.replaceAll('",8,2026,"', '",13,2026,"'))).block1Month, 13);
  assert.equal(
    nth(parseD6(text.replace('"25/09/2026",0,1,', '"25/09/2026",0,7,'))).block1PaymentType,
    7,
  );
  throwsApp(
    () => parseD6(text.replace('"25/09/2026",0,1,', '"25/09/2026",0,"x",')),
    "FILE_PARSE_ERROR",
  );
  throwsApp(() => parseD6(text.replaceAll('",8,2026,"', '",14,2026,"')), "FILE_PARSE_ERROR");
  throwsApp(() => parseD6(text.replaceAll('"ЕКО ТРЕЙД ООД"', '""')), "FILE_PARSE_ERROR");
  // Blank payment date, quoted or not, reads as null.
  assert.equal(nth(parseD6(text.replaceAll('"25/09/2026"', ""))).block1PaymentDate, null);
});
