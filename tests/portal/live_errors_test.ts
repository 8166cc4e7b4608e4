/**
 * Live portal failure mapping, table-driven against the NRA simulator: every simulated failure
 * maps to its documented errorCode and errorKind (docs/live-portal.md § Error mapping), NRA
 * refusals of the declaration become success=false results, and no secret or personal id
 * appears in an error.
 */
import assert from "node:assert/strict";
import {
  ERROR_CATALOG,
  type ErrorCode,
  type ErrorKind,
  isAppError,
} from "../../src/contract/errors.ts";
import type { PortalContext, SubmissionInput } from "../../src/portal/adapter.ts";
import { createLivePortal, type LivePortalSettings } from "../../src/portal/live/mod.ts";
import {
  closedPortUrl,
  makeSimSender,
  type NraSimulator,
  sampleSubmission,
  SIM_CLIENT,
  SIM_EGN,
  SIM_EIK,
  type SimFaultRule,
  type SimSender,
  startNraSimulator,
} from "../_helpers/nra_simulator.ts";

const SECRET_TOKEN = "preissued-secret-token-0123456789";
const envelope = (errorCode: string, i18nMessage: string, errors: string[] = []) => ({
  code: 400,
  reason: "Bad Request",
  exceptionId: "0123456789abcdef0123456789abcdef",
  timestamp: "2026-09-10T10:00:00.000",
  errorCode,
  i18nMessage,
  errors,
});

type SenderName = "default" | "selfSigned" | "unlisted" | "wrongBytes" | "noCertificate";

/** One row: what the simulated NRA does, and what the adapter must make of it. */
interface Case {
  readonly name: string;
  readonly settings?: Partial<LivePortalSettings> & { unreachable?: boolean };
  readonly faults?: readonly SimFaultRule[];
  readonly sender?: SenderName;
  readonly input?: SubmissionInput;
  readonly call?: "submit" | "result";
  readonly expect:
    | { readonly code: ErrorCode; readonly kind: ErrorKind }
    | { readonly refused: string; readonly message: RegExp };
}

