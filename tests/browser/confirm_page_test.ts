/**
 * The confirmation page in Chromium against the real token service and agent (docs/confirmation.md
 * § Paths as they will really be read, § No website can block the page): a path sent with `..`
 * segments and a right-to-left override is shown resolved, with the hidden character made visible;
 * a web page on another loopback port that loads hundreds of `<img>` of `/confirm/*` gets cheap
 * refusals and spends no budget of the user's page, which — open in three tabs, polling every
 * second — still confirms. What an accountant reads: the declaration's name in Bulgarian and
 * English (never the typeId), the company's name beside its EIK (from the test profile for a path
 * not read yet, from the files for inline D1/D6), the insured persons and contributions of inline
 * D1/D6, the batch's short id and what it allows, a long path wrapping only after its separators,
 * the countdown, the language switch and the agent's icon under the page's CSP. Saves the page
 * screenshot (docs/confirmation.png when SVC_UPDATE_SCREENSHOTS=1 or when it is missing).
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import {
  decide,
  type ExampleEnv,
  pngSize,
  skipBrowser,
  startExampleEnv,
  startForeignServer,
} from "../_helpers/browser.ts";
import { issueToken } from "../_helpers/e2e.ts";
import { companyProfile } from "../../src/mock/mod.ts";
import { parseD1 } from "../../src/formats/mod.ts";
import { fixtureBytes } from "../formats/_helpers.ts";

const EIK = "246824682";
const SCREENSHOT = new URL("../../docs/confirmation.png", import.meta.url);

/** A foreign page loading `n` images of the agent's confirmation URLs (and their state). */
const FLOOD_PAGE = (url: URL) => {
  const agent = url.searchParams.get("agent")!;
  const n = Number(url.searchParams.get("n"));
  const imgs = Array.from(
    { length: n },
    (_, i) => `<img src="${agent}/confirm/x${i % 2 ? "/state" : ""}?i=${i}" width="1" height="1">`,
  );
  return `<!doctype html><title>flood</title><p>A site that floods the agent.</p>${imgs.join("")}`;
};

/** Start a D1 scan of `rootFolder` from a local program (no page origin). */
async function scanD1(env: ExampleEnv, rootFolder: string) {
  const token = await issueToken(env.ts.url, env.key, { typeId: "dec1_files_scan" });
  const res = await fetch(`${env.agent.url}/api/v1/operations/dec1_files_scan`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ rootFolder, year: 2026, month: 9 }),
  });
  return { status: res.status, json: await res.json() };
}

/** Start a `dec1_6` filing, as the example page would (its origin): the files named by
 * `dec1FilePath` on the disk, or given inline; `batchId` is its X-Svc-Batch-Id. */
