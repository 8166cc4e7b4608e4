/**
 * What an accountant and an integrator do, with the win-x64 package under Wine:
 * - the demo through `svc-filing.cmd demo`: its examples are PowerShell; a token, a test-mode
 *   operation, a filing whose confirmation page is opened in Chromium and confirmed there, and
 *   the filing on the console's Filings page (Chromium, through the one-time link);
 * - local input on Windows paths: backslashes and `/`, another drive letter (D:), Cyrillic
 *   folder and file names (a D1 file filed by its path), a path longer than 260 characters, CP1251 files with CRLF line ends; the scan
 *   results carry Windows paths, which the same agent accepts back (`vat_files_parse`); a
 *   folder of 300 companies for one `vat_batch`;
 * - `kill -9` of deno.exe in the middle of a filing (held after it was sent), then a restart
 *   through the launcher that keeps the journal: the filing is there once, and reconciled.
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { decide, launchChromium, skipBrowser } from "../_helpers/browser.ts";
import { createKeyCli, issueToken, startTokenService } from "../_helpers/e2e.ts";
import { writeCompanyTree } from "../_helpers/company_tree.ts";
import {
  skipWithoutWine,
  waitFor,
  type WineMachine,
  wineMachine,
  type WineProcess,
} from "../_helpers/wine.ts";

const ignore = skipWithoutWine("Windows flows under Wine") || skipBrowser();
let machine: WineMachine | null = null;
const m = async () => machine ??= await wineMachine();

/** The demo under Wine, started once for the file. */
interface WineDemo {
  readonly proc: WineProcess;
  readonly printed: Record<string, string>;
  readonly out: string;
  readonly tokenUrl: string;
  readonly agentUrl: string;
  readonly key: string;
}
let demo: WineDemo | null = null;
async function startDemo(mm: WineMachine): Promise<WineDemo> {
  if (demo) return demo;
  const proc = mm.spawn(["demo", "--data-dir", "C:\\demo"], {
    SVC_OPEN_BROWSER: "never",
    SVC_AGENT_PORT: "0",
  });
  await proc.child.stdin.close();
  await waitFor("the demo's test key", async () => /^Test key: /m.test(await proc.stdout()), 90_000)
    .catch(async (e) => {
      throw new Error(`${e.message}\n${await proc.stdout()}\n${await proc.stderr()}`);
    });
  await waitFor("the demo's examples", async () => /OpenAPI: /.test(await proc.stdout()));
  const out = await proc.stdout();
  const printed: Record<string, string> = {};
  for (const l of out.split(/\r?\n/)) {
    const mm2 = /^([A-Z][^:]*): (\S+)/.exec(l);
    if (mm2) printed[mm2[1]!] = mm2[2]!;
  }
  demo = {
    proc,
    printed,
    out,
    tokenUrl: printed["Token service"]!,
    agentUrl: printed.Agent!,
    key: printed["Test key"]!,
  };
  return demo;
}

/** Confirmation pages the agent logged (its JSON log lines on stderr), oldest first. */
async function pageUrls(p: WineProcess): Promise<string[]> {
  const urls: string[] = [];
  for (const line of (await p.stderr()).split(/\r?\n/)) {
    if (!line.includes("confirmation page opened")) continue;
    try {
      const u = JSON.parse(line).url;
      if (typeof u === "string") urls.push(u);
    } catch { /* not a log line */ }
  }
  return urls;
}

/** Confirm the next new confirmation page over HTTP, as its form would. */
async function confirmNext(p: WineProcess, done: Set<string>): Promise<void> {
  let url = "";
  await waitFor("a confirmation page", async () => {
    url = (await pageUrls(p)).find((u) => !done.has(u)) ?? "";
    return url !== "";
  }, 60_000);
  done.add(url);
  for (let attempt = 0; attempt < 20; attempt++) {
    const html = await (await fetch(url)).text();
    const form = new URLSearchParams({
      seen: /name="seen" id="seen" value="(\d+)"/.exec(html)![1]!,
      nonce: /name="nonce" value="([^"]+)"/.exec(html)![1]!,
      decision: "confirm",
      senderId: /name="senderId" value="([^"]+)" checked/.exec(html)?.[1] ?? "",
    });
    const res = await fetch(`${url}/decision`, {
      method: "POST",
      redirect: "manual",
      headers: {
        origin: new URL(url).origin,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: form,
    });
    await res.body?.cancel();
    if (res.status === 303) continue;
    assert.equal(res.status, 200);
    return;
  }
  throw new Error(`the confirmation page ${url} kept changing`);
}

