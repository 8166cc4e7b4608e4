import assert from "node:assert/strict";
import { detectFileKind, kindFromFileName, parseNraFile } from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import { fixtureBytes, throwsApp } from "./_helpers.ts";

const bytes = (s: string) => encodeCp1251(s);

Deno.test("detectFileKind() uses content, not the name: a ledger named DEKLAR.TXT is a ledger", async () => {
  const pok = await fixtureBytes("pokupki/POKUPKI.TXT");
  assert.equal(detectFileKind(pok, "DEKLAR.TXT"), "pokupki");
  const d1 = await fixtureBytes("d1/EMPL2021.TXT");
  assert.equal(detectFileKind(d1, "NRA62007.TXT"), "d1");
});

Deno.test("detectFileKind() recognises widths 590/274/272/424/422 and trailing spaces", () => {
  const line = (w: number) => bytes("BG123456786    202608" + " ".repeat(w - 21) + "\r\n");
  assert.equal(detectFileKind(line(590)), "deklar");
  assert.equal(detectFileKind(line(274)), "pokupki");
  assert.equal(detectFileKind(line(272)), "pokupki");
  assert.equal(detectFileKind(line(424)), "prodagbi");
  assert.equal(detectFileKind(line(422)), "prodagbi");
  assert.equal(detectFileKind(line(280)), "pokupki"); // 274 + spaces
  assert.equal(detectFileKind(line(430)), "prodagbi"); // 424 + spaces, not 274 + spaces
  assert.equal(detectFileKind(line(600)), "deklar");
  assert.equal(detectFileKind(bytes("BG123456786    202608" + " ".repeat(278) + "X")), "unknown");
});

Deno.test("detectFileKind() recognises VIES markers and D1/D6 field counts", () => {
  assert.equal(detectFileKind(bytes("VHR08/2026    1\r\nVTRBG123456786\r\n")), "vies");
  const d1 = "8,2026," + Array(51).fill('""').join(",") + "\r\n\x1a";
  assert.equal(detectFileKind(bytes(d1)), "d1");
  const d6 = '"123456786",' + Array(58).fill("0").join(",") + "\r\n\x1a";
  assert.equal(detectFileKind(bytes(d6)), "d6");
  assert.equal(detectFileKind(bytes('"123456786",' + Array(57).fill("0").join(","))), "unknown");
});

Deno.test("detectFileKind() requires the first lines to agree", () => {
  const pok = "X".repeat(274) + "\r\n";
  const prod = "X".repeat(424) + "\r\n";
  assert.equal(detectFileKind(bytes(pok + pok)), "pokupki");
  assert.equal(detectFileKind(bytes(pok + prod)), "unknown");
});

Deno.test("detectFileKind() names an empty file by its name only (a 0-byte ledger)", () => {
  assert.equal(detectFileKind(new Uint8Array(), "C:\\VAT\\2026-08\\POKUPKI.TXT"), "pokupki");
  assert.equal(detectFileKind(new Uint8Array([0x0d, 0x0a, 0x1a])), "unknown");
  assert.equal(detectFileKind(new Uint8Array(), "notes.txt"), "unknown");
});

Deno.test("kindFromFileName() knows the canonical names and NRA62007_<EIK> variants", () => {
  assert.equal(kindFromFileName("/x/NRA62007_203456783.TXT"), "d6");
  assert.equal(kindFromFileName("empl2021.txt"), "d1");
  assert.equal(kindFromFileName("prodagbi.txt"), "prodagbi");
  assert.equal(kindFromFileName("VIES.CSV"), "vies");
  assert.equal(kindFromFileName("report.pdf"), "unknown");
});

Deno.test("parseNraFile() throws FILE_KIND_UNKNOWN for a file of another kind", () => {
  const e = throwsApp(() => parseNraFile(bytes("hello\r\n"), "notes.txt"), "FILE_KIND_UNKNOWN");
  assert.deepStrictEqual(e.details, { file: "notes.txt" });
});
