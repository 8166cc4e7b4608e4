import assert from "node:assert/strict";
import {
  DEKLAR_LAYOUT,
  parseDeklar,
  parsePokupki,
  parseProdagbi,
  parseVies,
  POKUPKI_LAYOUT,
  PRODAGBI_LAYOUT,
  summarizeDeklar,
  summarizeVies,
  VIES_LAYOUTS,
  writeDeklar,
  writeVies,
} from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import { fixtureBytes, throwsApp } from "./_helpers.ts";
import { nth } from "../_helpers/nth.ts";

Deno.test("VAT layouts have the reference widths 590 / 274 / 424 (nra-formats.md §1.6)", () => {
  assert.equal(DEKLAR_LAYOUT.width, 590);
  assert.equal(POKUPKI_LAYOUT.width, 274);
  assert.equal(PRODAGBI_LAYOUT.width, 424);
  const vies = Object.fromEntries(Object.entries(VIES_LAYOUTS).map(([k, l]) => [k, l.width]));
  assert.deepStrictEqual(vies, { VHR: 15, VDR: 373, VTR: 368, TTR: 27, VIR: 66, CHR: 8, COS: 46 });
});

Deno.test("VAT layouts put the solid fields at the reference positions (§5)", () => {
  const at = (l: typeof DEKLAR_LAYOUT | typeof POKUPKI_LAYOUT, code: string) =>
    l.fields.find((f) => f.code === code)!;
  assert.equal(at(DEKLAR_LAYOUT, "00-03").start, 66);
  assert.equal(at(DEKLAR_LAYOUT, "00-05").start, 122);
  assert.equal(at(DEKLAR_LAYOUT, "00-06").start, 137);
  assert.equal(at(DEKLAR_LAYOUT, "01-33").length, 4);
  assert.equal(at(DEKLAR_LAYOUT, "01-82").start + 14, 590);
  assert.equal(at(POKUPKI_LAYOUT, "03-07").start, 63);
  assert.equal(at(POKUPKI_LAYOUT, "03-45").start, 273);
});

Deno.test("parsePokupki() decodes CP1251 counterparty names", async () => {
  const recs = parsePokupki(await fixtureBytes("pokupki/POKUPKI.TXT"));
  assert.equal(nth(recs).counterpartyName, "БАЛКАН СТРОЙ ЕООД");
  assert.equal(nth(recs, 4).goodsDescription, "Наем офис „Център“");
  assert.equal(nth(recs, 2).baseFullCredit, -150.5);
});

Deno.test("parsePokupki() reads older 272-wide lines with an empty 03-45", async () => {
  const recs = parsePokupki(await fixtureBytes("pokupki/POKUPKI_272.TXT"));
  assert.equal(recs.length, 5);
  assert.ok(recs.every((r) => r.specialCode === ""));
});

Deno.test("parsePokupki() reads a 0-byte file as an empty ledger", () => {
  assert.deepStrictEqual(parsePokupki(new Uint8Array()), []);
});

Deno.test("parseProdagbi() reads 424- and 422-wide lines", async () => {
  assert.equal(parseProdagbi(await fixtureBytes("prodagbi/PRODAGBI.TXT")).length, 6);
  assert.equal(parseProdagbi(await fixtureBytes("prodagbi/PRODAGBI_422.TXT")).length, 6);
});

Deno.test("parseDeklar() reads one 590-char record and refuses zero or two", async () => {
  const bytes = await fixtureBytes("deklar/DEKLAR.TXT");
  const d = parseDeklar(bytes);
  assert.equal(d.proRataCoefficient, 0.5);
  throwsApp(() => parseDeklar(""), "FILE_PARSE_ERROR");
  const text = writeDeklar(d);
  const e = throwsApp(() => parseDeklar(text + text), "FILE_PARSE_ERROR");
  assert.match(e.message, /expected exactly one record/);
});

Deno.test("parseDeklar() accepts LF, no final line break and a 0x1A marker", async () => {
  const d = parseDeklar(await fixtureBytes("deklar/DEKLAR.TXT"));
  const text = writeDeklar(d);
  assert.deepStrictEqual(parseDeklar(text.replace("\r\n", "")), d);
  assert.deepStrictEqual(parseDeklar(text.replace("\r\n", "\n")), d);
  assert.deepStrictEqual(parseDeklar(encodeCp1251(text + "\x1a")), d);
});

Deno.test("summarizeDeklar() gives VAT number, EIK, period and counts", async () => {
  const s = summarizeDeklar(parseDeklar(await fixtureBytes("deklar/DEKLAR.TXT")));
  assert.deepStrictEqual(s, {
    vatNumber: "BG203456783",
    eik: "203456783",
    period: "202608",
    year: 2026,
    month: 8,
    salesDocumentCount: 6,
    purchaseDocumentCount: 5,
  });
});

Deno.test("parseVies() reads every record type and normalises MM/YYYY periods", async () => {
  const recs = parseVies(await fixtureBytes("vies/VIES.TXT"));
  assert.deepStrictEqual(recs.map((r) => r.recordType), [
    "VHR",
    "VDR",
    "VTR",
    "TTR",
    "VIR",
    "VIR",
    "VIR",
    "CHR",
    "COS",
  ]);
  const vhr = recs[0];
  assert.ok(vhr?.recordType === "VHR" && vhr.period === "202608");
  const vir3 = recs[6];
  assert.ok(vir3?.recordType === "VIR" && vir3.period === "202607" && vir3.servicesBase === -120.4);
  assert.deepStrictEqual(summarizeVies(recs), {
    vatNumber: "BG203456783",
    eik: "203456783",
    period: "202608",
    declaredLineCount: 3,
    virCount: 3,
    recordCount: 9,
  });
});

Deno.test("parseVies() reads lines whose trailing blanks were trimmed", async () => {
  const text = writeVies(parseVies(await fixtureBytes("vies/VIES.TXT")));
  const trimmed = text.split("\r\n").map((l) => l.trimEnd()).join("\r\n");
  assert.deepStrictEqual(parseVies(trimmed), parseVies(text));
});

Deno.test("parseVies() rejects an unknown record type naming line and marker", () => {
  const e = throwsApp(() => parseVies("VHR08/2026    1\r\nXYZ123\r\n"), "FILE_PARSE_ERROR");
  assert.equal(e.details?.line, 2);
  assert.match(e.message, /found "XYZ"/);
});

Deno.test("parseVies() rejects a record longer than its type's width", () => {
  throwsApp(() => parseVies("VHR08/2026    1   9\r\n"), "FILE_PARSE_ERROR");
});
