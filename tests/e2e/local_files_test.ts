/**
 * Local-input operations end to end over HTTP: scans and the VAT parse from a folder tree, from
 * `X-Svc-File-Path` and inline; submissions of `vat` and `dec1_6` from files; and a folder-wide
 * batch over 50 companies of which only the token's EIKs are filed, with one confirmation.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { writeCompanyTree } from "../_helpers/company_tree.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import {
  createKeyCli,
  decideNext,
  issueToken,
  type Proc,
  startAgent,
  startTokenService,
} from "../_helpers/e2e.ts";
import { openApiValidator, resultSchemaName } from "../_helpers/openapi_validate.ts";

interface Env {
  ts: Proc;
  agent: Proc;
  key: string;
  root: string;
  eiks: string[];
  validate: (name: string, v: unknown) => string | null;
  doc: Record<string, unknown>;
  /** One user action: reading the disk is consented once for this batch. */
  batch: string;
}

async function withEnv(companies: number, fn: (e: Env) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "svc-e2e-files-" });
  const root = join(dir, "clients");
  const eiks = await writeCompanyTree(root, companies, 2026, 9);
  const ts = await startTokenService(`${dir}/ts`);
  const agent = await startAgent(`${dir}/agent`, ts.url);
  try {
    const key = await createKeyCli(`${dir}/ts`, "test");
    const doc = await (await fetch(`${agent.url}/api/v1/openapi.json`)).json();
    await fn({
      ts,
      agent,
      key,
      root,
      eiks,
      validate: openApiValidator(doc),
      doc,
      batch: crypto.randomUUID(),
    });
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
  headers: Record<string, string> = {},
) {
  const token = await issueToken(e.ts.url, e.key, { typeId, ...tokenBody });
  const res = await fetch(`${e.agent.url}/api/v1/operations/${typeId}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "x-svc-batch-id": e.batch,
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/**
 * A request of the batch that may ask: each request that is not one of the batch's confirmed items
 * (another scan, another period, another folder) opens the page again (docs/confirmation.md § What
 * a confirmed batch covers); that page is confirmed, as the user would.
 */
async function consented<T>(e: Env, answer: Promise<T>): Promise<T> {
  let done = false;
  answer.then(() => (done = true), () => (done = true));
  const untaken = () =>
    e.agent.logs.some((l) =>
      l.msg === "confirmation page opened" && !(l as { _taken?: boolean })._taken
    );
  while (!done) {
    if (untaken()) await decideNext(e.agent, "confirm");
    await new Promise((r) => setTimeout(r, 10));
  }
  return await answer;
}

function checkSchema(e: Env, typeId: string, json: unknown) {
  const name = resultSchemaName(e.doc, `/api/v1/operations/${typeId}`);
  equal(e.validate(name, json), null, `${typeId} matches ${name}`);
}

async function inlineDir(dir: string) {
  const files = [];
  for await (const f of Deno.readDir(dir)) {
    if (f.isFile) {
      files.push({
        path: f.name,
        contentBase64: (await Deno.readFile(join(dir, f.name))).toBase64(),
      });
    }
  }
  return { files };
}

Deno.test("[e2e] scans find the period's D1, D6 and VAT files in a tree, from the body, the header and inline", async () => {
  await withEnv(4, async (e) => {
    // Reading the user's disk asks once per batch; a declined batch reads nothing.
    const refused = call(e, "vat_files_scan", { rootFolder: e.root, year: 2026, month: 9 }, {}, {
      "x-svc-batch-id": crypto.randomUUID(),
    });
    const consent = await decideNext(e.agent, "decline");
    // (the page wraps paths after their separators: its text, without the markup)
    ok(consent.html.replace(/<[^>]*>/g, "").includes(e.root), "the consent page names the folder");
    deepStrictEqual((await refused).json.errorCode, "SENDER_NOT_CHOSEN");
    const first = call(e, "dec1_files_scan", { rootFolder: e.root, year: 2026, month: 9 }, {});
    await decideNext(e.agent, "confirm");
    equal((await first).status, 200);
    for (
      const [typeId, name] of [["dec1_files_scan", "EMPL2021.TXT"], [
        "dec6_files_scan",
        "NRA62007.TXT",
      ], ["vat_files_scan", "DEKLAR.TXT"]]
    ) {
      const r = await consented(
        e,
        call(e, typeId!, { rootFolder: e.root, year: 2026, month: 9 }, {}),
      );
      equal(r.status, 200, JSON.stringify(r.json));
      checkSchema(e, typeId!, r.json);
      equal(r.json.totalMatched, 4, typeId);
      deepStrictEqual(r.json.files.map((f: { tin: string }) => f.tin).sort(), [...e.eiks].sort());
      ok(
        r.json.files.every((f: { name: string; content: string }) =>
          f.name === name && f.content.length > 0
        ),
      );
      // Another period matches nothing: NO_DATA.
      const none = await consented(
        e,
        call(e, typeId!, { rootFolder: e.root, year: 2026, month: 8 }, {}),
      );
      equal(none.json.totalMatched, 0);
      deepStrictEqual(none.json.metadata, { errorCode: "NO_DATA" });
      // Not recursive: the root holds only folders.
      const flat = await consented(
        e,
        call(e, typeId!, {
          rootFolder: e.root,
          year: 2026,
          month: 9,
          recursive: false,
        }, {}),
      );
      equal(flat.json.totalScanned, 0);
    }
    const d1scan = await consented(
      e,
      call(e, "dec1_files_scan", { rootFolder: e.root, year: 2026, month: 9 }, {}),
    );
    let txt = 0;
    const walk = async (d: string): Promise<void> => {
      for await (const x of Deno.readDir(d)) {
        if (x.isDirectory) await walk(join(d, x.name));
        else if (x.name.toUpperCase().endsWith(".TXT")) txt++;
      }
    };
    await walk(e.root);
    ok(txt >= 4 * 5);
    equal(d1scan.json.totalScanned, txt, "every .TXT file is examined for the D1 scan");
    const vatscan = await consented(
      e,
      call(e, "vat_files_scan", { rootFolder: e.root, year: 2026, month: 9 }, {}),
    );
    equal(vatscan.json.totalScanned, 4, "DEKLAR.TXT files for the VAT scan");

    const vatDir = join(e.root, e.eiks[0]!, "2026-09", "vat");
    const parsed = await consented(e, call(e, "vat_files_parse", { directory: vatDir }, {}));
    equal(parsed.status, 200);
    checkSchema(e, "vat_files_parse", parsed.json);
    equal(parsed.json.status, "ok", JSON.stringify(parsed.json));
    deepStrictEqual(
      parsed.json.items.map((i: { file: string; status: string }) => [i.file, i.status]),
      [
        ["DEKLAR.TXT", "ok"],
        ["POKUPKI.TXT", "ok"],
        ["PRODAGBI.TXT", "ok"],
      ],
    );
    // Inline: the same folder without POKUPKI.TXT is partial with "липсва" and count "-".
    const inline = await inlineDir(vatDir);
    inline.files = inline.files.filter((f) => f.path !== "POKUPKI.TXT");
    const partial = await consented(
      e,
      call(e, "vat_files_parse", {
        directory: "C:\\Клиенти\\inline",
        _inlineDir: inline,
      }, {}),
    );
    equal(partial.json.status, "partial");
    deepStrictEqual(partial.json.items[1], { file: "POKUPKI.TXT", status: "липсва", count: "-" });
    // Inline scan of one company's payroll folder.
    const payDir = join(e.root, e.eiks[1]!, "2026-09", "payroll");
    const inl = await consented(
      e,
      call(e, "dec1_files_scan", {
        rootFolder: "/inline",
        year: 2026,
        month: 9,
        _inlineDir: await inlineDir(payDir),
      }, {}),
    );
    equal(inl.json.totalMatched, 1);
    equal(inl.json.files[0].tin, e.eiks[1]);
    // A missing folder and a relative path are PARAMETER errors.
    const missing = await consented(
      e,
      call(e, "vat_files_scan", {
        rootFolder: join(e.root, "nope"),
        year: 2026,
        month: 9,
      }, {}),
    );
    deepStrictEqual([missing.status, missing.json.errorCode], [502, "LOCAL_PATH_NOT_FOUND"]);
    const rel = await consented(
      e,
      call(e, "vat_files_scan", {
        rootFolder: "relative/path",
        year: 2026,
        month: 9,
      }, {}),
    );
    deepStrictEqual([rel.status, rel.json.errorCode], [502, "LOCAL_PATH_INVALID"]);
  });
});

Deno.test("[e2e] vat and dec1_6 are filed from local files (header, body paths, inline); bad files are refused before sending", async () => {
  await withEnv(2, async (e) => {
    const [eik, other] = e.eiks as [string, string];
    const base = join(e.root, eik, "2026-09");
    const batch = crypto.randomUUID();
    const h = { "x-svc-batch-id": batch };
    const vat = call(e, "vat", { eik, year: 2026, month: 9 }, { eik }, {
      ...h,
      "x-svc-file-path": join(base, "vat"),
    });
    await decideNext(e.agent, "confirm");
    const v = await vat;
    equal(v.status, 200, JSON.stringify(v.json));
    checkSchema(e, "vat", v.json);
    equal(v.json.success, true);
    // The batch confirmed a VAT return from its folder: declarations 1 and 6 are other items, so
    // the page asks again for each (docs/confirmation.md § What a confirmed batch covers).
    const asked = async <T>(p: Promise<T>) => {
      await decideNext(e.agent, "confirm");
      return await p;
    };
    const d = await asked(call(
      e,
      "dec1_6",
      {
        year: 2026,
        month: 9,
        dec1FilePath: join(base, "payroll", "EMPL2021.TXT"),
        dec6FilePath: join(base, "payroll", "NRA62007.TXT"),
      },
      { eik },
      h,
    ));
    equal(d.status, 200, JSON.stringify(d.json));
    equal(d.json.success, true);
    // The same declarations sent by the page: files the page has not shown, so it asks again.
    const inl = await asked(call(
      e,
      "dec1_6",
      { year: 2026, month: 9, _inlineDir: await inlineDir(join(base, "payroll")) },
      { eik },
      h,
    ));
    equal(inl.json.success, true, JSON.stringify(inl.json));
    // Files of another company than the token's EIK.
    const wrong = await asked(call(
      e,
      "dec1_6",
      {
        year: 2026,
        month: 9,
        dec1FilePath: join(e.root, other, "2026-09", "payroll", "EMPL2021.TXT"),
      },
      { eik },
      h,
    ));
    deepStrictEqual([wrong.status, wrong.json.errorCode], [401, "TOKEN_EIK_MISMATCH"]);
    // D1 of one company with D6 of another.
    const mixed = await asked(call(
      e,
      "dec1_6",
      {
        year: 2026,
        month: 9,
        dec1FilePath: join(base, "payroll", "EMPL2021.TXT"),
        dec6FilePath: join(e.root, other, "2026-09", "payroll", "NRA62007.TXT"),
      },
      { eik },
      h,
    ));
    equal(mixed.json.errorCode, "FILE_EIK_MISMATCH");
    // Wrong period: another item (the period is part of it), so it asks again; then the check.
    const period = await asked(call(
      e,
      "dec1_6",
      { year: 2026, month: 8, dec1FilePath: join(base, "payroll", "EMPL2021.TXT") },
      { eik },
      h,
    ));
    equal(period.json.errorCode, "FILE_PERIOD_MISMATCH");
    // A malformed D1 is refused with its parse errors.
    const broken = join(e.root, "broken.TXT");
    const good = await Deno.readFile(join(base, "payroll", "EMPL2021.TXT"));
    const text = new TextDecoder("windows-1251").decode(good).replace(/^(\d+),/, "13,");
    await Deno.writeFile(broken, encodeCp1251(text)); // Windows-1251, as the NRA wants
    const bad = await asked(
      call(e, "dec1_6", { year: 2026, month: 9, dec1FilePath: broken }, { eik }, h),
    );
    equal(bad.status, 502);
    equal(bad.json.errorCode, "FILE_PARSE_ERROR", JSON.stringify(bad.json));
    ok(/line 1/.test(bad.json.error), bad.json.error);
    // The VAT return, then each request that asked more: D1/D6 of other paths, the same sent
    // inline, another company's D1, another company's D6, another period, the broken file.
    equal(e.agent.logs.filter((l) => l.msg === "confirmation page opened").length, 7);
  });
});

Deno.test("[e2e] a folder-wide batch over 50 companies files only the token's EIKs with one confirmation", async () => {
  await withEnv(50, async (e) => {
    const chosen = e.eiks.filter((_, i) => i % 10 === 3);
    equal(chosen.length, 5);
    for (const typeId of ["vat_batch", "dec1_6_batch"]) {
      const p = call(e, typeId, { rootFolder: e.root, year: 2026, month: 9 }, { eiks: chosen }, {
        "x-svc-batch-id": crypto.randomUUID(),
      });
      const page = await decideNext(e.agent, "confirm");
      ok(page.html.includes(chosen[0]!), "the page lists the companies");
      const r = await p;
      equal(r.status, 200, JSON.stringify(r.json).slice(0, 500));
      checkSchema(e, typeId, r.json);
      equal(r.json.items.length, 50);
      equal(r.json.submitted, 5);
      equal(r.json.skipped, 45);
      equal(r.json.failed, 0);
      deepStrictEqual(
        r.json.items.filter((i: { outcome: string }) => i.outcome === "submitted").map((
          i: { eik: string },
        ) => i.eik).sort(),
        [...chosen].sort(),
      );
      ok(
        r.json.items.filter((i: { outcome: string }) => i.outcome === "submitted").every((
          i: { result: { success: boolean } },
        ) => i.result.success),
      );
    }
    equal(
      e.agent.logs.filter((l) => l.msg === "confirmation page opened").length,
      2,
      "one dialog per batch",
    );
  });
});

/** "Пример ООД" in CP1251, as printf octal escapes: a folder name that is not valid UTF-8. */
const CP1251_NAME = "\\317\\360\\350\\354\\345\\360 \\316\\316\\304";

Deno.test("[e2e] a company under a folder name that is not UTF-8 is reported as a problem naming its folder, not skipped", async () => {
  await withEnv(3, async (e) => {
    // Move the first company under a CP1251-named folder (raw bytes, as an old archive has).
    const hidden = e.eiks[0]!;
    const mv = await new Deno.Command("sh", {
      args: ["-c", `mv "$1" "$1/../$(printf '${CP1251_NAME}')"`, "sh", join(e.root, hidden)],
    }).output();
    equal(mv.code, 0, new TextDecoder().decode(mv.stderr));
    const undecodable = (problems: { path: string; errorCode: string; error: string }[]) =>
      problems.filter((p) => p.errorCode === "LOCAL_NAME_UNDECODABLE");

    const scan = call(e, "dec1_files_scan", { rootFolder: e.root, year: 2026, month: 9 }, {});
    await decideNext(e.agent, "confirm");
    const r = await scan;
    equal(r.status, 200, JSON.stringify(r.json));
    checkSchema(e, "dec1_files_scan", r.json);
    equal(r.json.totalMatched, 2, "the other companies are scanned");
    const found = undecodable(r.json.problems ?? []);
    equal(found.length, 1, JSON.stringify(r.json.problems));
    ok(found[0]!.path.startsWith(`${e.root}/`), found[0]!.path);
    ok(found[0]!.error.includes(`A folder in ${e.root} `), found[0]!.error);
    ok(found[0]!.error.includes("not scanned"), found[0]!.error);

    // A folder-wide filing says so too: the company listed in the token was not found.
    const batch = call(e, "dec1_6_batch", { rootFolder: e.root, year: 2026, month: 9 }, {
      eiks: e.eiks,
    }, { "x-svc-batch-id": crypto.randomUUID() });
    await decideNext(e.agent, "confirm");
    const b = await batch;
    equal(b.status, 200, JSON.stringify(b.json));
    equal(b.json.submitted, 2);
    ok(String(b.json.error).includes("not valid UTF-8"), b.json.error);
    equal(String(b.json.error).split("not valid UTF-8").length, 2, "reported once");
  });
});