const CASES: readonly Case[] = [
  {
    name: "nothing listens at baseUrl",
    settings: { unreachable: true },
    expect: { code: "PORTAL_UNREACHABLE", kind: "PORTAL" },
  },
  {
    name: "the TLS certificate is not trusted (no caFile, no CA fetch)",
    settings: { caFile: undefined },
    expect: { code: "PORTAL_UNREACHABLE", kind: "PORTAL" },
  },
  {
    name: "the submit call answers after the time-out",
    settings: { timeoutSeconds: 0.5 },
    faults: [{ on: "submit", fault: { kind: "delay", ms: 3000 } }],
    expect: { code: "PORTAL_TIMEOUT", kind: "PORTAL" },
  },
  {
    name: "the token endpoint answers after the time-out",
    settings: { timeoutSeconds: 0.5 },
    faults: [{ on: "token", fault: { kind: "delay", ms: 3000 } }],
    expect: { code: "PORTAL_TIMEOUT", kind: "PORTAL" },
  },
  {
    name: "the submit call answers 503",
    faults: [{ on: "submit", fault: { kind: "status", status: 503 } }],
    expect: { code: "PORTAL_SERVER_ERROR", kind: "PORTAL" },
  },
  {
    name: "the token endpoint answers 500",
    faults: [{ on: "token", fault: { kind: "status", status: 500 } }],
    expect: { code: "PORTAL_SERVER_ERROR", kind: "PORTAL" },
  },
  {
    name: "the result call answers 502",
    call: "result",
    faults: [{ on: "result", fault: { kind: "status", status: 502 } }],
    expect: { code: "PORTAL_SERVER_ERROR", kind: "PORTAL" },
  },
  {
    name: "the token endpoint refuses the client secret (401 invalid_client)",
    settings: { clientSecret: "wrong-secret-value" },
    expect: { code: "PORTAL_AUTH_FAILED", kind: "CREDENTIALS" },
  },
  {
    name: "a garbled pre-issued token (400 MALFORMED_TOKEN)",
    settings: { clientId: undefined, clientSecret: undefined, accessToken: SECRET_TOKEN },
    expect: { code: "PORTAL_AUTH_FAILED", kind: "CREDENTIALS" },
  },
  {
    name: "every token is refused (401 twice: renewed once, then refused)",
    faults: [{ on: "submit", fault: { kind: "expired_token" } }],
    expect: { code: "PORTAL_AUTH_FAILED", kind: "CREDENTIALS" },
  },
  {
    name: "the token lacks the environment's scope (403)",
    settings: { environment: "production", clientId: "test-only", clientSecret: "test-only-pw" },
    expect: { code: "PORTAL_AUTH_FAILED", kind: "CREDENTIALS" },
  },
  {
    name: "a self-signed certificate (API_UNRECOGNIZED_CERTIFICATE_OR_USER)",
    sender: "selfSigned",
    expect: { code: "CERTIFICATE_NOT_RECOGNISED", kind: "CREDENTIALS" },
  },
  {
    name: "a certificate not on the allow-list (API_UNRECOGNIZED_CERTIFICATE_OR_USER)",
    sender: "unlisted",
    expect: { code: "CERTIFICATE_NOT_RECOGNISED", kind: "CREDENTIALS" },
  },
  {
    name: "the result call with an unrecognised certificate",
    call: "result",
    sender: "unlisted",
    expect: { code: "CERTIFICATE_NOT_RECOGNISED", kind: "CREDENTIALS" },
  },
  {
    name: "no power of attorney for the EIK (403 API_NO_AUTHORIZATION, designed)",
    input: sampleSubmission("dec1_6", "121212121"),
    expect: { code: "NO_POWER_OF_ATTORNEY", kind: "CREDENTIALS" },
  },
  {
    name: "the signature covers other bytes (API_DOCUMENT_SIGNATURE_MISMATCH)",
    sender: "wrongBytes",
    expect: { code: "DOCUMENT_SIGNATURE_MISMATCH", kind: "PORTAL" },
  },
  {
    name: "the submit answer is not JSON",
    faults: [{ on: "submit", fault: { kind: "malformed_json" } }],
    expect: { code: "PORTAL_BAD_RESPONSE", kind: "PORTAL" },
  },
  {
    name: "the token answer is not JSON",
    faults: [{ on: "token", fault: { kind: "malformed_json" } }],
    expect: { code: "PORTAL_BAD_RESPONSE", kind: "PORTAL" },
  },
  {
    name: "the result answer is not JSON",
    call: "result",
    faults: [{ on: "result", fault: { kind: "malformed_json" } }],
    expect: { code: "PORTAL_BAD_RESPONSE", kind: "PORTAL" },
  },
  {
    name: "a 429 without the NRA envelope",
    faults: [{ on: "submit", fault: { kind: "status", status: 429, body: { message: "slow" } } }],
    expect: { code: "PORTAL_REJECTED", kind: "PORTAL" },
  },
  {
    name: "a sender without a certificate",
    sender: "noCertificate",
    expect: { code: "SIGNING_FAILED", kind: "CREDENTIALS" },
  },
  {
    name: "no credentials in the settings",
    settings: { clientId: undefined, clientSecret: undefined, accessToken: undefined },
    expect: { code: "PORTAL_NOT_CONFIGURED", kind: "CREDENTIALS" },
  },
  {
    name: "an unreadable caFile",
    settings: { caFile: "/nonexistent/nra-ca.pem" },
    expect: { code: "PORTAL_NOT_CONFIGURED", kind: "CREDENTIALS" },
  },
  {
    name: "an EIK with a wrong check digit (API_INVALID_PIN_OR_PIN_TYPE)",
    input: sampleSubmission("dec1_6", "123456789"),
    expect: {
      refused: "API_INVALID_PIN_OR_PIN_TYPE",
      message: /^API_INVALID_PIN_OR_PIN_TYPE: Грешно въведена комбинация/,
    },
  },
  {
    name: "a file format the NRA refuses (API_FILE_FORMAT_ERROR)",
    faults: [{
      on: "submit",
      fault: {
        kind: "status",
        status: 400,
        body: envelope("API_FILE_FORMAT_ERROR", "Подаденият формат не се поддържа!"),
      },
    }],
    expect: { refused: "API_FILE_FORMAT_ERROR", message: /^API_FILE_FORMAT_ERROR: Подаденият/ },
  },
  {
    name: "missing parameters (API_MISSING_REQUIRED_PARAMETERS with errors)",
    faults: [{
      on: "submit",
      fault: {
        kind: "status",
        status: 400,
        body: envelope(
          "API_MISSING_REQUIRED_PARAMETERS",
          "Липсващи задължителни параметри inputDto!",
          ["taxpayerPin : must not be null", "files : must not be empty"],
        ),
      },
    }],
    expect: {
      refused: "API_MISSING_REQUIRED_PARAMETERS",
      message:
        /^API_MISSING_REQUIRED_PARAMETERS: Липсващи .*!; taxpayerPin : must not be null; files : must not be empty$/,
    },
  },
  {
    name: "a wrong enum value (API_WRONG_ENUM_VALUE)",
    faults: [{
      on: "submit",
      fault: {
        kind: "status",
        status: 400,
        body: envelope("API_WRONG_ENUM_VALUE", "Грешна стойност на енъм тип FileDocumentType!"),
      },
    }],
    expect: { refused: "API_WRONG_ENUM_VALUE", message: /FileDocumentType/ },
  },
];

