/**
 * The live portal's capability check (docs/live-portal.md), against the NRA simulator: `check(op)`
 * refuses, without any call, every operation the public API does not offer — VAT (`vat`,
 * `vat_batch`, `vat_result`) unless agent.json `portal.experimentalVatService` is on, every
 * report — and credentials already known to be refused (no settings, an expired pre-issued
 * JWT); `submit` honours the same setting (DEC_VAT only when it is on); the test portal
 * offers everything.
 */
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { FakeClock } from "../../src/clock.ts";
import { isAppError } from "../../src/contract/errors.ts";
import { OPERATIONS } from "../../src/contract/operations.ts";
import type { PortalContext } from "../../src/portal/adapter.ts";
import {
  checkLiveOperation,
  createLivePortal,
  liveKinds,
  type LivePortalSettings,
} from "../../src/portal/live/mod.ts";
import { createTestPortal } from "../../src/portal/test/adapter.ts";
import { AgentFile } from "../../src/agent/senders/agent_file.ts";
import {
  makeSimSender,
  type NraSimulator,
  sampleSubmission,
  SIM_CLIENT,
  SIM_EGN,
  SIM_EIK,
  SIM_SCOPES,
  type SimSender,
  startNraSimulator,
} from "../_helpers/nra_simulator.ts";

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
    return "ok";
  } catch (e) {
    assert.ok(isAppError(e), String(e));
    return e.code;
  }
};

/** What the live portal offers, by typeId (the expectation, stated as data). */
function expectedLive(vat: boolean): Record<string, string> {
  const offered = new Set(["dec1_6", "etz62", "high_fisc_risk", ...(vat ? ["vat"] : [])]);
  return Object.fromEntries(OPERATIONS.map((op) => {
    if (op.family === "local") return [op.typeId, "ok"];
    if (op.family === "report" || op.family === "portal_files") {
      return [op.typeId, "PORTAL_OPERATION_UNSUPPORTED"];
    }
    const kind = "kind" in op ? op.kind : "";
    return [op.typeId, offered.has(kind) ? "ok" : "PORTAL_OPERATION_UNSUPPORTED"];
  }));
}

Deno.test("checkLiveOperation() refuses vat, vat_batch and vat_result unless experimentalVatService is on", () => {
  for (const vat of [false, true]) {
    const got = Object.fromEntries(
      OPERATIONS.map((op) => [
        op.typeId,
        codeOf(() => checkLiveOperation(op, { experimentalVatService: vat })),
      ]),
    );
    assert.deepEqual(got, expectedLive(vat), `experimentalVatService: ${vat}`);
  }
  assert.equal(
    codeOf(() => checkLiveOperation(OPERATIONS.find((o) => o.typeId === "vat")!)),
    "PORTAL_OPERATION_UNSUPPORTED",
  );
  assert.deepEqual(liveKinds(), ["dec1_6", "etz62", "high_fisc_risk"]);
  try {
    checkLiveOperation({ typeId: "vat_batch", family: "batch", kind: "vat" });
  } catch (e) {
    assert.ok(isAppError(e));
    assert.deepEqual(e.details, { typeId: "vat_batch" });
    assert.match(e.message, /"vat_batch".*no VAT service/);
  }
});

Deno.test("[test portal] check() offers every operation of the registry", () => {
  const portal = createTestPortal({ now: () => new Date("2026-09-10T08:00:00Z") });
  for (const op of OPERATIONS) assert.equal(codeOf(() => portal.check!(op)), "ok", op.typeId);
});

Deno.test("AgentFile: portal.experimentalVatService defaults to false and must be a boolean", () => {
  assert.equal(AgentFile.parse({ portal: {} }).portal?.experimentalVatService, false);
  assert.equal(
    AgentFile.parse({ portal: { experimentalVatService: true } }).portal?.experimentalVatService,
    true,
  );
  const bad = AgentFile.safeParse({ portal: { experimentalVatService: "yes" } });
  assert.equal(bad.success, false);
  assert.deepEqual(bad.error.issues[0]!.path, ["portal", "experimentalVatService"]);
});

const PRE_ISSUED = "preissued-opaque-token-for-tests";

async function withSim(fn: (sim: NraSimulator, sender: SimSender) => Promise<void>) {
  const sender = await makeSimSender();
  const sim = await startNraSimulator({
    recognised: [sender.certificate],
    powerOfAttorney: { [SIM_EGN]: [SIM_EIK] },
    accessTokens: { [PRE_ISSUED]: [SIM_SCOPES.test] },
  });
  try {
    await fn(sim, sender);
  } finally {
    await sim.stop();
    await sender.close();
  }
}

