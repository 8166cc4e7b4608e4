/**
 * The console's accountant exports in process (docs/console.md § Exports): per batch, local
 * times across summer and winter time, states in words, and the formula guard of both formats
 * (CSV: a leading apostrophe, src/csv.ts; Excel: a text cell, never a formula, src/xlsx.ts).
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { strFromU8, unzipSync } from "fflate";
import readXlsxFile from "read-excel-file/universal";
import { consoleEnv as env } from "../_helpers/console_env.ts";

const INJECTION = '=HYPERLINK("http://evil.example/","Отвори")';

function filing(id: string, eik: string, batchId: string | null) {
  return {
    id,
    idempotencyKey: null,
    typeId: "dec1_6",
    kind: "dec1_6",
    eik,
    period: "2026-06",
    batchId,
    filesSha256: null,
    files: [{ name: "EMPL2021.TXT", kind: "dec1", numRecords: 3 }],
    senderId: "test-sender",
    mode: "test" as const,
    integrator: "acme",
    request: {},
  };
}

Deno.test("console export: one batch as CSV and Excel, local times, the formula guard", async () => {
  const e = await env();
  const summer = new Date(Date.UTC(2026, 6, 1, 9, 0, 0)); // 12:00 in Sofia (UTC+3)
  const winter = new Date(Date.UTC(2026, 10, 1, 9, 0, 0)); // 11:00 in Sofia (UTC+2)
  e.journal.begin(
    { ...filing("a", "121212121", "batch-7"), origin: "https://app.example" },
    summer,
  );
  e.journal.refuse("a", "PORTAL_REJECTED", INJECTION, summer, null);
  e.journal.begin(filing("b", "131313131", "batch-7"), winter);
  e.journal.begin(filing("c", "141414141", null), winter);
  const s = await e.signIn();
  const get = (q: string) =>
    e.req(`/console/filings/export?${q}`, { headers: { cookie: s.cookie } });
  try {
    const csv = await get("batch=batch-7&format=csv");
    equal(csv.status, 200);
    equal(
      csv.headers.get("content-disposition"),
      'attachment; filename="batch-batch-7.csv"',
    );
    const text = await csv.text();
    ok(text.includes(`'${INJECTION.replaceAll('"', '""')}`), "the CSV guard");
    const rows = parse(text, { bom: true, columns: true }) as Record<string, string>[];
    deepEqual(rows.map((r) => r["ЕИК / ЕГН"]), ["121212121", "131313131"], "the batch only");
    deepEqual(rows.map((r) => r["Създадена (местно време)"]), [
      "2026-07-01 12:00:00 +03:00",
      "2026-11-01 11:00:00 +02:00",
    ]);
    deepEqual(rows.map((r) => r["Състояние"]), ["отказана", "в процес"]);
    equal(rows[0]!["Декларация"], "Декларации обр. 1 и 6");
    equal(rows[0]!["Файлове"], "EMPL2021.TXT");
    equal(rows[0]!["Страница"], "https://app.example", "the page that asked");
    const receipt = await e.req("/console/filings/a", { headers: { cookie: s.cookie } });
    const html = await receipt.text();
    ok(html.includes("https://app.example"), "the receipt names the page");
    ok(html.includes("Декларации обр. 1 и 6") && html.includes("EMPL2021.TXT"));

    const xlsx = await get("batch=batch-7&format=xlsx");
    equal(
      xlsx.headers.get("content-type"),
      "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    );
    const bytes = new Uint8Array(await xlsx.arrayBuffer());
    const [sheet] = await readXlsxFile(new Blob([bytes]));
    const [head, ...data] = sheet!.data as unknown[][];
    equal(data.length, 2);
    equal(data[0]![head!.indexOf("Текст на грешката")], INJECTION, "shown as written");
    equal(data[0]![head!.indexOf("Код на грешката")], "PORTAL_REJECTED");
    equal(
      data[0]![head!.indexOf("Отговор на НАП / грешка")],
      `НАП не прие декларацията. ${INJECTION}`,
      "the words, then the NRA's own reason",
    );
    // Real dates: Bulgaria's wall-clock time in date cells (summer +03:00, winter +02:00).
    const created = head!.indexOf("Създадена (местно време)");
    ok(data[0]![created] instanceof Date, String(data[0]![created]));
    // An Excel date is a day count in floating point: read back to the second.
    const second = (v: unknown) => new Date(Math.round((v as Date).getTime() / 1000) * 1000);
    equal(second(data[0]![created]).toISOString(), "2026-07-01T12:00:00.000Z");
    equal(second(data[1]![created]).toISOString(), "2026-11-01T11:00:00.000Z");
    const xml = strFromU8(unzipSync(bytes)["xl/worksheets/sheet1.xml"]!);
    ok(!xml.includes("<f>"), "a text cell, not a formula");

    for (const q of ["format=pdf", "batch=a%20b&format=csv", "period=2026-1&format=xlsx"]) {
      const bad = await get(q);
      equal(bad.status, 400, q);
      ok((await bad.text()).includes('id="flash"'), q);
    }
  } finally {
    await e.cleanup();
  }
});
