/**
 * The accountant's exports in Chromium (docs/console.md § Exports): after two companies' VAT
 * returns are filed (one accepted, one refused) through the real agent, the Filings page
 * filtered to one company and period downloads an Excel workbook and a CSV; the workbook is
 * opened with read-excel-file (the reading half of write-excel-file) and the CSV parsed with
 * csv-parse: Bulgarian headings, the declaration's and the company's names, the state in
 * words, the local time with its offset, the incoming number; the workbook holds no formula
 * (the formula guard of both formats: tests/agent/console_export_test.ts).
 * Screenshot: docs/console-export.png (the filtered view with its export buttons).
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { strFromU8, unzipSync } from "fflate";
import { localWallClock } from "../../src/local_time.ts";
import readXlsxFile from "read-excel-file/universal";
import { skipBrowser } from "../_helpers/browser.ts";
import { agentOpen, fileVat, filingWorld, LOCAL_TIME } from "../_helpers/console_filing.ts";

const HEADINGS = [
  "Създадена (местно време)",
  "Декларация",
  "ЕИК / ЕГН",
  "Фирма",
  "Период",
  "Подател",
  "Състояние",
  "Входящ №",
  "Документ №",
];

Deno.test({
  name: "[browser] console: a company's filings download as Excel and CSV in Bulgarian",
  ignore: skipBrowser(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const w = await filingWorld("svc-console-export-");
    const { agentDir, ts, agent, browser, key } = w;
    try {
      const filed = await fileVat(ts, agent, key, "121212121", null);
      equal(filed.success, true, JSON.stringify(filed));
      const refused = await fileVat(ts, agent, key, "999999904", null);
      equal(refused.success, false);

      const page = await browser.context.newPage();
      await page.goto(await agentOpen(agentDir));
      await page.click("#nav-filings");
      await page.fill("#f-eik", "121212121");
      await page.fill("#f-period", "2026-10");
      await page.click("#f-apply");
      await page.waitForSelector("#filings tr[data-state=filed]");
      await page.screenshot({ path: "docs/console-export.png", fullPage: true });

      // Excel: downloaded by the browser, opened with the same library family.
      const [xlsxDownload] = await Promise.all([
        page.waitForEvent("download"),
        page.click("#export-xlsx"),
      ]);
      equal(xlsxDownload.suggestedFilename(), "filings-121212121-2026-10.xlsx");
      const xlsx = await Deno.readFile(await xlsxDownload.path());
      const [sheet] = await readXlsxFile(new Blob([xlsx]));
      equal(sheet!.sheet, "Декларации");
      const [head, ...rows] = sheet!.data as unknown[][];
      deepEqual(head!.slice(0, HEADINGS.length), HEADINGS);
      equal(rows.length, 1, "the company and period only");
      const row = Object.fromEntries(head!.map((h, i) => [h, rows[0]![i]]));
      // Real Excel dates in Bulgaria's wall-clock time: filed a few minutes ago.
      const created = row["Създадена (местно време)"];
      ok(created instanceof Date, String(created));
      const wall = localWallClock(new Date())!.getTime();
      ok(Math.abs(created.getTime() - wall) < 15 * 60_000, created.toISOString());
      equal(row["Декларация"], "Справка-декларация по ЗДДС");
      equal(row["ЕИК / ЕГН"], "121212121");
      equal(row["Фирма"], '"Витоша Софт" АД');
      equal(row["Период"], "2026-10");
      equal(row["Състояние"], "подадена");
      equal(row["Входящ №"], filed.incomeNumber);
      equal(row["Документ №"], filed.documentId);
      ok(row["Подадена в НАП (местно време)"] instanceof Date);
      const sheetXml = strFromU8(unzipSync(xlsx)["xl/worksheets/sheet1.xml"]!);
      ok(!sheetXml.includes("<f>"), "no formula in the workbook");

      // CSV: the whole journal (no filter), parsed; the refused row in words.
      await page.click("#nav-filings");
      const [csvDownload] = await Promise.all([
        page.waitForEvent("download"),
        page.click("#export-csv"),
      ]);
      const csvText = await Deno.readTextFile(await csvDownload.path());
      ok(csvText.startsWith("\uFEFF"), "a byte order mark for Excel");
      const records = parse(csvText, { bom: true, columns: true }) as Record<string, string>[];
      equal(records.length, 2);
      const no = records.find((r) => r["ЕИК / ЕГН"] === "999999904")!;
      equal(no["Състояние"], "отказана");
      match(no["Отговор на НАП / грешка"]!, /няма право да подава/);
      match(no["Създадена (местно време)"]!, LOCAL_TIME);
      equal(no["Среда"], "тестов");
      for (const h of HEADINGS) ok(h in no, h);

      // A batch id that cannot be one: the page says so (400), no file.
      const bad = await page.goto(
        new URL("/console/filings/export?batch=a%20b&format=csv", page.url()).href,
      );
      equal(bad!.status(), 400);
      ok(await page.isVisible("#flash.error"));
    } finally {
      await w.close();
    }
  },
});
