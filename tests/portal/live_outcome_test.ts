/**
 * What each live-portal failure means for the declaration (docs/journal.md): every error of
 * `submit` carries `details.outcome` — "not_filed" (it never reached the NRA), "refused" (the
 * NRA answered no: a retry is allowed) or "unknown" (it may have been filed). Table-driven
 * against the NRA simulator over HTTPS, plus a raw TCP server that cuts the connection after
 * reading the request.
 */
import assert from "node:assert/strict";
import { type ErrorCode, isAppError } from "../../src/contract/errors.ts";
import { createLivePortal, type LivePortalSettings } from "../../src/portal/live/mod.ts";
import { parseRetryAfter } from "../../src/portal/live/http.ts";
import {
  closedPortUrl,
  makeSimSender,
  sampleSubmission,
  SIM_CLIENT,
  SIM_EIK,
  type SimFaultRule,
  type SimSender,
  startNraSimulator,
} from "../_helpers/nra_simulator.ts";

type Outcome = "not_filed" | "refused" | "unknown";

interface Case {
  readonly name: string;
  readonly faults?: readonly SimFaultRule[];
  /** File once first (caches a token), then install the faults. */
  readonly warm?: boolean;
  readonly sender?: "default" | "selfSigned" | "wrongBytes";
  readonly settings?: Partial<LivePortalSettings>;
  readonly eik?: string;
  readonly code: ErrorCode;
  readonly outcome: Outcome;
  readonly retryAfterSeconds?: number;
  /** Whether the simulator must hold a new submission afterwards. */
  readonly filed?: boolean;
}

const CASES: readonly Case[] = [
  {
    name: "nothing listens: not sent",
    settings: { baseUrl: closedPortUrl() },
    code: "PORTAL_UNREACHABLE",
    outcome: "not_filed",
  },
  {
    name: "the token endpoint refuses the client (first call): not sent",
    settings: { clientSecret: "wrong" },
    code: "PORTAL_AUTH_FAILED",
    outcome: "not_filed",
  },
  {
    name: "the submit call times out: unknown",
    faults: [{ on: "submit", fault: { kind: "drop", ms: 8000 } }],
    code: "PORTAL_TIMEOUT",
    outcome: "unknown",
  },
  {
    name: "the NRA files it, then answers after the time-out: unknown",
    faults: [{ on: "submit", fault: { kind: "accept_then_delay", ms: 8000 } }],
    code: "PORTAL_TIMEOUT",
    outcome: "unknown",
    filed: true,
  },
  {
    name: "the NRA files it, then the answer breaks off: unknown",
    faults: [{ on: "submit", fault: { kind: "accept_then_cut" } }],
    code: "PORTAL_BAD_RESPONSE",
    outcome: "unknown",
    filed: true,
  },
  {
    name: "a 200 answer that is not JSON: unknown",
    faults: [{ on: "submit", fault: { kind: "malformed_json" } }],
    code: "PORTAL_BAD_RESPONSE",
    outcome: "unknown",
  },
  {
    name: "HTTP 500: unknown",
    faults: [{ on: "submit", fault: { kind: "status", status: 500 } }],
    code: "PORTAL_SERVER_ERROR",
    outcome: "unknown",
  },
  {
    name: "HTTP 503 with Retry-After: refused",
    faults: [{
      on: "submit",
      fault: { kind: "status", status: 503, headers: { "retry-after": "30" } },
    }],
    code: "PORTAL_SERVER_ERROR",
    outcome: "refused",
    retryAfterSeconds: 30,
  },
  {
    name: "HTTP 429 with Retry-After: refused",
    faults: [{
      on: "submit",
      fault: { kind: "status", status: 429, body: { m: 1 }, headers: { "retry-after": "120" } },
    }],
    code: "PORTAL_REJECTED",
    outcome: "refused",
    retryAfterSeconds: 120,
  },
  {
    name: "HTTP 429 with the NRA envelope: refused (not a verdict on the declaration)",
    faults: [{
      on: "submit",
      fault: {
        kind: "status",
        status: 429,
        body: {
          errorCode: "API_TOO_MANY_REQUESTS",
          i18nMessage: "Твърде много заявки",
          errors: [],
        },
        headers: { "retry-after": "5" },
      },
    }],
    code: "PORTAL_REJECTED",
    outcome: "refused",
    retryAfterSeconds: 5,
  },
  {
    name: "CERTIFICATE_NOT_RECOGNISED: refused",
    sender: "selfSigned",
    code: "CERTIFICATE_NOT_RECOGNISED",
    outcome: "refused",
  },
  {
    name: "DOCUMENT_SIGNATURE_MISMATCH: refused",
    sender: "wrongBytes",
    code: "DOCUMENT_SIGNATURE_MISMATCH",
    outcome: "refused",
  },
  {
    name: "no power of attorney: refused",
    eik: "121212121",
    code: "NO_POWER_OF_ATTORNEY",
    outcome: "refused",
  },
  {
    name: "401 after the renewal: refused",
    faults: [{ on: "submit", fault: { kind: "expired_token" } }],
    code: "PORTAL_AUTH_FAILED",
    outcome: "refused",
  },
  {
    name: "the only submit answered 401, then the token endpoint fails: refused",
    warm: true,
    faults: [
      { on: "submit", fault: { kind: "expired_token" }, times: 1 },
      { on: "token", fault: { kind: "status", status: 500 }, times: 1 },
    ],
    code: "PORTAL_SERVER_ERROR",
    outcome: "refused",
  },
];

