/**
 * Live refusals before any confirmation page or PIN (docs/live-portal.md § Before the page), end to
 * end: the real token service and agent as subprocesses, the NRA simulator over HTTPS, senders on a
 * SoftHSM2 token (an expired RSA certificate under id 01, a valid EC one under id 02) and in
 * PKCS#12 files (with and without `certificateFile`). Live `vat`, `vat_batch` and `vat_result` are
 * PORTAL_OPERATION_UNSUPPORTED; a sender whose certificate (read without the PIN) has expired is
 * CERTIFICATE_INVALID and never offered; an expired pre-issued portal token is PORTAL_AUTH_FAILED —
 * each with no page opened and nothing sent. Result operations sign nothing: their page asks for no
 * PIN (the PKCS#12 case without `certificateFile` is in tests/agent/senders_precheck_test.ts).
 */
import { equal, fail, ok } from "node:assert/strict";
import { join } from "node:path";
import { SignJWT } from "jose";
import { SIM_CLIENT, SIM_SCOPES, startNraSimulator } from "../_helpers/nra_simulator.ts";
import { makeCert, pem, TEST_PERSONAL_ID, writePkcs12, writeTestPki } from "../_helpers/pki.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import { writeCompanyTree } from "../_helpers/company_tree.ts";
import { afterConsent, decideOn } from "../_helpers/live_agent.ts";
import {
  createKeyCli,
  issueToken,
  type Proc,
  startAgent,
  startTokenService,
} from "../_helpers/e2e.ts";
import { createSoftHsmToken, TOKEN_PIN } from "../signing/softhsm_fixture.ts";

const ignore = skipUnless(
  ["openssl", "softhsm2-util", "pkcs11-tool"],
  "live refusals end-to-end tests",
);

const PAGE = "confirmation page opened";
const pagesOpened = (agent: Proc) => agent.logs.filter((l) => l.msg === PAGE).length;

/** Read the next confirmation page and decide on it (typing `pin` when given). */
async function onNextPage(
  agent: Proc,
  decision: "confirm" | "decline",
  senderId: string,
  pin?: string,
): Promise<string> {
  const url = String((await agent.waitLog(PAGE, 20_000)).url);
  const html = await (await fetch(url)).text();
  const res = await fetch(`${url}/decision`, {
    method: "POST",
    headers: { origin: new URL(url).origin, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      seen: /name="seen" id="seen" value="(\d+)"/.exec(html)![1]!,
      nonce: /name="nonce" value="([^"]+)"/.exec(html)![1]!,
      decision,
      senderId,
      ...(pin ? { pin } : {}),
    }),
  });
  await res.body?.cancel();
  equal(res.status, 200);
  return html;
}

type Answer = { status: number; json: Record<string, unknown> };

/**
 * Expect a refusal with `code` and no confirmation page. Should a page open instead (the old
 * behaviour), it is declined so the request ends, and the test fails.
 */
async function refusedBeforePage(agent: Proc, pending: Promise<Answer>, code: string) {
  const before = pagesOpened(agent);
  let waiting = true;
  const page = (async () => {
    while (waiting && pagesOpened(agent) === before) await new Promise((r) => setTimeout(r, 20));
    return waiting ? "page" as const : null;
  })();
  const first = await Promise.race([pending, page]);
  waiting = false;
  if (first === "page") {
    const senderId = /name="senderId" value="([^"]+)"/.exec(
      await (await fetch(String(agent.logs.filter((l) => l.msg === PAGE).at(-1)!.url))).text(),
    )?.[1] ?? "";
    await onNextPage(agent, "decline", senderId);
    fail(`a confirmation page was opened before the refusal: ${JSON.stringify(await pending)}`);
  }
  const r = first as Answer;
  equal(r.status, 502, JSON.stringify(r.json));
  equal(r.json.errorCode, code, JSON.stringify(r.json));
  equal(pagesOpened(agent), before, "no confirmation page was opened");
  return r.json;
}

