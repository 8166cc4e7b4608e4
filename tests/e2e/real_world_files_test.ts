/**
 * NRA files as other programs and editors leave them, through the real agent and token service
 * over HTTP (docs/formats.md § What is tolerated): scans and `vat_files_parse` decode UTF-8 files
 * correctly and say so; submissions refuse files that are not plain Windows-1251 with
 * FILE_ENCODING_UNSUPPORTED naming the file and its encoding, before anything is sent; a VIES.TXT
 * padded to 373 is read as VIES; trimmed and blank lines are read with warnings.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { writeCompanyTree } from "../_helpers/company_tree.ts";
import {
  createKeyCli,
  decideNext,
  issueToken,
  type Proc,
  startAgent,
  startTokenService,
} from "../_helpers/e2e.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";

const cp1251 = new TextDecoder("windows-1251");
const utf8 = (s: string) => new TextEncoder().encode(s);

interface Env {
  ts: Proc;
  agent: Proc;
  key: string;
  root: string;
  eiks: string[];
}

async function withEnv(fn: (e: Env) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "svc-e2e-realworld-" });
  const root = join(dir, "clients");
  const eiks = await writeCompanyTree(root, 2, 2026, 9);
  const ts = await startTokenService(`${dir}/ts`);
  const agent = await startAgent(`${dir}/agent`, ts.url);
  try {
    await fn({ ts, agent, key: await createKeyCli(`${dir}/ts`, "test"), root, eiks });
  } finally {
    await agent.stop();
    await ts.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

async function call(
  e: Env,
  typeId: string,
  body: unknown,
  tokenBody: Record<string, unknown>,
  headers: Record<string, string>,
) {
  const token = await issueToken(e.ts.url, e.key, { typeId, ...tokenBody });
  const res = await fetch(`${e.agent.url}/api/v1/operations/${typeId}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** Re-save a Windows-1251 file as an editor would: `transform` its text, write `encode`. */
async function resave(
  path: string,
  encode: (s: string) => Uint8Array,
  transform = (s: string) => s,
) {
  const text = cp1251.decode(await Deno.readFile(path));
  await Deno.writeFile(path, encode(transform(text)));
  return text;
}

