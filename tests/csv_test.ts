/** src/csv.ts: RFC 4180 text through csv-stringify, with the spreadsheet formula guard. */
import { equal } from "node:assert/strict";
import { guardFormula, toCsv } from "../src/csv.ts";

const cases: { name: string; cell: unknown; field: string }[] = [
  { name: "plain text", cell: "ACME Ltd", field: "ACME Ltd" },
  { name: "Cyrillic", cell: "Ключ „Пробен“", field: "Ключ „Пробен“" },
  { name: "a comma is quoted", cell: "ACME, Ltd", field: '"ACME, Ltd"' },
  { name: "quotes are doubled", cell: 'say "hi"', field: '"say ""hi"""' },
  { name: "LF is quoted", cell: "line 1\nline 2", field: '"line 1\nline 2"' },
  { name: "CRLF is quoted", cell: "line 1\r\nline 2", field: '"line 1\r\nline 2"' },
  { name: "a lone CR is quoted", cell: "a\rb", field: '"a\rb"' },
  { name: "= formula", cell: "=SUM(A1:A9)", field: "'=SUM(A1:A9)" },
  { name: "+ formula", cell: "+1+2", field: "'+1+2" },
  { name: "- formula", cell: "-2+3", field: "'-2+3" },
  { name: "@ formula", cell: "@SUM(A1)", field: "'@SUM(A1)" },
  { name: "leading tab", cell: "\t=1", field: "'\t=1" },
  { name: "leading CR is guarded and quoted", cell: "\r=1", field: '"\'\r=1"' },
  {
    name: "a formula with quotes and commas is guarded, then quoted",
    cell: '=HYPERLINK("http://x.test","a")',
    field: '"\'=HYPERLINK(""http://x.test"",""a"")"',
  },
  { name: "= inside a cell is not a formula", cell: "a=b", field: "a=b" },
  { name: "a positive number", cell: 42, field: "42" },
  { name: "a negative number stays a number", cell: -12.5, field: "-12.5" },
  { name: "zero", cell: 0, field: "0" },
  { name: "a number-like string starting with -", cell: "-5", field: "'-5" },
  { name: "empty string", cell: "", field: "" },
  { name: "null", cell: null, field: "" },
  { name: "undefined", cell: undefined, field: "" },
  { name: "booleans", cell: true, field: "true" },
  { name: "bigint", cell: 12345678901234567890n, field: "12345678901234567890" },
  {
    name: "a date is ISO 8601",
    cell: new Date(Date.UTC(2026, 10, 1, 8)),
    field: "2026-11-01T08:00:00.000Z",
  },
];

for (const c of cases) {
  Deno.test(`toCsv() writes ${c.name}`, () => {
    equal(toCsv(["h"], [[c.cell]]), `h\r\n${c.field}\r\n`);
  });
}

Deno.test("toCsv() writes the header, then one CRLF-ended line per row", () => {
  equal(
    toCsv(["company", "month", "tokens"], [["ACME, Ltd", "2026-11", 3], ["=cmd", "2026-11", -1]]),
    'company,month,tokens\r\n"ACME, Ltd",2026-11,3\r\n\'=cmd,2026-11,-1\r\n',
  );
});

Deno.test("toCsv() writes the header alone when there are no rows", () => {
  equal(toCsv(["month", "tokens"], []), "month,tokens\r\n");
});

Deno.test("guardFormula() prefixes only the dangerous first characters", () => {
  for (const s of ["=1", "+1", "-1", "@1", "\t1", "\r1"]) equal(guardFormula(s), `'${s}`);
  for (const s of ["1", "a-b", " =1", "'=1", ""]) equal(guardFormula(s), s);
});