Deno.test({
  name:
    "[e2e] live refusals come before any confirmation page or PIN; result operations ask for no PIN",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "svc-live-refusals-" });
    const pki = await writeTestPki(await Deno.makeTempDir({ dir, prefix: "pki-" }));
    // An expired signer (same holder), put on the token under id 01 in place of the valid RSA.
    const day = 86_400_000;
    const old = await makeCert({
      subject: `CN=Ivan Petrov old, 2.5.4.5=${TEST_PERSONAL_ID}, C=BG`,
      issuer: pki.ca,
      notBefore: new Date(Date.now() - 800 * day),
      notAfter: new Date(Date.now() - 2 * day),
    });
    const oldFiles = {
      cert: old,
      certPem: join(pki.dir, "old.cert.pem"),
      certDer: join(pki.dir, "old.cert.der"),
      keyPem: join(pki.dir, "old.key.pem"),
    };
    await Deno.writeTextFile(oldFiles.certPem, pem("CERTIFICATE", old.der));
    await Deno.writeFile(oldFiles.certDer, old.der);
    const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", old.keys.privateKey));
    await Deno.writeTextFile(oldFiles.keyPem, pem("PRIVATE KEY", pkcs8));
    const hsm = await createSoftHsmToken({ ...pki, rsa: oldFiles }, join(dir, "hsm"));
    const p12 = async (name: string, certPem: string, keyPem: string) => {
      return await writePkcs12({ certPem, keyPem }, join(dir, `${name}.p12`), "p12-pin");
    };
    const p12Valid = await p12("valid", pki.rsa.certPem, pki.rsa.keyPem);
    const p12Old = await p12("old", oldFiles.certPem, oldFiles.keyPem);
    const expiredJwt = await new SignJWT({ scope: [SIM_SCOPES.test] })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode("k".repeat(32)));

    await using sim = await startNraSimulator({
      recognised: "any",
      powerOfAttorney: "any",
      accessTokens: { [expiredJwt]: Object.values(SIM_SCOPES) },
    });
    const caFile = join(dir, "sim-ca.pem");
    await Deno.writeTextFile(caFile, sim.caPem);
    const pkcs11 = (certId: string) => ({
      type: "pkcs11",
      module: hsm.module,
      tokenLabel: "test",
      certId,
    });
    const agentDir = async (name: string, senders: unknown[], portal: Record<string, unknown>) => {
      const d = join(dir, name);
      await Deno.mkdir(d);
      await Deno.writeTextFile(
        join(d, "agent.json"),
        JSON.stringify({
          senders,
          portal: { baseUrl: sim.url, environment: "test", caFile, ...portal },
        }),
      );
      return d;
    };
    const credentials = { clientId: SIM_CLIENT.id, clientSecret: SIM_CLIENT.secret };
    const senders = [
      { id: "hsm-old", displayName: "Иван Петров (изтекъл)", keystore: pkcs11("id=01") },
      { id: "hsm-ec", displayName: "Иван Петров (SoftHSM EC)", keystore: pkcs11("id=02") },
      {
        id: "p12-cf",
        displayName: "Иван Петров (PKCS#12 + сертификат)",
        keystore: { type: "pkcs12", file: p12Valid, certificateFile: pki.rsa.certPem },
      },
      {
        id: "p12-old",
        displayName: "Иван Петров (PKCS#12 изтекъл)",
        keystore: { type: "pkcs12", file: p12Old, certificateFile: oldFiles.certDer },
      },
    ];
    const tree = join(dir, "clients");
    const [eik, eik2] = await writeCompanyTree(tree, 2, 2026, 9);
    const base = join(tree, eik!, "2026-09");
    const ts = await startTokenService(join(dir, "ts"));
    const agent = await startAgent(await agentDir("agent", senders, credentials), ts.url, hsm.env);
    const stale = await startAgent(
      await agentDir("stale", senders.slice(1, 2), { accessToken: expiredJwt }),
      ts.url,
      hsm.env,
    );
    const nothingSent = () =>
      equal(
        JSON.stringify(sim.stats),
        JSON.stringify({ tokenRequests: 0, submitCalls: 0, resultCalls: 0 }),
      );
    try {
      const key = await createKeyCli(join(dir, "ts"), "live");
      const call = async (
        to: Proc,
        typeId: string,
        body: unknown,
        headers: Record<string, string>,
        claims: Record<string, unknown> = { eik },
      ): Promise<Answer> => {
        const token = await issueToken(ts.url, key, { typeId, ...claims });
        const r = await fetch(`${to.url}/api/v1/operations/${typeId}`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "x-svc-batch-id": crypto.randomUUID(),
            ...headers,
          },
          body: JSON.stringify(body),
        });
        return { status: r.status, json: await r.json() };
      };
      const dec16 = {
        year: 2026,
        month: 9,
        dec1FilePath: join(base, "payroll", "EMPL2021.TXT"),
        dec6FilePath: join(base, "payroll", "NRA62007.TXT"),
      };

      await t.step(
        "live vat, vat_batch and vat_result are PORTAL_OPERATION_UNSUPPORTED before any page",
        async () => {
          const sender = { "x-svc-sender-id": "hsm-ec" };
          // A real folder and one that does not exist answer alike: nothing was read.
          for (const folder of [join(base, "vat"), join(dir, "no-such-folder")]) {
            const vat = await refusedBeforePage(
              agent,
              call(agent, "vat", { eik, year: 2026, month: 9 }, {
                ...sender,
                "x-svc-file-path": folder,
              }),
              "PORTAL_OPERATION_UNSUPPORTED",
            );
            equal((vat.details as { typeId: string }).typeId, "vat");
          }
          for (const rootFolder of [tree, join(dir, "no-such-tree")]) {
            const batch = await refusedBeforePage(
              agent,
              call(agent, "vat_batch", { rootFolder, year: 2026, month: 9 }, sender, {
                eiks: [eik, eik2],
              }),
              "PORTAL_OPERATION_UNSUPPORTED",
            );
            equal((batch.details as { typeId: string }).typeId, "vat_batch");
          }
          await refusedBeforePage(
            agent,
            call(agent, "vat_result", { eik, documentId: "1" }, sender),
            "PORTAL_OPERATION_UNSUPPORTED",
          );
          nothingSent();
        },
      );

      await t.step(
        "a requested sender with an expired certificate is CERTIFICATE_INVALID before the page (PKCS#11 without PIN, certificateFile)",
        async () => {
          for (const id of ["hsm-old", "p12-old"]) {
            const e = await refusedBeforePage(
              agent,
              call(agent, "dec1_6", dec16, { "x-svc-sender-id": id }),
              "CERTIFICATE_INVALID",
            );
            ok(/expired on/.test(String(e.error)), String(e.error));
            ok(!JSON.stringify(e).includes(TEST_PERSONAL_ID.slice(6)), "no EGN in the answer");
          }
          await refusedBeforePage(
            agent,
            call(agent, "dec1_6_result", { eik, documentId: "1" }, {
              "x-svc-sender-id": "hsm-old",
            }),
            "CERTIFICATE_INVALID",
          );
          nothingSent();
        },
      );

      await t.step(
        "an expired pre-issued portal token is PORTAL_AUTH_FAILED before the page",
        async () => {
          for (
            const [typeId, body] of [["dec1_6", dec16], ["dec1_6_result", {
              eik,
              documentId: "1",
            }]] as const
          ) {
            const e = await refusedBeforePage(
              stale,
              call(stale, typeId, body, { "x-svc-sender-id": "hsm-ec" }),
              "PORTAL_AUTH_FAILED",
            );
            ok(/expired at/.test(String(e.error)), String(e.error));
            ok(!JSON.stringify(e).includes(expiredJwt), "the token never reaches an answer");
          }
          nothingSent();
          ok(!stale.logs.some((l) => JSON.stringify(l).includes(expiredJwt)), "nor a log line");
        },
      );

      let documentId = "";
      await t.step(
        "the page offers only senders with a valid certificate, and asks the PIN to file",
        async () => {
          const pending = call(agent, "dec1_6", dec16, {});
          // Files named on the disk: the consent first, the PIN once they passed their checks.
          const url = String((await agent.waitLog(PAGE, 20_000)).url);
          const html = await (await fetch(url)).text();
          const offered = [...html.matchAll(/name="senderId" value="([^"]+)"/g)].map((m) => m[1]);
          equal(offered.join(","), "hsm-ec,p12-cf");
          ok(!html.includes('name="pin"') && html.includes('id="pin-later"'), "no PIN yet");
          await decideOn(url, html, "hsm-ec", null);
          const after = await afterConsent(url);
          ok(after.next, JSON.stringify(after));
          const step = new URL(after.next, url).href;
          const pinPage = await (await fetch(step)).text();
          ok(pinPage.includes('name="pin"'), "filing asks for the PIN");
          await decideOn(step, pinPage, "hsm-ec", TOKEN_PIN);
          const r = await pending;
          equal(r.json.success, true, JSON.stringify(r.json));
          documentId = String(r.json.documentId);
          ok(
            agent.logs.some((l) =>
              l.msg === "sender not offered: its certificate is not valid" &&
              l.senderId === "hsm-old"
            ),
          );
        },
      );

      await t.step("result operations ask for no PIN (PKCS#11, certificateFile)", async () => {
        for (const id of ["hsm-ec", "p12-cf"]) {
          const calls = sim.stats.resultCalls;
          const pending = call(agent, "dec1_6_result", { eik, documentId }, {
            "x-svc-sender-id": id,
          });
          const html = await onNextPage(agent, "confirm", id);
          ok(!html.includes('name="pin"'), `${id}: the result page asks for no PIN`);
          const r = await pending;
          equal(r.status, 200, JSON.stringify(r.json));
          equal(r.json.status, "ok", JSON.stringify(r.json));
          equal(sim.stats.resultCalls, calls + 1);
        }
      });
    } finally {
      await agent.stop();
      await stale.stop();
      await ts.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