async function fileDec16(
  env: ExampleEnv,
  input: { dec1FilePath: string } | {
    eik: string;
    month: number;
    files: Record<string, Uint8Array>;
  },
  batchId: string = crypto.randomUUID(),
) {
  const origin = env.example.origin;
  const eik = "eik" in input ? input.eik : EIK;
  const token = await issueToken(env.ts.url, env.key, { typeId: "dec1_6", eik, origin });
  const body = "files" in input
    ? {
      year: 2026,
      month: input.month,
      eik,
      _inlineDir: {
        name: "2026-08",
        files: Object.entries(input.files).map(([path, b]) => ({
          path,
          contentBase64: b.toBase64(),
        })),
      },
    }
    : { year: 2026, month: 9, eik, dec1FilePath: input.dec1FilePath };
  const res = await fetch(`${env.agent.url}/api/v1/operations/dec1_6`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "x-svc-batch-id": batchId,
      origin,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** The characters of the first element matching `selector` (a `code.path`) and the indexes
 * where a new line starts (from each character's box, as laid out); whether it overflows its
 * cell. (In-page code as text: the tests are type-checked without the DOM library.) */
async function lineBreaks(page: Page, selector: string) {
  return await page.evaluate(`(() => {
    const code = document.querySelector(${JSON.stringify(selector)});
    const chars = [];
    const tops = [];
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = n.textContent || "";
      for (let i = 0; i < text.length; i++) {
        const r = document.createRange();
        r.setStart(n, i);
        r.setEnd(n, i + 1);
        chars.push(text[i]);
        const rect = r.getClientRects()[0];
        tops.push(rect ? rect.top : (tops.length ? tops[tops.length - 1] : 0));
      }
    }
    const starts = [];
    for (let i = 1; i < tops.length; i++) if (tops[i] > tops[i - 1] + 2) starts.push(i);
    const box = code.parentElement.getBoundingClientRect();
    const right = Math.max(...[...code.getClientRects()].map((r) => r.right));
    return { text: chars.join(""), starts, overflows: right > box.right + 1 };
  })()`) as { text: string; starts: number[]; overflows: boolean };
}

/** Press the page's language switch and wait for the page in that language. */
export async function switchLanguage(page: Page, lang: "bg" | "en") {
  await page.click("#lang-switch");
  await page.waitForSelector(`html[lang="${lang}"]`);
}

/** The assertions every confirmation page must pass for an accountant: the countdown in the
 * page's one language, the icon under the CSP, no typeId or snake_case among the visible words. */
async function accountantChecks(page: Page, typeId: string, lang: "bg" | "en" = "bg") {
  const count = (await page.innerText("#count")).trim();
  if (lang === "bg") {
    ok(/^Остават \d+ сек\.; след това искането се отказва автоматично\.$/.test(count), count);
    ok(!/[A-Za-z]/.test(count), `the Bulgarian countdown holds no English: ${count}`);
  } else {
    ok(/^Time left: \d+ s; then the request is declined automatically\.$/.test(count), count);
    ok(!/[А-Яа-я]/.test(count), `the English countdown holds no Bulgarian: ${count}`);
  }
  const before = (await page.locator(".countdown").allTextContents()).map(Number);
  equal(before.length, 1);
  // (polled from here: the page's CSP forbids the evaluation waitForFunction needs)
  for (let i = 0; i < 30; i++) {
    const now = (await page.locator(".countdown").allTextContents()).map(Number);
    if (now.every((x) => x < before[0]!)) break;
    await page.waitForTimeout(200);
  }
  const after = (await page.locator(".countdown").allTextContents()).map(Number);
  ok(after.every((x) => x < before[0]!), `the countdown ticks: ${before} → ${after}`);
  // The icon: an inline SVG the page's CSP admits (img-src data:), so no /favicon.ico request.
  const href = await page.getAttribute('link[rel="icon"]', "href");
  ok(href?.startsWith("data:image/svg+xml,"), `the icon: ${href}`);
  const loaded = await page.evaluate(`new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve(img.naturalWidth);
    img.onerror = () => resolve(0);
    img.src = ${JSON.stringify(href)};
  })`) as number;
  ok(loaded > 0, "the icon loads under the page's CSP");
  const body = await page.innerText("body");
  ok(!body.includes(typeId), `the typeId ${typeId} is not on the page`);
  ok(!/\b[a-z]+_[a-z0-9_]+\b/.test(body), `no snake_case word on the page:\n${body}`);
}

/** How Chromium reports the agent's cheap refusal of a cross-site image: the refusal's
 * `Cross-Origin-Resource-Policy: same-origin` blocks it before the page sees a status. */
const REFUSED = "net::ERR_BLOCKED_BY_RESPONSE.NotSameOrigin";

/** Record the outcome of a tab's requests whose URL contains `part`: the status, or the
 * network error of a request that got no usable response. */
function statuses(page: Page, part: string): (number | string)[] {
  const seen: (number | string)[] = [];
  page.on("response", (r) => {
    if (r.url().includes(part)) seen.push(r.status());
  });
  page.on("requestfailed", (r) => {
    if (r.url().includes(part)) seen.push(r.failure()?.errorText ?? "failed");
  });
  return seen;
}

Deno.test({
  name: "[browser] the confirmation page: no website can block it, and it shows what is read",
  ignore: skipBrowser(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const env: ExampleEnv = await startExampleEnv();
    const foreign = startForeignServer({ "/flood": FLOOD_PAGE });
    const home = await Deno.makeTempDir({ prefix: "svc-home-" });
    try {
      await t.step(
        "[browser] a path with `..` segments and a right-to-left override is shown resolved, the override visible",
        async () => {
          const user = join(home, "home", "u");
          await Deno.mkdir(join(user, ".ssh"), { recursive: true });
          // "Documents/‮TXT.exe/../../../../home/u/.ssh": looks like a file in Documents,
          // is the user's .ssh folder.
          const sent = `${user}/Documents/\u202eTXT.exe/../../../../home/u/.ssh`;
          const scan = scanD1(env, sent);
          const page = await env.openConfirmation();
          const text = await page.innerText("body");
          ok(text.includes(`${user}/.ssh`), `the resolved path is shown:\n${text}`);
          ok(text.includes("⟨U+202E⟩"), "the override is made visible");
          ok(!text.includes("\u202e"), "the override itself is not on the page");
          ok(!text.includes("/../") && !text.includes("TXT.exe"), "the raw segments are not shown");
          equal(await page.locator("#paths code.path").count(), 1);
          await decide(page, "decline");
          deepStrictEqual((await scan).json.errorCode, "SENDER_NOT_CHOSEN");
          await page.close();
        },
      );

      await t.step(
        "[browser] the page of a filing from a local file: names, company, batch, wrapping, countdown, icon (screenshot)",
        async () => {
          // Nothing is read before the decision: the folder need not exist for the page.
          const file =
            "/home/maria/Документи/Счетоводство/Клиенти/Огоста ЕООД/Заплати и осигуровки/" +
            "2026/2026-09 септември/Окончателни за подаване/EMPL2021.TXT";
          const batchId = crypto.randomUUID();
          const icons: string[] = [];
          const problems: string[] = [];
          env.browser.context.on("request", (r) => {
            if (r.url().endsWith("/favicon.ico")) icons.push(r.url());
          });
          const filing = fileDec16(env, { dec1FilePath: file }, batchId);
          const page = await env.openConfirmation();
          page.on("console", (m) => {
            if (m.type() === "error") problems.push(m.text());
          });
          const paths = await page.innerText("#paths");
          ok(paths.includes(file), paths);
          equal((await page.textContent("#origin"))?.trim(), env.example.origin);
          // The declaration as accountants say it, in Bulgarian (English on the switch).
          equal(await page.getAttribute("#operations .op", "data-type-id"), "dec1_6");
          equal((await page.innerText("#operations")).trim(), "Декларации обр. 1 и 6");
          // The company's name: the file is not read yet, so the test profile's.
          const company = await page.innerText(`#eiks .company[data-eik="${EIK}"]`);
          equal(
            company.trim(),
            `${EIK} — ${companyProfile(EIK).name} (тестов профил)`,
          );
          equal(await page.getAttribute("#eiks .src", "data-source"), "portal");
          // Nothing read: no figures from the files.
          equal(await page.locator("[data-figure]").count(), 0);
          // The batch: its short id (the full one in the title) and what it allows.
          equal((await page.innerText("#batch")).trim(), batchId.slice(0, 8));
          equal(await page.getAttribute("#batch", "title"), batchId);
          const scope = (await page.innerText("#batch-scope")) + "\n" +
            (await page.innerText("#batch-decline"));
          for (
            const s of [
              "В следващите 10 минути след потвърждението заявките на тази партида",
              "без нов въпрос, от името на избрания подател, само ако повтарят точно показано тук искане",
              "отказва партидата за 10 минути",
            ]
          ) ok(scope.includes(s), `the batch note says "${s}":\n${scope}`);
          ok(!scope.includes("For 10 minutes"), "one language at a time");
          // The long path wraps only after its separators, inside its cell.
          const wrap = await lineBreaks(page, "#paths code.path");
          equal(wrap.text, file, "the <wbr> add no characters");
          ok(wrap.starts.length >= 1, "the long path wraps");
          for (const i of wrap.starts) {
            ok(
              "/\\".includes(wrap.text[i - 1]!),
              `a line starts after a separator: …${wrap.text.slice(i - 5, i + 5)}…`,
            );
          }
          ok(!wrap.overflows, "the path stays inside its cell");
          await accountantChecks(page, "dec1_6");
          await page.waitForSelector("#confirm:enabled");
          const exists = await Deno.stat(SCREENSHOT).then(() => true, () => false);
          const committed = Deno.env.get("SVC_UPDATE_SCREENSHOTS") === "1" || !exists;
          const path = committed
            ? SCREENSHOT.pathname
            : await Deno.makeTempFile({ suffix: ".png" });
          await page.screenshot({ path, fullPage: true });
          equal(pngSize(await Deno.readFile(path)).width, 1280);
          if (!committed) await Deno.remove(path);
          // The switch: the same page in English, still waiting for the decision.
          await switchLanguage(page, "en");
          equal((await page.innerText("#operations")).trim(), "Declarations form 1 and 6");
          equal(
            (await page.innerText(`#eiks .company[data-eik="${EIK}"]`)).trim(),
            `${EIK} — ${companyProfile(EIK).name} (test profile)`,
          );
          const scopeEn = (await page.innerText("#batch-scope")) + "\n" +
            (await page.innerText("#batch-decline"));
          for (
            const s of [
              "For 10 minutes after you confirm, requests of this batch",
              "only when they repeat a request shown here exactly",
              "opens this page again, for what is new only",
              "refuses the batch for 10 minutes",
            ]
          ) ok(scopeEn.includes(s), `the batch note says "${s}":\n${scopeEn}`);
          ok(!/[А-Яа-я]/.test(await page.innerText("#what th")), "the headings in English");
          await accountantChecks(page, "dec1_6", "en");
          await page.waitForSelector("#confirm:enabled");
          const enPath = committed
            ? new URL("../../docs/confirmation-en.png", import.meta.url).pathname
            : await Deno.makeTempFile({ suffix: ".png" });
          await page.screenshot({ path: enPath, fullPage: true });
          if (!committed) await Deno.remove(enPath);
          // Back to Bulgarian: the choice is remembered for the next pages of this browser.
          await switchLanguage(page, "bg");
          await page.waitForSelector("#confirm:enabled");
          await decide(page, "decline");
          equal((await filing).json.errorCode, "SENDER_NOT_CHOSEN");
          deepStrictEqual(icons, [], "the browser asked the agent for no /favicon.ico");
          deepStrictEqual(problems.filter((p) => /Content Security Policy/i.test(p)), []);
          await page.close();
        },
      );

      await t.step(
        "[browser] inline declarations 1 and 6: the employer's name from the D6, insured persons and contributions",
        async () => {
          const d1 = await fixtureBytes("d1/EMPL2021.TXT");
          const d6 = await fixtureBytes("d6/NRA62007.TXT");
          const filing = fileDec16(env, {
            eik: "203456783",
            month: 8,
            files: { "EMPL2021.TXT": d1, "NRA62007.TXT": d6 },
          });
          const page = await env.openConfirmation();
          equal(
            (await page.innerText('#eiks .company[data-eik="203456783"]')).trim(),
            "203456783 — ЕКО ТРЕЙД ООД (от файла)",
          );
          const persons = new Set(parseD1(d1).map((r) => r.personId)).size;
          const figure = async (k: string) =>
            (await page.innerText(`[data-figure="${k}"] td`)).replace(/\s/g, " ").trim();
          equal(await figure("employees"), String(persons));
          // The fixture's D6: DOO 1630.84 + UPF 299.07 + health 596.06 + GVRS 7.47; tax 612.69.
          equal(await figure("contributions"), "2 533,44 EUR");
          equal(await figure("incomeTax"), "612,69 EUR");
          ok((await page.innerText('[data-figure="contributions"] th')).includes(
            "Осигурителни вноски (обр. 6)",
          ));
          await accountantChecks(page, "dec1_6");
          await decide(page, "decline");
          equal((await filing).json.errorCode, "SENDER_NOT_CHOSEN");
          await page.close();
        },
      );
      await t.step(
        "[browser] 260 images from a foreign page neither block nor slow the user's page, open in three polling tabs",
        async () => {
          const flood = await env.browser.context.newPage();
          const refused = statuses(flood, "/confirm/");
          const floodUrl = `${foreign.origin}/flood?n=130&agent=${
            encodeURIComponent(env.agent.url)
          }`;
          await flood.goto(floodUrl, { waitUntil: "load" });
          equal(refused.length, 130, "every image was requested");

          const example = await env.openExample();
          await example.click("#run-first");
          const tabs = [await env.openConfirmation()];
          const url = tabs[0]!.url();
          const polls = [statuses(tabs[0]!, "/state")];
          for (let i = 0; i < 2; i++) {
            const tab = await env.browser.context.newPage();
            polls.push(statuses(tab, "/state"));
            await tab.goto(url);
            await tab.waitForSelector("#confirm");
            tabs.push(tab);
          }
          // The flood again, while the three tabs poll.
          await flood.reload({ waitUntil: "load" });
          equal(refused.length, 260);
          await tabs[0]!.waitForTimeout(3_500);
          for (const p of polls) {
            ok(p.length >= 2, `each tab polls: ${p.length}`);
            ok(p.every((s) => s === 200), `the page's polling is never limited: ${p}`);
          }
          await decide(tabs[1]!, "confirm");
          const result = await example.waitForSelector(
            "#result-first:not([data-state=pending]):not([data-state=idle])",
            { timeout: 20_000 },
          );
          equal(await result.getAttribute("data-state"), "ok");
          // Every image got the cheap refusal.
          ok(refused.every((s) => s === REFUSED), `cross-site refusals: ${[...new Set(refused)]}`);
          // The other two tabs reload themselves when they see the decision (the page polls its
          // state each second). Close them only once that reload has replaced the form: a close
          // that races a navigation's commit can be acknowledged and never done by Chromium
          // (crbug.com/536385539), and page.close() then waits forever.
          for (const tab of tabs) await tab.waitForSelector("#decision", { state: "detached" });
          for (const tab of tabs) await tab.close();
          await flood.close();
          await example.close();
        },
      );
    } finally {
      await foreign.close();
      await env.stop();
      await Deno.remove(home, { recursive: true }).catch(() => {});
    }
  },
});
