/**
 * Live mode: the PIN is asked only after the files named by a disk path were read and checked
 * (docs/confirmation.md § Two steps). The NRA simulator, a token service and the agent as real
 * programs; the sender's key in a PKCS#12 file. A wrong file (the D6 named as the D1, another
 * company's files): the page asks only the consent, the answer is the check's PARAMETER error,
 * the page says so in words, no PIN step ever opens and the simulator sees nothing. The right
 * files: consent, then the PIN step showing what was read, then filed. Declining the PIN step
 * refuses the batch as a decline does.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { skipUnless } from "../_helpers/require_tool.ts";
import { validEik } from "../_helpers/company_tree.ts";
import { afterConsent, decideOn, SENDER_ID, startLiveWorld } from "../_helpers/live_agent.ts";
import { join } from "node:path";

const PAGE = "confirmation page opened";

Deno.test({
  name: "[e2e] live: a disk path's file is checked before any PIN is asked; the PIN step follows",
  ignore: skipUnless(["openssl"], "live-mode end-to-end tests"),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const w = await startLiveWorld();
    const [eik, other] = [validEik(30_200_000), validEik(30_200_137)];
    const pages = () => w.agent.logs.filter((l) => l.msg === PAGE).length;
    /** Confirm the next page's consent (it must ask no PIN); returns its URL. */
    const consent = async () => {
      const url = String((await w.agent.waitLog(PAGE, 20_000)).url);
      const html = await (await fetch(url)).text();
      ok(!html.includes('name="pin"'), "the consent page has no PIN field");
      ok(html.includes('id="pin-later"'), "the consent page says the PIN comes after the check");
      ok(html.includes('data-step="consent"'));
      const res = await fetch(`${url}/decision`, {
        method: "POST",
        headers: {
          origin: new URL(url).origin,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: JSON.stringify({
          decision: "confirm",
          senderId: SENDER_ID,
          nonce: /name="nonce" value="([^"]+)"/.exec(html)![1]!,
          seen: Number(/name="seen" id="seen" value="(\d+)"/.exec(html)![1]!),
          // A PIN sent with the consent is not taken: the files are not checked yet.
          pin: "p12-pin",
        }),
      });
      equal(res.status, 200);
      deepStrictEqual(await res.json(), { decision: "confirm", next: new URL(url).pathname });
      return url;
    };
    try {
      const right = await w.payroll(eik);
      const theirs = await w.payroll(other);
      const wrongs: [string, Record<string, string>, string, number][] = [
        [
          "the D6 named as the D1 and the D1 as the D6",
          { dec1FilePath: right.dec6FilePath, dec6FilePath: right.dec1FilePath },
          "FILE_KIND_MISMATCH",
          502,
        ],
        [
          "the company's D1 beside another company's D6",
          { dec1FilePath: right.dec1FilePath, dec6FilePath: theirs.dec6FilePath },
          "FILE_EIK_MISMATCH",
          502,
        ],
        ["another company's D1 and D6", theirs, "TOKEN_EIK_MISMATCH", 401],
      ];
      for (const [what, paths, code, status] of wrongs) {
        await t.step(`${what}: ${code}, no PIN asked, the page says why`, async () => {
          const before = pages();
          const pending = w.file("dec1_6", eik, { year: 2026, month: 9, ...paths }, {
            "x-svc-batch-id": crypto.randomUUID(),
          });
          const url = await consent();
          const after = await afterConsent(url);
          deepStrictEqual(after, { checking: 0, failed: 1, passed: 0, next: null });
          const r = await pending;
          deepStrictEqual(
            [r.status, r.json.errorCode, r.json.errorKind],
            [status, code, "PARAMETER"],
            JSON.stringify(r.json),
          );
          const shown = await (await fetch(url)).text();
          ok(shown.includes(`data-error-code="${code}"`), shown);
          ok(shown.includes("ПИН код не е поискан"), "the page says no PIN was asked");
          // The same page in English (the language switch's cookie).
          const english = await (await fetch(url, { headers: { cookie: "svc_lang=en" } })).text();
          ok(english.includes("no PIN was asked"), "and in English on the switch");
          ok(!shown.includes('name="pin"'));
          equal(pages(), before + 1, "no page opened for a PIN");
          deepStrictEqual(
            [w.sim.stats.tokenRequests, w.sim.stats.submitCalls, w.sim.received.length],
            [0, 0, 0],
            "the simulator saw nothing",
          );
        });
      }

      await t.step("declining the PIN step refuses the batch; nothing is sent", async () => {
        const batch = crypto.randomUUID();
        const pending = w.file("dec1_6", eik, { year: 2026, month: 9, ...right }, {
          "x-svc-batch-id": batch,
        });
        const url = await consent();
        const after = await afterConsent(url);
        ok(after.next, JSON.stringify(after));
        const step = new URL(after.next, url).href;
        const html = await (await fetch(step)).text();
        ok(html.includes('name="pin"'));
        const res = await fetch(`${step}/decision`, {
          method: "POST",
          headers: {
            origin: new URL(url).origin,
            "content-type": "application/json",
            accept: "application/json",
          },
          body: JSON.stringify({
            decision: "decline",
            nonce: /name="nonce" value="([^"]+)"/.exec(html)![1]!,
          }),
        });
        equal(res.status, 200, await res.text());
        const r = await pending;
        deepStrictEqual([r.status, r.json.errorCode], [502, "SENDER_NOT_CHOSEN"]);
        const again = await w.file("dec1_6", eik, { year: 2026, month: 9, ...right }, {
          "x-svc-batch-id": batch,
        });
        equal(again.json.errorCode, "SENDER_NOT_CHOSEN", "the batch stays refused");
        equal(w.sim.stats.submitCalls, 0);
      });

      await t.step(
        "the right files: consent, the PIN step showing what was read, filed",
        async () => {
          const batch = crypto.randomUUID();
          const pending = w.file("dec1_6", eik, { year: 2026, month: 9, ...right }, {
            "x-svc-batch-id": batch,
          });
          const url = await consent();
          const after = await afterConsent(url);
          deepStrictEqual({ ...after, next: !!after.next }, {
            checking: 0,
            failed: 0,
            passed: 1,
            next: true,
          });
          // The consent page itself moves on to the PIN step.
          const moved = await fetch(url, { redirect: "manual" });
          await moved.body?.cancel();
          deepStrictEqual([moved.status, moved.headers.get("location")], [303, after.next]);
          const step = new URL(after.next!, url).href;
          const html = await (await fetch(step)).text();
          ok(html.includes('data-step="pin"'));
          ok(html.includes('name="pin"'));
          ok(html.includes(eik), "the PIN step shows the company");
          ok(html.includes("2026-09"), "and the period");
          ok(html.includes("EMPL2021.TXT") && html.includes("NRA62007.TXT"), "and the files read");
          ok(html.includes('data-figure="employees"'), "and what the files declare");
          await decideOn(step, html, SENDER_ID, "p12-pin");
          const r = await pending;
          equal(r.json.success, true, JSON.stringify(r.json));
          equal(w.sim.stats.submitCalls, 1);
          // The batch's PIN serves its next request: no page at all.
          const before = pages();
          const again = await w.file("dec1_6", eik, { year: 2026, month: 9, ...right }, {
            "x-svc-batch-id": batch,
            "idempotency-key": crypto.randomUUID(),
          });
          ok(
            again.status === 200 || again.json.errorCode === "FILING_DUPLICATE",
            JSON.stringify(again.json),
          );
          equal(pages(), before, "a request inside the batch asks nothing");
        },
      );
      await t.step("folder-wide: the PIN step comes after the folder was read", async () => {
        const third = validEik(30_200_274);
        await w.payroll(third);
        const batchFile = async (eiks: string[]) =>
          (await w.file("dec1_6_batch", eiks, {
            rootFolder: join(w.dir, "clients"),
            year: 2026,
            month: 9,
          }, { "x-svc-batch-id": crypto.randomUUID() })).json;
        // No listed company in the folder: nothing to sign, no PIN asked.
        const none = batchFile([validEik(30_200_411)]);
        const url = await consent();
        const after = await afterConsent(url);
        deepStrictEqual(after, { checking: 0, failed: 0, passed: 1, next: null });
        const empty = await none;
        equal(
          (empty.items as { outcome: string }[] | undefined)?.filter((i) => i.outcome === "filed")
            .length ?? 0,
          0,
        );
        // A listed company found: its files on the PIN step, then filed.
        const calls = w.sim.stats.submitCalls;
        const pending = batchFile([third]);
        const url2 = await consent();
        const after2 = await afterConsent(url2);
        ok(after2.next, JSON.stringify(after2));
        const step = new URL(after2.next, url2).href;
        const html = await (await fetch(step)).text();
        const text = html.replace(/<[^>]+>/g, "");
        ok(text.includes(`${third}/2026-09/EMPL2021.TXT`), "the files read are on the PIN step");
        await decideOn(step, html, SENDER_ID, "p12-pin");
        const b = await pending;
        equal(b.submitted, 1, JSON.stringify(b));
        equal(w.sim.stats.submitCalls, calls + 1);
      });
    } finally {
      await w.stop();
    }
  },
});