Deno.test("[e2e] scans and vat_files_parse read UTF-8 and padded files right and warn; submissions refuse what is not Windows-1251", async () => {
  await withEnv(async (e) => {
    const [a, b] = e.eiks as [string, string];
    const payA = join(e.root, a, "2026-09", "payroll");
    const vatA = join(e.root, a, "2026-09", "vat");
    const vatB = join(e.root, b, "2026-09", "vat");
    // Company A: D1 and POKUPKI re-saved as UTF-8; VIES.TXT padded to 373 (item 1); PRODAGBI
    // with a blank line after its first record and short lines (item 4).
    const d1Text = await resave(join(payA, "EMPL2021.TXT"), utf8);
    await resave(join(vatA, "POKUPKI.TXT"), utf8);
    const viesPath = join(vatA, "VIES.TXT");
    const hasVies = await Deno.stat(viesPath).then(() => true, () => false);
    if (hasVies) {
      await resave(
        viesPath,
        (s) => encodeCp1251(s),
        (s) => s.split("\r\n").map((l) => (l ? l.padEnd(373) : l)).join("\r\n"),
      );
    }
    await resave(
      join(vatA, "PRODAGBI.TXT"),
      (s) => encodeCp1251(s),
      // Its last amount (02-25, 408–422) left-aligned, as some writers do, then trimmed.
      (s) =>
        s.split("\r\n")
          .map((l) => l && l.slice(0, 407) + (l.slice(407, 422).trim() || "0.00"))
          .join("\r\n")
          .replace("\r\n", "\r\n\r\n"),
    );
    // Company B: DEKLAR.TXT behind a UTF-8 byte-order mark.
    await resave(
      join(vatB, "DEKLAR.TXT"),
      (s) => new Uint8Array([0xef, 0xbb, 0xbf, ...encodeCp1251(s)]),
    );

    // Scans: the consent for the D1 scan, then the scan.
    const scanBatch = { "x-svc-batch-id": crypto.randomUUID() };
    const scanning = call(
      e,
      "dec1_files_scan",
      { rootFolder: e.root, year: 2026, month: 9 },
      {},
      scanBatch,
    );
    await decideNext(e.agent, "confirm");
    const scan = await scanning;
    equal(scan.status, 200, JSON.stringify(scan.json));
    const fileA = scan.json.files.find((f: { tin: string }) => f.tin === a);
    equal(fileA.content, d1Text, "the UTF-8 D1 is returned as its text, names not garbled");
    ok(/[А-Я]{4}/.test(fileA.content));
    const warned = (scan.json.warnings ?? []) as string[];
    ok(
      warned.some((w) => w.includes(join(payA, "EMPL2021.TXT")) && w.includes("UTF-8")),
      JSON.stringify(scan.json.warnings),
    );

    // vat_files_parse: UTF-8 POKUPKI, padded VIES, trimmed PRODAGBI with a blank line: all ok.
    // (Another request than the scan the batch's page showed: it asks for itself.)
    const parsing = call(e, "vat_files_parse", { directory: vatA }, {}, scanBatch);
    await decideNext(e.agent, "confirm");
    const parsed = await parsing;
    equal(parsed.status, 200, JSON.stringify(parsed.json));
    equal(parsed.json.status, "ok", JSON.stringify(parsed.json));
    equal(parsed.json.error, null);
    const warnings = parsed.json.warnings as string[];
    ok(warnings.some((w) => w.includes("POKUPKI.TXT") && w.includes("UTF-8")), warnings.join("\n"));
    ok(
      warnings.some((w) => w.includes("PRODAGBI.TXT") && w.includes("blank line")),
      warnings.join("\n"),
    );
    ok(
      warnings.some((w) => w.includes("PRODAGBI.TXT") && w.includes("trailing spaces")),
      warnings.join("\n"),
    );
    ok(!warnings.some((w) => w.includes("VIES.TXT") && w.includes("purchase ledger")));

    // Submissions: the person confirms, then the agent reads and refuses before sending.
    const h = { "x-svc-batch-id": crypto.randomUUID() };
    const d1Path = join(payA, "EMPL2021.TXT");
    const filing = call(e, "dec1_6", { year: 2026, month: 9, dec1FilePath: d1Path }, { eik: a }, h);
    await decideNext(e.agent, "confirm");
    const refused = await filing;
    equal(refused.status, 502, JSON.stringify(refused.json));
    equal(refused.json.errorCode, "FILE_ENCODING_UNSUPPORTED");
    equal(refused.json.errorKind, "PARAMETER");
    ok(
      refused.json.error.includes(d1Path) && refused.json.error.includes("UTF-8"),
      refused.json.error,
    );
    ok(refused.json.error.includes("Windows-1251"), refused.json.error);
    deepStrictEqual(refused.json.details, { file: d1Path, encoding: "UTF-8" });

    // Another declaration, company and folder than the batch's page showed: it asks again.
    const bomCall = call(e, "vat", { eik: b, year: 2026, month: 9 }, { eik: b }, {
      ...h,
      "x-svc-file-path": vatB,
    });
    await decideNext(e.agent, "confirm");
    const bom = await bomCall;
    equal(bom.json.errorCode, "FILE_ENCODING_UNSUPPORTED", JSON.stringify(bom.json));
    ok(bom.json.error.includes(join(vatB, "DEKLAR.TXT")), bom.json.error);
    equal(bom.json.details.encoding, "Windows-1251 behind a UTF-8 byte-order mark");
    // Nothing was sent: the agent never reached the portal for either.
    equal(e.agent.logs.filter((l) => l.msg === "portal submit").length, 0);
  });
});