/** POST an operation with a fresh token. */
async function operation(
  d: WineDemo,
  typeId: string,
  body: Record<string, unknown>,
  scope: Record<string, unknown> = {},
  batch: string = crypto.randomUUID(),
): Promise<{ status: number; json: Record<string, unknown> }> {
  const token = await issueToken(d.tokenUrl, d.key, { typeId, ...scope });
  const res = await fetch(`${d.agentUrl}/api/v1/operations/${typeId}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "x-svc-batch-id": batch,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const confirmed = new Set<string>();

Deno.test({
  name:
    "[wine] the demo: PowerShell examples, a token, an operation, a filing confirmed in Chromium and shown on the console's Filings page",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const mm = await m();
    const d = await startDemo(mm);
    // The printed instructions run where they are printed: PowerShell on Windows.
    assert.match(
      d.out,
      /^\$t=\(Invoke-RestMethod -Method Post -Uri http:\/\/127\.0\.0\.1:\d+\/api\/v1\/tokens\/issue/m,
    );
    assert.match(d.out, /\[guid\]::NewGuid\(\)/);
    assert.doesNotMatch(d.out, /curl |\/proc\/sys|uuidgen/);
    assert.match(d.printed["Data folder"]!, /^C:\\demo$/);

    const catalog = await operation(d, "nap_catalog", { filter: "ДДС" });
    assert.equal(catalog.status, 200, JSON.stringify(catalog.json));
    assert.equal(catalog.json.status, "ok");

    // A filing in test mode: the agent opens its confirmation page; Chromium confirms it.
    const eik = "121212121";
    const chromium = await launchChromium();
    try {
      const filing = operation(d, "dec731", { eik, year: 2025 }, { eik });
      let url = "";
      await waitFor("the confirmation page", async () => {
        url = (await pageUrls(d.proc)).find((u) => !confirmed.has(u)) ?? "";
        return url !== "";
      }, 60_000);
      confirmed.add(url);
      const page = await chromium.context.newPage();
      await page.goto(url);
      await decide(page, "confirm");
      const r = await filing;
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.equal(r.json.success, true, JSON.stringify(r.json));
      // The console, opened through its one-time link: the filing is on the Filings page.
      const console = await chromium.context.newPage();
      await console.goto(d.printed["Console (one-time link, 10 minutes)"]!);
      await console.click("#nav-filings");
      await console.waitForSelector("#filings");
      const text = (await console.textContent("#filings")) ?? "";
      assert.ok(text.includes(eik), text);
      assert.equal(await console.locator("#filings tr[data-state=filed]").count(), 1);
    } finally {
      await chromium.close();
    }
  },
});

Deno.test({
  name:
    "[wine] local input on Windows paths: \\ and /, D:, Cyrillic, over 260 characters, CP1251 + CRLF; scan paths accepted back; 300 companies in one batch",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const mm = await m();
    const d = await startDemo(mm);
    const year = 2026;
    const month = 9;
    // C:\Счетоводство\Клиенти 2026 (Cyrillic, a space), D:\Архив (another drive), and a path
    // longer than 260 characters.
    const cyr = "C:\\Счетоводство\\Клиенти 2026";
    const eiksC = await writeCompanyTree(mm.unixPath(cyr), 2, year, month);
    const dDrive = join(mm.prefix, "..", "d-drive");
    await Deno.mkdir(dDrive, { recursive: true });
    await Deno.symlink(dDrive, join(mm.prefix, "dosdevices", "d:"));
    const eiksD = await writeCompanyTree(join(dDrive, "Архив"), 1, year, month, 21_000_000);
    const long = "C:\\" + Array.from({ length: 9 }, (_, i) => `Много дълга папка с документи ${i}`)
      .join("\\");
    assert.ok(long.length > 260, `${long.length}`);
    const eiksL = await writeCompanyTree(mm.unixPath(long), 1, year, month, 22_000_000);

    // The files are CP1251 with CRLF line ends, as NRA's programs write them.
    const deklar = join(mm.unixPath(cyr), eiksC[0]!, `${year}-09`, "vat", "DEKLAR.TXT");
    const bytes = await Deno.readFile(deklar);
    assert.ok(bytes.some((b) => b >= 0xc0), "CP1251 Cyrillic bytes");
    assert.ok(new TextDecoder().decode(bytes).includes("\r\n"), "CRLF");

    const scan = async (rootFolder: string) => {
      const r = await Promise.all([
        operation(d, "vat_files_scan", { rootFolder, year, month }),
        confirmNext(d.proc, confirmed),
      ]);
      assert.equal(r[0].status, 200, JSON.stringify(r[0].json));
      return r[0].json as { status: string; files: { path: string; folder: string }[] };
    };
    const back = await scan(cyr);
    assert.equal(back.status, "ok");
    assert.equal(back.files.length, 2, JSON.stringify(back));
    for (const it of back.files) assert.match(it.path, /^C:\\Счетоводство\\Клиенти 2026\\/);
    const slash = await scan(cyr.replaceAll("\\", "/"));
    assert.equal(slash.files.length, 2, JSON.stringify(slash));
    const onD = await scan("D:\\Архив");
    assert.equal(onD.files.length, 1, JSON.stringify(onD));
    assert.match(onD.files[0]!.path, /^D:\\Архив\\/);
    // Past 260 characters the walk finds the file and names it whole; opening it is where Wine 8
    // stops: Deno's permission check on open (the launcher grants each permission, not -A)
    // asks GetFinalPathNameByHandleW for the file's name, and Wine 8 answers ERROR_MORE_DATA
    // (234) past MAX_PATH, where Windows returns the name (docs/install.md, "What Wine cannot
    // show"). The reading itself is the same code as for every other path above.
    const onLong = (await scan(long)) as Awaited<ReturnType<typeof scan>> & {
      totalScanned: number;
      problems?: { path: string; error: string }[];
    };
    assert.equal(onLong.totalScanned, 1, JSON.stringify(onLong));
    const longFile = onLong.files[0]?.path ?? onLong.problems?.[0]?.path ?? "";
    assert.ok(longFile.startsWith(long + "\\") && longFile.length > 260, JSON.stringify(onLong));
    if (onLong.files.length === 0) {
      assert.match(onLong.problems![0]!.error, /More data available\. \(os error 234\)/);
    }
    void eiksD;
    void eiksL;

    // A path from the scan goes back to the same agent: the folder of one company's VAT files.
    const folder = back.files[0]!.folder;
    assert.match(folder, /^C:\\Счетоводство\\Клиенти 2026\\/);
    const [parsed] = await Promise.all([
      operation(d, "vat_files_parse", { directory: folder }),
      confirmNext(d.proc, confirmed),
    ]);
    assert.equal(parsed.status, 200, JSON.stringify(parsed.json));
    assert.equal(parsed.json.status, "ok", JSON.stringify(parsed.json));

    // A D1 file under a Cyrillic file name, filed by its Windows path.
    const payroll = join(mm.unixPath(cyr), eiksC[0]!, `${year}-09`, "payroll");
    const d1 = [...Deno.readDirSync(payroll)].find((e) => /^EMPL/i.test(e.name))!.name;
    const cyrName = "Декларация 1 за септември.TXT";
    await Deno.copyFile(join(payroll, d1), join(payroll, cyrName));
    const d1Path = `${cyr}\\${eiksC[0]}\\${year}-09\\payroll\\${cyrName}`;
    const [filed] = await Promise.all([
      operation(
        d,
        "dec1_6",
        { eik: eiksC[0], year, month, dec1FilePath: d1Path },
        { eik: eiksC[0] },
      ),
      confirmNext(d.proc, confirmed),
    ]);
    assert.equal(filed.status, 200, JSON.stringify(filed.json));
    assert.equal(filed.json.success, true, JSON.stringify(filed.json));

    // 300 companies in one folder, filed by one vat_batch.
    const big = "C:\\Счетоводство\\300 фирми";
    const eiks = await writeCompanyTree(mm.unixPath(big), 300, year, month, 30_000_000);
    assert.equal(eiks.length, 300);
    const [batch] = await Promise.all([
      operation(d, "vat_batch", { rootFolder: big, year, month }, { eiks }),
      confirmNext(d.proc, confirmed),
    ]);
    assert.equal(batch.status, 200, JSON.stringify(batch.json).slice(0, 2000));
    assert.equal(batch.json.status, "ok", JSON.stringify(batch.json).slice(0, 2000));
    assert.equal(batch.json.submitted, 300, JSON.stringify(batch.json).slice(0, 2000));
  },
});

Deno.test({
  name: "[wine] kill -9 of deno.exe during a filing, then a restart that keeps the journal",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const mm = await m();
    const tsDir = await Deno.makeTempDir({ prefix: "svc-wine-ts-" });
    const ts = await startTokenService(tsDir);
    try {
      const key = await createKeyCli(tsDir, "test");
      const winData = "C:\\crash-data";
      const env = {
        SVC_DATA_DIR: winData,
        SVC_OPEN_BROWSER: "never",
        SVC_AGENT_PORT: "0",
        SVC_TOKEN_SERVICE_URL: ts.url,
      };
      const start = async (extra: Record<string, string> = {}) => {
        const p = mm.spawn([], { ...env, ...extra });
        await p.child.stdin.close();
        await waitFor(
          "the agent ready",
          async () => /^Agent ready: /m.test(await p.stdout()),
          60_000,
        );
        return { p, url: /^Agent: (http\S+)/m.exec(await p.stdout())![1]! };
      };
      const a = await start({ SVC_TEST_HOLD_AT: "after_send" });
      const eik = "121212121";
      const d: WineDemo = {
        proc: a.p,
        printed: {},
        out: "",
        tokenUrl: ts.url,
        agentUrl: a.url,
        key,
      };
      const seen = new Set<string>();
      const filing = operation(d, "dec731", { eik, year: 2025 }, { eik }).catch((e) => e);
      await confirmNext(a.p, seen);
      // Held after it was sent: the journal has it as sent; now the process dies.
      await waitFor(
        "the filing held after it was sent",
        async () => (await a.p.stderr()).includes("journal hold"),
        30_000,
      );
      const pids = await mm.denoPids();
      assert.ok(pids.length > 0);
      for (const pid of pids) Deno.kill(pid, "SIGKILL");
      await a.p.child.status;
      assert.ok((await filing) instanceof Error, "the request died with the agent");
      // The restart: the lock of the dead process is taken over, the journal kept and reconciled.
      const b = await start();
      const list = await mm.cli(["journal", "list", "--json"], { env });
      assert.equal(list.code, 0, list.stdout + list.stderr);
      const rows = JSON.parse(list.stdout) as { eik: string; state: string }[];
      const ours = rows.filter((r) => r.eik === eik);
      assert.equal(ours.length, 1, list.stdout);
      assert.equal(ours[0]!.state, "filed", list.stdout);
      for (const pid of await mm.denoPids()) Deno.kill(pid, "SIGINT");
      assert.equal((await b.p.child.status).code, 0);
    } finally {
      await ts.stop();
      await Deno.remove(tsDir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "[wine] stop the demo and close the Wine prefix (flows)",
  ignore,
  sanitizeResources: false,
  async fn() {
    if (demo && machine) {
      for (const pid of await machine.denoPids()) Deno.kill(pid, "SIGINT");
      await demo.proc.child.status;
    }
    await machine?.close();
  },
});
