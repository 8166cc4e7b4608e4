/**
 * The VAT cross-checks and D6 periods (docs/formats.md) end to end, with the agent and the
 * token service as processes over real HTTP on loopback and the synthetic fixtures of
 * fixtures/formats:
 * - `vat_files_parse` warns when DEKLAR's intra-EU supplies have no VIR line in
 *   VIES.TXT (or no VIES.TXT at all);
 * - its rows keep the spec's two statuses (`ok`, `липсва`) and `error` holds only the
 *   parser errors, joined with " ; ";
 * - `dec6_files_scan` finds the annual D6 (month 13) with December, and `dec1_6_batch`
 *   reports it instead of dropping it, and refuses a company with a regular and a corrective D6
 *   for the same period instead of filing one of them silently.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import {
  type D1Record,
  type D6Record,
  parseD1,
  parseD6,
  writeD1,
  writeD6,
} from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import { validEik } from "../_helpers/company_tree.ts";
import {
  createKeyCli,
  decideNext,
  issueToken,
  type Proc,
  startAgent,
  startTokenService,
} from "../_helpers/e2e.ts";
import { openApiValidator, resultSchemaName } from "../_helpers/openapi_validate.ts";
import { fixtureBytes } from "../formats/_helpers.ts";

interface Env {
  ts: Proc;
  agent: Proc;
  key: string;
  doc: Record<string, unknown>;
  validate: (name: string, v: unknown) => string | null;
}

async function withEnv(fn: (e: Env) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "svc-e2e-issue16-" });
  const ts = await startTokenService(`${dir}/ts`);
  const agent = await startAgent(`${dir}/agent`, ts.url);
  try {
    const key = await createKeyCli(`${dir}/ts`, "test");
    const doc = await (await fetch(`${agent.url}/api/v1/openapi.json`)).json();
    await fn({ ts, agent, key, doc, validate: openApiValidator(doc) });
  } finally {
    await agent.stop();
    await ts.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

async function call(e: Env, typeId: string, body: unknown, tokenBody: Record<string, unknown>) {
  const token = await issueToken(e.ts.url, e.key, { typeId, ...tokenBody });
  const res = await fetch(`${e.agent.url}/api/v1/operations/${typeId}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "x-svc-batch-id": crypto.randomUUID(),
    },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  const schema = resultSchemaName(e.doc, `/api/v1/operations/${typeId}`);
  if (res.status === 200) equal(e.validate(schema, json), null, `${typeId} matches ${schema}`);
  return { status: res.status, json };
}

/** An inline folder: path → bytes. */
const inline = (files: Record<string, Uint8Array>) => ({
  files: Object.entries(files).map(([path, b]) => ({ path, contentBase64: b.toBase64() })),
});

const VAT = {
  "DEKLAR.TXT": await fixtureBytes("deklar/DEKLAR.TXT"),
  "POKUPKI.TXT": await fixtureBytes("pokupki/POKUPKI.TXT"),
  "PRODAGBI.TXT": await fixtureBytes("prodagbi/PRODAGBI.TXT"),
};

