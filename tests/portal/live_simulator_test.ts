/**
 * The NRA public API simulator itself (nra-public-api.md §11), spoken to over raw HTTPS: the
 * token grant, the Bearer check, the validation order of §11.3, the test-stub answers, result
 * lookup by entryNumber + entryDate, and the separation of the two environments.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createLivePortal } from "../../src/portal/live/mod.ts";
import {
  makeSimSender,
  type NraSimulator,
  sampleSubmission,
  SIM_CLIENT,
  SIM_EGN,
  SIM_EIK,
  type SimSender,
  startNraSimulator,
} from "../_helpers/nra_simulator.ts";

const TEST_PATH = "/declaration/api-declarations-test/";
const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

async function withSim(
  fn: (sim: NraSimulator, sender: SimSender, token: string) => Promise<void>,
  options: { mimicTestStub?: boolean } = {},
) {
  const sender = await makeSimSender();
  const sim = await startNraSimulator({
    recognised: [sender.certificate],
    powerOfAttorney: { [SIM_EGN]: [SIM_EIK] },
    ...options,
  });
  try {
    const grant = await sim.fetch(`${sim.url}/oauth/token`, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Authorization: `Basic ${btoa(`${SIM_CLIENT.id}:${SIM_CLIENT.secret}`)}`,
      },
      body: "grant_type=client_credentials",
    });
    const { access_token, expires_in } = await grant.json();
    assert.equal(expires_in, 3600);
    await fn(sim, sender, access_token);
  } finally {
    await sim.stop();
    await sender.close();
  }
}

async function post(sim: NraSimulator, path: string, body: unknown, token?: string) {
  const res = await sim.fetch(`${sim.url}${path}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

async function validBody(sender: SimSender): Promise<Record<string, unknown>> {
  const file = sampleSubmission("dec1_6").files[1]!;
  return {
    taxpayerPin: SIM_EIK,
    taxpayerPinType: "BUS_BULSTAT",
    userPin: SIM_EGN,
    userPinType: "IND_EGN",
    userSignatureBase64: b64(sender.certificate),
    serviceDocumentType: "DEC_1_6",
    taxPeriodFrom: "08",
    taxPeriodTo: "08",
    year: "2026",
    insuranceFund: 0,
    files: [{
      fileName: "NRA62007.TXT",
      fileType: "txt",
      fileSize: file.bytes.length,
      fileContentBase64: b64(file.bytes),
      base64EncodedPkcs7: b64(await sender.ctx.sign!(file.bytes)),
      fileDocumentType: "DEC_6",
      numRecords: 1,
    }],
  };
}

Deno.test("[simulator] checks the Bearer token and the validation order of §11.3", async () => {
  await withSim(async (sim, sender, token) => {
    const ok = await validBody(sender);
    const file = (ok.files as Record<string, unknown>[])[0]!;
    const cases: [string, unknown, string | undefined, string, RegExp][] = [
      ["no token", ok, undefined, "MALFORMED_TOKEN", /Malformed token/],
      ["unknown token", ok, "nope", "MALFORMED_TOKEN", /Malformed token/],
      ["empty body", {}, token, "API_MISSING_REQUIRED_PARAMETERS", /inputDto/],
      ["no files", { ...ok, files: [] }, token, "API_MISSING_REQUIRED_PARAMETERS", /inputDto/],
      [
        "no fileDocumentType",
        { ...ok, files: [{ ...file, fileDocumentType: undefined }] },
        token,
        "API_MISSING_REQUIRED_PARAMETERS",
        /files\[0\]\.fileDocumentType!/,
      ],
      [
        "bad service",
        { ...ok, serviceDocumentType: "DEC_UNKNOWN" },
        token,
        "API_WRONG_ENUM_VALUE",
        /ServiceDocumentType/,
      ],
      [
        "bad file type enum",
        { ...ok, files: [{ ...file, fileDocumentType: "DEC_NOTICE_62_5" }] },
        token,
        "API_WRONG_ENUM_VALUE",
        /FileDocumentType/,
      ],
      [
        "EGN with a wrong check digit",
        { ...ok, userPin: "8001010000" },
        token,
        "API_INVALID_PIN_OR_PIN_TYPE",
        /индентификатор/,
      ],
      [
        "a pdf for DEC_1_6",
        { ...ok, files: [{ ...file, fileType: "pdf" }] },
        token,
        "API_FILE_FORMAT_ERROR",
        /txt, csv/,
      ],
    ];
    for (const [what, body, bearer, code, message] of cases) {
      const r = await post(sim, TEST_PATH, body, bearer);
      assert.equal(r.status, 400, what);
      assert.equal(r.json.errorCode, code, what);
      assert.match(r.json.i18nMessage, message, what);
      assert.match(r.json.exceptionId, /^[0-9a-f]{32}$/);
    }
    const empty = await post(sim, TEST_PATH, {}, token);
    assert.ok(empty.json.errors.includes("taxpayerPin : must not be null"));
    const none = await post(sim, TEST_PATH, { ...ok, files: [] }, token);
    assert.deepEqual(none.json.errors, ["files : must not be empty"]);

    const accepted = await post(sim, TEST_PATH, ok, token);
    assert.equal(accepted.status, 200);
    assert.deepEqual(Object.keys(accepted.json).sort(), ["documentId", "entryDate", "entryNumber"]);
  });
});

Deno.test("[simulator] result by entryNumber + entryDate, per environment and taxpayer", async () => {
  await withSim(async (sim, sender, token) => {
    const body = await validBody(sender);
    const { json: sub } = await post(sim, TEST_PATH, body, token);
    const identity = Object.fromEntries(
      ["taxpayerPin", "taxpayerPinType", "userPin", "userPinType", "userSignatureBase64"]
        .map((k) => [k, body[k]]),
    );
    const byEntry = await post(sim, `${TEST_PATH}result`, {
      ...identity,
      entryNumber: sub.entryNumber,
      entryDate: sub.entryDate,
    }, token);
    assert.equal(byEntry.status, 200);
    const html = Buffer.from(byEntry.json.base64FullHtmlResultInfo, "base64").toString("utf8");
    assert.match(html, /е приета/);
    assert.match(html, /Брой подадени: 1/);
    assert.match(html, /Брой отхвърлени: 0/);

    const prod = await post(sim, "/declaration/api-declarations/result", {
      ...identity,
      documentId: sub.documentId,
    }, token);
    assert.equal(prod.status, 404, "a test submission is unknown to production");
    assert.equal(prod.json.errorCode, "API_DOCUMENT_NOT_FOUND");
  });
});

Deno.test("[simulator] mimicTestStub answers like the real test endpoint", async () => {
  await withSim(async (sim, sender) => {
    const portal = createLivePortal({
      baseUrl: sim.url,
      environment: "test",
      clientId: SIM_CLIENT.id,
      clientSecret: SIM_CLIENT.secret,
      timeoutSeconds: 10,
    }, { fetch: sim.fetch, clock: { now: () => Date.now() } });
    for (let i = 0; i < 2; i++) {
      const r = await portal.submit(sampleSubmission("dec1_6"), sender.ctx);
      assert.equal(r.documentId, "1");
      assert.equal(r.incomeNumber, "30E000000001");
    }
  }, { mimicTestStub: true });
});

Deno.test("[simulator] runs standalone and prints its usage", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "tests/_helpers/nra_simulator.ts", "--help"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(
    new TextDecoder().decode(out.stdout),
    /Usage: deno run -A scripts\/nra_simulator\.ts/,
  );
});