const settingsOf = (sim: NraSimulator, more: Partial<LivePortalSettings> = {}) => ({
  baseUrl: sim.url,
  environment: "test" as const,
  clientId: SIM_CLIENT.id,
  clientSecret: SIM_CLIENT.secret,
  timeoutSeconds: 10,
  ...more,
});

Deno.test("[live portal] check() refuses missing credentials and an expired pre-issued JWT without any call", async () => {
  await withSim(async (sim) => {
    const clock = new FakeClock(Date.UTC(2026, 10, 1));
    const jwt = (exp: number) =>
      new SignJWT({ scope: [SIM_SCOPES.test] })
        .setProtectedHeader({ alg: "HS256" })
        .setExpirationTime(exp)
        .sign(new TextEncoder().encode("k".repeat(32)));
    const now = Math.floor(clock.now() / 1000);
    const dec16 = OPERATIONS.find((o) => o.typeId === "dec1_6")!;
    const dec16Result = OPERATIONS.find((o) => o.typeId === "dec1_6_result")!;
    const scan = OPERATIONS.find((o) => o.family === "local")!;
    const portal = (more: Partial<LivePortalSettings>) =>
      createLivePortal(settingsOf(sim, more), { fetch: sim.fetch, clock });

    const expired = await jwt(now - 1);
    const p = portal({ clientId: undefined, clientSecret: undefined, accessToken: expired });
    for (const op of [dec16, dec16Result]) {
      try {
        p.check!(op);
        assert.fail(`${op.typeId} was not refused`);
      } catch (e) {
        assert.ok(isAppError(e) && e.code === "PORTAL_AUTH_FAILED", String(e));
        assert.match(e.message, /expired at 2026-10-31T23:59:59/);
        assert.ok(!e.message.includes(expired) && !JSON.stringify(e.details).includes(expired));
      }
    }
    assert.equal(codeOf(() => p.check!(scan)), "ok", "local reads never reach the portal");
    const live = await jwt(now + 600);
    const fresh = portal({ clientId: undefined, clientSecret: undefined, accessToken: live });
    assert.equal(codeOf(() => fresh.check!(dec16)), "ok");
    clock.advance(601_000);
    assert.equal(codeOf(() => fresh.check!(dec16)), "PORTAL_AUTH_FAILED", "expired meanwhile");
    const opaque = portal({
      clientId: undefined,
      clientSecret: undefined,
      accessToken: PRE_ISSUED,
    });
    assert.equal(codeOf(() => opaque.check!(dec16)), "ok", "a non-JWT token can only be tried");
    const none = portal({ clientId: undefined, clientSecret: undefined });
    assert.equal(codeOf(() => none.check!(dec16)), "PORTAL_NOT_CONFIGURED");
    const half = portal({ clientSecret: undefined });
    assert.equal(codeOf(() => half.check!(dec16)), "PORTAL_NOT_CONFIGURED");
    assert.equal(codeOf(() => portal({}).check!(dec16)), "ok");
    assert.deepEqual(sim.stats, { tokenRequests: 0, submitCalls: 0, resultCalls: 0 });
    for (const x of [p, fresh, opaque, none, half]) await x.close();
  });
});

Deno.test("[live portal] submit(vat) is PORTAL_OPERATION_UNSUPPORTED by default; experimentalVatService files DEC_VAT", async () => {
  await withSim(async (sim, sender) => {
    let signed = 0;
    const ctx: PortalContext = { ...sender.ctx, sign: (b) => (signed++, sender.ctx.sign!(b)) };
    const off = createLivePortal(settingsOf(sim), { fetch: sim.fetch, clock: { now: Date.now } });
    await assert.rejects(off.submit(sampleSubmission("vat"), ctx), (e) => {
      assert.ok(isAppError(e) && e.code === "PORTAL_OPERATION_UNSUPPORTED", String(e));
      assert.equal(e.details?.typeId, "vat");
      return true;
    });
    await assert.rejects(off.result("vat", "1", SIM_EIK, ctx), /cannot run "vat_result"/);
    assert.equal(signed, 0);
    assert.deepEqual(sim.stats, { tokenRequests: 0, submitCalls: 0, resultCalls: 0 });

    const on = createLivePortal(settingsOf(sim, { experimentalVatService: true }), {
      fetch: sim.fetch,
      clock: { now: Date.now },
    });
    const vat = OPERATIONS.find((o) => o.typeId === "vat_batch")!;
    assert.equal(codeOf(() => on.check!(vat)), "ok");
    const r = await on.submit(sampleSubmission("vat"), ctx);
    assert.equal(r.success, true, r.errorMessage ?? "");
    const stored = [...sim.submissions.values()].at(-1)!;
    assert.equal(stored.body.serviceDocumentType, "DEC_VAT");
    assert.equal(signed, 4);
    await off.close();
    await on.close();
  });
});