interface World {
  sim: NraSimulator;
  senders: Record<Exclude<SenderName, "noCertificate">, SimSender>;
  caFile: string;
}

async function world(): Promise<World> {
  const [def, selfSigned, unlisted, wrongBytes] = await Promise.all([
    makeSimSender(),
    makeSimSender({ selfSigned: true }),
    makeSimSender(),
    makeSimSender({ signWrongBytes: true }),
  ]);
  const sim = await startNraSimulator({
    recognised: [def.certificate, selfSigned.certificate, wrongBytes.certificate],
    powerOfAttorney: { [SIM_EGN]: [SIM_EIK, "123456789"] },
    clients: {
      [SIM_CLIENT.id]: {
        secret: SIM_CLIENT.secret,
        scopes: ["es-api-external:submit-declaration-test"],
      },
      "test-only": { secret: "test-only-pw", scopes: ["es-api-external:submit-declaration-test"] },
    },
  });
  const caFile = await Deno.makeTempFile({ suffix: ".pem" });
  await Deno.writeTextFile(caFile, sim.caPem);
  return { sim, senders: { default: def, selfSigned, unlisted, wrongBytes }, caFile };
}

function ctxOf(w: World, name: SenderName): PortalContext {
  if (name === "noCertificate") return { sender: { id: "nobody", displayName: "Nobody" } };
  return w.senders[name].ctx;
}

async function run(w: World, c: Case): Promise<unknown> {
  const { unreachable, ...overrides } = c.settings ?? {};
  const settings: LivePortalSettings = {
    baseUrl: unreachable ? closedPortUrl() : w.sim.url,
    environment: "test",
    clientId: SIM_CLIENT.id,
    clientSecret: SIM_CLIENT.secret,
    timeoutSeconds: 10,
    caFile: w.caFile,
    ...overrides,
  };
  const portal = createLivePortal(settings, { clock: { now: () => Date.now() } });
  w.sim.clearFaults();
  for (const f of c.faults ?? []) w.sim.fail(f);
  const ctx = ctxOf(w, c.sender ?? "default");
  try {
    if (c.call === "result") return await portal.result("dec1_6", "1001", SIM_EIK, ctx);
    return await portal.submit(c.input ?? sampleSubmission("dec1_6"), ctx);
  } finally {
    await portal.close();
  }
}

function assertNoSecrets(text: string): void {
  for (const secret of [SIM_CLIENT.secret, "wrong-secret-value", SECRET_TOKEN, SIM_EGN]) {
    assert.ok(!text.includes(secret), `leaked ${secret.slice(0, 4)}… in ${text}`);
  }
  assert.ok(!/sim-[0-9a-f]{8}-/.test(text), `leaked an issued token in ${text}`);
}

Deno.test("[live portal] every simulated NRA failure maps to its errorCode and errorKind", async (t) => {
  const w = await world();
  try {
    // one accepted submission so that result calls find document 1001
    const seed = await run(w, { name: "seed", expect: { refused: "", message: /./ } });
    assert.equal((seed as { success: boolean }).success, true);
    for (const c of CASES) {
      await t.step(c.name, async () => {
        let outcome: unknown;
        let error: unknown;
        try {
          outcome = await run(w, c);
        } catch (e) {
          error = e;
        }
        if ("code" in c.expect) {
          assert.ok(isAppError(error), `expected ${c.expect.code}, got ${JSON.stringify(outcome)}`);
          assert.equal(error.code, c.expect.code, error.message);
          assert.equal(error.kind, c.expect.kind);
          assert.equal(ERROR_CATALOG[error.code].kind, c.expect.kind);
          assertNoSecrets(`${error.message} ${JSON.stringify(error.details ?? {})}`);
          return;
        }
        assert.equal(error, undefined, String(error));
        const r = outcome as { success: boolean; errorMessage: string; nativeErrors: string[] };
        assert.equal(r.success, false);
        assert.match(r.errorMessage, c.expect.message);
        assert.ok(r.nativeErrors[0]!.startsWith(c.expect.refused), r.nativeErrors[0]);
        assert.equal(r.nativeErrors.join("; "), r.errorMessage);
      });
    }
  } finally {
    await w.sim.stop();
    await Promise.all(Object.values(w.senders).map((s) => s.close()));
    await Deno.remove(w.caFile);
  }
});
