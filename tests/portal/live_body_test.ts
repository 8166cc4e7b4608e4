/**
 * The live portal's requests, byte for byte, over an injected fetch: the submit body of
 * nra-public-api.md §3 for each kind, the endpoints of §1, the token request of §2, and the
 * local refusals (no certificate, no personal number, wrong file kind, signer errors).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { FakeClock } from "../../src/clock.ts";
import { AppError, isAppError } from "../../src/contract/errors.ts";
import type { PortalContext } from "../../src/portal/adapter.ts";
import {
  createLivePortal,
  liveEndpoints,
  type LivePortalSettings,
} from "../../src/portal/live/mod.ts";
import { makeCert } from "../_helpers/pki.ts";
import { sampleSubmission, SIM_EGN, SIM_EIK } from "../_helpers/nra_simulator.ts";

interface Seen {
  readonly url: string;
  readonly headers: Headers;
  readonly body: string;
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const fakeSignature = async (b: Uint8Array) =>
  new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(b)));

const cert = await makeCert({ subject: `CN=Ivan Petrov, 2.5.4.5=PNOBG-${SIM_EGN}, C=BG` });
const CTX: PortalContext = {
  sender: { id: "s1", displayName: "Ivan Petrov" },
  sign: fakeSignature,
  certificate: cert.der,
};
const SETTINGS: LivePortalSettings = {
  baseUrl: "https://nra.example/",
  environment: "test",
  clientId: "cid",
  clientSecret: "csecret",
  timeoutSeconds: 5,
};

function fakePortal(
  settings: Partial<LivePortalSettings> = {},
  submitAnswer: unknown = { entryNumber: "30E000000001", entryDate: "2026-09-10", documentId: 1 },
) {
  const seen: Seen[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const s = { url: String(input), headers: new Headers(init?.headers), body: String(init?.body) };
    seen.push(s);
    if (s.url.endsWith("/token")) {
      return Promise.resolve(Response.json({ access_token: "tok", expires_in: 3600 }));
    }
    return Promise.resolve(Response.json(submitAnswer));
  };
  const portal = createLivePortal({ ...SETTINGS, ...settings }, {
    fetch,
    clock: new FakeClock(Date.UTC(2026, 8, 10, 8)),
  });
  return { portal, seen, api: () => seen.filter((s) => !s.url.endsWith("/token")) };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "resolved";
  } catch (e) {
    assert.ok(isAppError(e), String(e));
    return e.code;
  }
}

Deno.test("liveEndpoints() builds the production and test paths of nra-public-api.md §1", () => {
  const test = liveEndpoints({ ...SETTINGS, baseUrl: "https://public-api.nra.bg" });
  assert.equal(test.submit, "https://public-api.nra.bg/declaration/api-declarations-test/");
  assert.equal(test.result, "https://public-api.nra.bg/declaration/api-declarations-test/result");
  assert.equal(test.token, "https://public-api.nra.bg/oauth/token");
  assert.equal(test.scope, "es-api-external:submit-declaration-test");
  const prod = liveEndpoints({ ...SETTINGS, environment: "production", tokenUrl: "https://t/x" });
  assert.equal(prod.submit, "https://nra.example/declaration/api-declarations/");
  assert.equal(prod.result, "https://nra.example/declaration/api-declarations/result");
  assert.equal(prod.token, "https://t/x");
});

Deno.test("[live portal] submit(dec1_6) sends the §3 body: identity, period, signed files", async () => {
  const { portal, seen, api } = fakePortal();
  const input = sampleSubmission("dec1_6");
  const r = await portal.submit(input, CTX);
  assert.equal(r.success, true);

  const token = seen[0]!;
  assert.equal(token.url, "https://nra.example/oauth/token");
  assert.equal(token.headers.get("content-type"), "application/x-www-form-urlencoded");
  assert.deepEqual(Object.fromEntries(new URLSearchParams(token.body)), {
    grant_type: "client_credentials",
    client_id: "cid",
    client_secret: "csecret",
  });

  const [call] = api();
  assert.equal(call!.url, "https://nra.example/declaration/api-declarations-test/");
  assert.equal(call!.headers.get("authorization"), "Bearer tok");
  assert.equal(call!.headers.get("content-type"), "application/json");
  assert.equal(call!.headers.get("accept"), "application/json");
  const [d1, d6] = input.files;
  assert.deepEqual(JSON.parse(call!.body), {
    taxpayerPin: SIM_EIK,
    taxpayerPinType: "BUS_BULSTAT",
    userPin: SIM_EGN,
    userPinType: "IND_EGN",
    userSignatureBase64: b64(cert.der),
    serviceDocumentType: "DEC_1_6",
    taxPeriodFrom: "08",
    taxPeriodTo: "08",
    year: "2026",
    insuranceFund: 0,
    files: [
      {
        fileName: "EMPL2021.TXT",
        fileType: "txt",
        fileSize: d1!.bytes.length,
        fileContentBase64: b64(d1!.bytes),
        base64EncodedPkcs7: b64(await fakeSignature(d1!.bytes)),
        fileDocumentType: "DEC_1",
        numRecords: 2,
      },
      {
        fileName: "NRA62007.TXT",
        fileType: "txt",
        fileSize: d6!.bytes.length,
        fileContentBase64: b64(d6!.bytes),
        base64EncodedPkcs7: b64(await fakeSignature(d6!.bytes)),
        fileDocumentType: "DEC_6",
        numRecords: 1,
      },
    ],
  });
});

Deno.test("[live portal] submit(dec1_6) of an insurance fund for an EGN taxpayer, production", async () => {
  const { portal, api } = fakePortal({ environment: "production" });
  const base = sampleSubmission("dec1_6", "7501020018");
  await portal.submit({ ...base, request: { ...base.request, fund: true } }, CTX);
  const body = JSON.parse(api()[0]!.body);
  assert.equal(api()[0]!.url, "https://nra.example/declaration/api-declarations/");
  assert.equal(body.taxpayerPinType, "IND_EGN");
  assert.equal(body.insuranceFund, 1);
});

Deno.test("[live portal] submit(etz62) and submit(high_fisc_risk) bodies", async () => {
  const { portal, api } = fakePortal();
  await portal.submit(sampleSubmission("etz62"), CTX);
  await portal.submit(sampleSubmission("high_fisc_risk"), CTX);
  const [etz, fisc] = api().map((s) => JSON.parse(s.body));
  assert.equal(etz.serviceDocumentType, "DEC_ETZ62");
  for (const k of ["taxPeriodFrom", "taxPeriodTo", "year", "insuranceFund"]) {
    assert.ok(!(k in etz), `${k} is D1/D6 only`);
  }
  assert.equal(etz.files[0].fileDocumentType, "DEC_ETZ62");
  assert.equal(etz.files[0].fileType, "xml");
  assert.ok(!("numRecords" in etz.files[0]));
  assert.equal(fisc.serviceDocumentType, "DEC_HIGH_FISC_RISK");
  assert.equal(fisc.files[0].fileDocumentType, "DEC_FISC_RISK_EU_BG");
});

Deno.test("[live portal] submit() refuses locally what it cannot send", async () => {
  const { portal, api } = fakePortal();
  const noSerial = await makeCert({ subject: "CN=No Personal Number, C=BG" });
  const etz = sampleSubmission("etz62");
  const cases: [string, () => Promise<unknown>, string][] = [
    [
      "no certificate",
      () => portal.submit(etz, { sender: null, sign: fakeSignature }),
      "SIGNING_FAILED",
    ],
    [
      "no signer",
      () => portal.submit(etz, { sender: null, certificate: cert.der }),
      "SIGNING_FAILED",
    ],
    [
      "no PNOBG serialNumber",
      () => portal.submit(etz, { ...CTX, certificate: noSerial.der }),
      "CERTIFICATE_INVALID",
    ],
    [
      "an ETZ62 notice that is not XML",
      () =>
        portal.submit({
          ...etz,
          files: [{ name: "notice.txt", kind: "other", bytes: new Uint8Array(3) }],
        }, CTX),
      "FILE_KIND_UNKNOWN",
    ],
    [
      "a D1/D6 without files",
      () => portal.submit({ ...sampleSubmission("dec1_6"), files: [] }, CTX),
      "LOCAL_INPUT_REQUIRED",
    ],
    [
      "an unparsable D1 without numRecords",
      () =>
        portal.submit({
          ...sampleSubmission("dec1_6"),
          files: [{ name: "EMPL2021.TXT", kind: "d1", bytes: new TextEncoder().encode("x,y\r\n") }],
        }, CTX),
      "FILE_PARSE_ERROR",
    ],
    [
      "a signer whose PIN is wrong",
      () =>
        portal.submit(etz, {
          ...CTX,
          sign: () => Promise.reject(new AppError("PIN_INCORRECT", "Wrong PIN")),
        }),
      "PIN_INCORRECT",
    ],
    [
      "a signer that fails oddly",
      () => portal.submit(etz, { ...CTX, sign: () => Promise.reject(new Error("boom")) }),
      "SIGNING_FAILED",
    ],
  ];
  for (const [what, p, code] of cases) assert.equal(await codeOf(p()), code, what);
  assert.equal(api().length, 0, "nothing was sent");
});

Deno.test("[live portal] submit() maps a 200 without documentId to PORTAL_BAD_RESPONSE", async () => {
  const { portal } = fakePortal({}, { entryNumber: "30E000000001", entryDate: "2026-09-10" });
  assert.equal(await codeOf(portal.submit(sampleSubmission("etz62"), CTX)), "PORTAL_BAD_RESPONSE");
});
