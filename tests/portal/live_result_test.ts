/**
 * The live portal's result call and answer mapping over an injected fetch (nra-public-api.md
 * §4): the request body, the choice of protocol field and its content type, the status-error
 * cases, and the ISO submissionDate made from the NRA's entryDate.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { FakeClock } from "../../src/clock.ts";
import { SubmissionResultPayload } from "../../src/contract/submissions.ts";
import type { PortalContext } from "../../src/portal/adapter.ts";
import { createLivePortal } from "../../src/portal/live/mod.ts";
import { submissionInstant } from "../../src/portal/live/submission_answer.ts";
import { makeCert } from "../_helpers/pki.ts";
import { SIM_EGN, SIM_EIK } from "../_helpers/nra_simulator.ts";

const cert = await makeCert({ subject: `CN=Ivan Petrov, 2.5.4.5=PNOBG-${SIM_EGN}, C=BG` });
const CTX: PortalContext = { sender: null, certificate: cert.der };
const RESULT_URL = "https://nra.example/declaration/api-declarations-test/result";
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

function portalAnswering(status: number, body: unknown) {
  const calls: { url: string; body: string }[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    if (String(input).endsWith("/oauth/token")) {
      return Promise.resolve(Response.json({ access_token: "tok", expires_in: 3600 }));
    }
    calls.push({ url: String(input), body: String(init?.body) });
    return Promise.resolve(
      typeof body === "string" ? new Response(body, { status }) : Response.json(body, { status }),
    );
  };
  const portal = createLivePortal({
    baseUrl: "https://nra.example",
    environment: "test",
    accessToken: "pre-issued",
    timeoutSeconds: 5,
  }, { fetch, clock: new FakeClock() });
  return { portal, calls };
}

Deno.test("[live portal] result() posts the identity fields and the documentId as a number", async () => {
  const { portal, calls } = portalAnswering(200, { base64HtmlResult: b64("<p>е приета</p>") });
  await portal.result("dec1_6", "42", SIM_EIK, CTX);
  assert.equal(calls[0]!.url, RESULT_URL);
  assert.deepEqual(JSON.parse(calls[0]!.body), {
    taxpayerPin: SIM_EIK,
    taxpayerPinType: "BUS_BULSTAT",
    userPin: SIM_EGN,
    userPinType: "IND_EGN",
    userSignatureBase64: Buffer.from(cert.der).toString("base64"),
    documentId: 42,
  });
});

Deno.test("[live portal] result() picks the full HTML page, then the fragment, then base64Result", async () => {
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [
      { base64FullHtmlResultInfo: b64("<html>пълен</html>"), base64HtmlResult: b64("<p>част</p>") },
      "<html>пълен</html>",
      /^text\/html; charset=utf-8$/,
    ],
    [{ base64HtmlResult: b64("<p>част</p>") }, "<p>част</p>", /^text\/html/],
    [{ base64Result: b64('{"success":true}') }, '{"success":true}', /^application\/json$/],
    [{ base64Result: b64("OK") }, "OK", /^text\/plain/],
  ];
  for (const [answer, rawBody, type] of cases) {
    const { portal } = portalAnswering(200, { documentId: 42, ...answer });
    const p = SubmissionResultPayload.parse(await portal.result("dec1_6", "42", SIM_EIK, CTX));
    assert.equal(p.status, "ok");
    assert.equal(p.rawBody, rawBody);
    assert.match(p.rawBodyContentType, type);
    assert.equal(p.rawBodyUrl, RESULT_URL);
    assert.equal(p.error, null);
  }
});

Deno.test("[live portal] result() answers status error for no protocol, a refusal or a non-NRA id", async () => {
  const pending = portalAnswering(200, { documentId: 42, processingStatus: "IN_PROGRESS" });
  const a = await pending.portal.result("dec1_6", "42", SIM_EIK, CTX);
  assert.equal(a.status, "error");
  assert.match(a.error!, /no protocol for document 42 \(processingStatus IN_PROGRESS\)/);

  const envelope = {
    code: 400,
    errorCode: "API_MISSING_REQUIRED_PARAMETERS",
    i18nMessage: "Липсващи задължителни параметри inputDto!",
    errors: ["documentId : must not be null"],
  };
  const refused = portalAnswering(400, envelope);
  const b = await refused.portal.result("dec1_6", "42", SIM_EIK, CTX);
  assert.equal(b.status, "error");
  assert.equal(
    b.error,
    "API_MISSING_REQUIRED_PARAMETERS: Липсващи задължителни параметри inputDto!; " +
      "documentId : must not be null",
  );
  assert.deepEqual(JSON.parse(b.rawBody), envelope);
  assert.equal(b.rawBodyContentType, "application/json");

  const never = portalAnswering(200, {});
  const c = await never.portal.result("dec1_6", "TEST-ABC", SIM_EIK, CTX);
  assert.equal(c.status, "error");
  assert.equal(never.calls.length, 0, "no call for an id the NRA cannot have issued");
});

Deno.test("[live portal] result() without a certificate is SIGNING_FAILED", async () => {
  const { portal } = portalAnswering(200, {});
  await assert.rejects(portal.result("dec1_6", "42", SIM_EIK, { sender: null }), {
    code: "SIGNING_FAILED",
  });
});

Deno.test("submissionInstant() turns the NRA entryDate into an ISO instant (Sofia time)", () => {
  const now = Date.UTC(2026, 8, 10, 8, 30); // 2026-09-10 11:30 in Sofia (EEST)
  assert.equal(submissionInstant("2026-09-10", now), "2026-09-10T08:30:00.000Z");
  assert.equal(submissionInstant("2026-09-09", now), "2026-09-08T21:00:00.000Z");
  assert.equal(submissionInstant("2026-01-15", now), "2026-01-14T22:00:00.000Z");
  assert.equal(submissionInstant("2026-09-09 14:05:00", now), "2026-09-09T11:05:00.000Z");
  assert.equal(submissionInstant("2026-09-09T14:05:00Z", now), "2026-09-09T14:05:00.000Z");
  assert.throws(() => submissionInstant("10.09.2026", now), { code: "PORTAL_BAD_RESPONSE" });
});