Deno.test("[e2e] vat_files_parse warns when DEKLAR's intra-EU supplies have no VIR line in VIES.TXT, or there is no VIES.TXT", async () => {
  await withEnv(async (e) => {
    const noVir = await call(e, "vat_files_parse", {
      directory: "C:\\Клиенти\\ЕКО ТРЕЙД\\2026-08",
      _inlineDir: inline({ ...VAT, "VIES.TXT": await fixtureBytes("vies/VIES_NO_VIR.TXT") }),
    }, {});
    equal(noVir.status, 200, JSON.stringify(noVir.json));
    equal(noVir.json.status, "ok");
    deepStrictEqual(noVir.json.warnings, [
      "DEKLAR 01-15 (intra-EU supplies of goods) is 3100.55 but VIES.TXT has no VIR line for the period",
      "DEKLAR 01-17 (services under art. 21(2)) is 750.00 but VIES.TXT has no VIR line for the period",
      "PRODAGBI line 4: intra-EU supplies to DE811907980 (goods 3100.55, triangular 0.00, " +
      "services 0.00) have no VIR line in VIES.TXT (and 1 more line)",
    ]);
    const none = await call(e, "vat_files_parse", {
      directory: "/inline",
      _inlineDir: inline(VAT),
    }, {});
    equal(none.json.status, "ok");
    equal(none.json.warnings.length, 1);
    match(none.json.warnings[0], /^DEKLAR declares intra-EU supplies \(01-15 goods 3100\.55/);
    match(none.json.warnings[0], /no VIES declaration was read/);
    // The consistent set with its VIES.TXT: nothing to say.
    const full = await call(e, "vat_files_parse", {
      directory: "/inline",
      _inlineDir: inline({ ...VAT, "VIES.TXT": await fixtureBytes("vies/VIES.TXT") }),
    }, {});
    deepStrictEqual(full.json.warnings, []);
  });
});

Deno.test("[e2e] vat_files_parse rows keep the spec's ok/липсва and `error` holds only the parser errors", async () => {
  await withEnv(async (e) => {
    const text = new TextDecoder("windows-1251").decode(VAT["POKUPKI.TXT"]);
    const broken = encodeCp1251(text.replace("03/08/2026", "33/08/2026"));
    const r = await call(e, "vat_files_parse", {
      directory: "/inline",
      _inlineDir: inline({ "DEKLAR.TXT": VAT["DEKLAR.TXT"], "POKUPKI.TXT": broken }),
    }, {});
    equal(r.status, 200);
    equal(r.json.status, "partial");
    deepStrictEqual(r.json.items, [
      { file: "DEKLAR.TXT", status: "ok", count: "1" },
      { file: "POKUPKI.TXT", status: "липсва", count: null }, // present but malformed
      { file: "PRODAGBI.TXT", status: "липсва", count: "-" }, // missing
    ]);
    match(
      r.json.error,
      /^Cannot parse "POKUPKI.TXT" line 1: field 03-07 \(document date\) .*33\/08\/2026/,
    );
    ok(!r.json.error.includes(" ; "), "one parser error, nothing else");
    ok(!/missing/i.test(r.json.error), r.json.error);
    // Missing files only: partial, and no parser error to report.
    const missing = await call(e, "vat_files_parse", {
      directory: "/inline",
      _inlineDir: inline({ "DEKLAR.TXT": VAT["DEKLAR.TXT"] }),
    }, {});
    equal(missing.json.status, "partial");
    equal(missing.json.error, null);
    // Two malformed files: their errors joined with " ; ".
    const two = await call(e, "vat_files_parse", {
      directory: "/inline",
      _inlineDir: inline({ "DEKLAR.TXT": encodeCp1251("garbage\r\n"), "POKUPKI.TXT": broken }),
    }, {});
    equal(two.json.status, "error");
    equal(two.json.error.split(" ; ").length, 2, two.json.error);
    ok(two.json.items.every((i: { status: string }) => i.status !== "грешка"));
  });
});

const D1 = parseD1(await fixtureBytes("d1/EMPL2021.TXT"));
const D6 = parseD6(await fixtureBytes("d6/NRA62007.TXT"));
const ANNUAL = await fixtureBytes("d6/NRA62007_ANNUAL.TXT");
const d1For = (eik: string, year: number, month: number) =>
  encodeCp1251(writeD1(D1.map((r): D1Record => ({ ...r, employerEik: eik, year, month }))));
const d6For = (eik: string, year: number, month: number, correction = 0) =>
  encodeCp1251(
    writeD6(
      D6.map((r): D6Record => ({
        ...r,
        eik,
        block1Year: year,
        block1Month: month,
        block1CorrectionCode: correction,
      })),
    ),
  );

Deno.test("[e2e] dec6_files_scan finds the annual D6 (month 13) with December of its year, and only then", async () => {
  await withEnv(async (e) => {
    const monthly = d6For("203456783", 2026, 8);
    const dir = inline({ "a/NRA62007.TXT": monthly, "b/NRA62007_ANNUAL.TXT": ANNUAL });
    const scan = (month: number) =>
      call(e, "dec6_files_scan", { rootFolder: "/inline", year: 2026, month, _inlineDir: dir }, {});
    const dec = await scan(12);
    equal(dec.status, 200, JSON.stringify(dec.json));
    deepStrictEqual(
      [dec.json.totalScanned, dec.json.totalMatched, dec.json.files[0]?.name],
      [2, 1, "NRA62007_ANNUAL.TXT"],
    );
    match(dec.json.files[0].content, /,13,2026,"29\/01\/2027",0,,,/);
    equal((await scan(8)).json.files[0]?.name, "NRA62007.TXT");
    equal((await scan(11)).json.totalMatched, 0);
  });
});

Deno.test("[e2e] dec1_6_batch reports an annual D6 it does not file, and refuses a regular and a corrective D6 of one company", async () => {
  await withEnv(async (e) => {
    // December 2025 (the test portal refuses periods that have not begun): the annual D6 of
    // the fixture, moved to 2025.
    const annual2025 = encodeCp1251(
      new TextDecoder("windows-1251").decode(ANNUAL).replace(",13,2026,", ",13,2025,"),
    );
    const x = "203456783"; // D1 + D6 of December + the annual D6 of 2025
    const y = validEik(31415926); // D1 + a regular and a corrective D6 of December
    const files = inline({
      [`${x}/EMPL2021.TXT`]: d1For(x, 2025, 12),
      [`${x}/NRA62007.TXT`]: d6For(x, 2025, 12),
      [`${x}/NRA62007_ANNUAL.TXT`]: annual2025,
      [`${y}/EMPL2021.TXT`]: d1For(y, 2025, 12),
      [`${y}/NRA62007.TXT`]: d6For(y, 2025, 12),
      [`${y}/corrections/NRA62007_K.TXT`]: d6For(y, 2025, 12, 1),
    });
    const p = call(
      e,
      "dec1_6_batch",
      { rootFolder: "/inline", year: 2025, month: 12, _inlineDir: files },
      { eiks: [x, y] },
    );
    await decideNext(e.agent, "confirm");
    const r = await p;
    equal(r.status, 200, JSON.stringify(r.json));
    const byEik = Object.fromEntries(
      r.json.items.map((i: { eik: string }) => [i.eik, i]),
    );
    equal(byEik[x].outcome, "submitted", JSON.stringify(byEik[x]));
    deepStrictEqual(byEik[x].files, [`/inline/${x}/EMPL2021.TXT`, `/inline/${x}/NRA62007.TXT`]);
    equal(byEik[y].outcome, "failed");
    equal(byEik[y].errorCode, "FILE_AMBIGUOUS");
    match(byEik[y].error, new RegExp(`EIK ${y} has 2 declaration 6 files for 2025-12`));
    match(byEik[y].error, /NRA62007\.TXT \(regular\)/);
    match(byEik[y].error, /NRA62007_K\.TXT \(corrective, code 1\)/);
    equal(r.json.status, "partial");
    match(
      r.json.error,
      /NRA62007_ANNUAL\.TXT is the annual declaration 6 of 2025 \(month 13\), not the monthly one for 2025-12: the batch did not file it/,
    );
  });
});
