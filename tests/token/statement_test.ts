/** statementCsv() / usageCsv(): the header and columns of the admin API's CSV, through src/csv.ts. */
import { equal } from "node:assert/strict";
import { type Statement, statementCsv, usageCsv } from "../../src/token/contracts/statement.ts";

const statement = (company: string): Statement => ({
  contractId: "ctr_1",
  integratorId: "acme",
  company,
  month: "2026-11",
  period: { from: "2026-11-05T12:00:00.000Z", to: "2026-12-01T00:00:00.000Z" },
  lines: [
    { keyId: "key_1", typeId: "vat", eik: "121212121", tokens: 3 },
    { keyId: "key_1", typeId: "taxpayers", eik: "", tokens: 1 },
  ],
  totals: { tokens: 4, distinctEiks: 1, keys: 1, byTypeId: { vat: 3, taxpayers: 1 } },
});

Deno.test("statementCsv() writes one line per key/typeId/EIK and a TOTAL line", () => {
  equal(
    statementCsv(statement("ЕКОФИН, „Пробна“ ООД")),
    "contract_id,company,month,key_id,type_id,eik,tokens\r\n" +
      'ctr_1,"ЕКОФИН, „Пробна“ ООД",2026-11,key_1,vat,121212121,3\r\n' +
      'ctr_1,"ЕКОФИН, „Пробна“ ООД",2026-11,key_1,taxpayers,,1\r\n' +
      'ctr_1,"ЕКОФИН, „Пробна“ ООД",2026-11,TOTAL,,,4\r\n',
  );
});

Deno.test("statementCsv() writes a company name a spreadsheet would run as text", () => {
  const csv = statementCsv(statement('=HYPERLINK("http://x.test","ACME")'));
  equal(
    csv.split("\r\n")[1],
    `ctr_1,"'=HYPERLINK(""http://x.test"",""ACME"")",2026-11,key_1,vat,121212121,3`,
  );
});

Deno.test("usageCsv() writes the counters under their header", () => {
  equal(
    usageCsv([{
      month: "2026-11",
      integratorId: "acme",
      contractId: "",
      keyId: "key_1",
      mode: "test",
      typeId: "vat",
      eik: "121212121",
      count: 2,
    }]),
    "month,integrator_id,contract_id,key_id,mode,type_id,eik,tokens\r\n" +
      "2026-11,acme,,key_1,test,vat,121212121,2\r\n",
  );
  equal(usageCsv([]), "month,integrator_id,contract_id,key_id,mode,type_id,eik,tokens\r\n");
});