Deno.test("[live portal] every submit error says whether the declaration was not sent, refused or may be filed", async (t) => {
  const [def, selfSigned, wrongBytes] = await Promise.all([
    makeSimSender(),
    makeSimSender({ selfSigned: true }),
    makeSimSender({ signWrongBytes: true }),
  ]);
  const senders: Record<string, SimSender> = { default: def, selfSigned, wrongBytes };
  await using sim = await startNraSimulator({
    recognised: [def.certificate, selfSigned.certificate, wrongBytes.certificate],
    powerOfAttorney: { [def.egn]: [SIM_EIK] },
  });
  const caFile = await Deno.makeTempFile({ suffix: ".pem" });
  await Deno.writeTextFile(caFile, sim.caPem);
  try {
    for (const c of CASES) {
      await t.step(c.name, async () => {
        const portal = createLivePortal({
          baseUrl: sim.url,
          environment: "test",
          clientId: SIM_CLIENT.id,
          clientSecret: SIM_CLIENT.secret,
          timeoutSeconds: 3, // one call can take over 1 s on a loaded CI machine
          caFile,
          ...c.settings,
        }, { clock: { now: () => Date.now() } });
        try {
          sim.clearFaults();
          const ctx = senders[c.sender ?? "default"]!.ctx;
          const input = sampleSubmission("dec1_6", c.eik ?? SIM_EIK);
          if (c.warm) assert.equal((await portal.submit(input, def.ctx)).success, true);
          for (const f of c.faults ?? []) sim.fail(f);
          const before = sim.submissions.size;
          const error = await portal.submit(input, ctx).then(() => null, (e) => e);
          assert.ok(isAppError(error), `expected ${c.code}, got ${error}`);
          assert.equal(error.code, c.code, error.message);
          assert.equal(error.details?.outcome, c.outcome, JSON.stringify(error.details));
          if (c.retryAfterSeconds !== undefined) {
            assert.equal(error.details?.retryAfterSeconds, c.retryAfterSeconds);
          }
          // The simulator files before it spoils the answer; the other faults file nothing.
          assert.equal(sim.submissions.size, before + (c.filed ? 1 : 0));
        } finally {
          sim.clearFaults();
          await portal.close();
        }
      });
    }
  } finally {
    await Promise.all(Object.values(senders).map((s) => s.close()));
    await Deno.remove(caFile);
  }
});

Deno.test("[live portal] a connection cut after the request was sent is unknown, a refused connection not sent", async () => {
  const sender = await makeSimSender();
  // A plain-HTTP server that reads the request and closes the connection without answering.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const served = (async () => {
    for await (const conn of listener) {
      const buf = new Uint8Array(64 * 1024);
      await conn.read(buf).catch(() => null);
      conn.close();
    }
  })().catch(() => {});
  const settings = (baseUrl: string): LivePortalSettings => ({
    baseUrl,
    environment: "test",
    accessToken: "sim-preissued-opaque-token",
    timeoutSeconds: 5,
  });
  const cut = createLivePortal(settings(`http://127.0.0.1:${port}`), {
    clock: { now: () => Date.now() },
  });
  const refused = createLivePortal(settings(closedPortUrl().replace("https:", "http:")), {
    clock: { now: () => Date.now() },
  });
  try {
    const input = sampleSubmission("dec1_6");
    const a = await cut.submit(input, sender.ctx).then(() => null, (e) => e);
    assert.ok(isAppError(a), String(a));
    assert.equal(a.code, "PORTAL_UNREACHABLE");
    assert.equal(a.details?.outcome, "unknown", a.message);
    const b = await refused.submit(input, sender.ctx).then(() => null, (e) => e);
    assert.ok(isAppError(b), String(b));
    assert.equal(b.code, "PORTAL_UNREACHABLE");
    assert.equal(b.details?.outcome, "not_filed");
  } finally {
    listener.close();
    await served;
    await cut.close();
    await refused.close();
    await sender.close();
  }
});

Deno.test("parseRetryAfter() reads delta-seconds and HTTP dates", () => {
  assert.equal(parseRetryAfter("120", 0), 120);
  assert.equal(parseRetryAfter(" 7 ", 0), 7);
  assert.equal(parseRetryAfter("Thu, 01 Jan 1970 00:01:00 GMT", 0), 60);
  assert.equal(parseRetryAfter("Thu, 01 Jan 1970 00:01:00 GMT", 120_000), 0);
  assert.equal(parseRetryAfter("soon", 0), null);
  assert.equal(parseRetryAfter("-5", 0), null);
  assert.equal(parseRetryAfter(null, 0), null);
});
