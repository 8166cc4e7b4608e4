/**
 * Live portal authentication against the NRA simulator: the OAuth2 token is cached until
 * `expires_in − 60 s` (fake clock), renewed once on a 401 and the call retried once, shared by
 * concurrent calls; a pre-issued JWT is used as is and checked against its `exp`; credentials
 * are checked before the signer is asked for a signature; no secret reaches the log.
 */
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { FakeClock } from "../../src/clock.ts";
import { isAppError } from "../../src/contract/errors.ts";
import type { PortalContext } from "../../src/portal/adapter.ts";
import {
  createLivePortal,
  type LivePortalDeps,
  type LivePortalSettings,
} from "../../src/portal/live/mod.ts";
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

const PRE_ISSUED = "preissued-opaque-token-for-tests";

async function withSim(
  fn: (sim: NraSimulator, sender: SimSender) => Promise<void>,
): Promise<void> {
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

function portalFor(
  sim: NraSimulator,
  deps: Partial<LivePortalDeps> = {},
  settings: Partial<LivePortalSettings> = {},
) {
  return createLivePortal(
    {
      baseUrl: sim.url,
      environment: "test",
      clientId: SIM_CLIENT.id,
      clientSecret: SIM_CLIENT.secret,
      timeoutSeconds: 10,
      ...settings,
    },
    { fetch: sim.fetch, clock: new FakeClock(), ...deps },
  );
}

Deno.test("[live portal] the OAuth2 token is cached until expires_in − 60 s", async () => {
  await withSim(async (sim, sender) => {
    const clock = new FakeClock();
    const portal = portalFor(sim, { clock });
    const submit = () => portal.submit(sampleSubmission("etz62"), sender.ctx);
    assert.equal((await submit()).success, true);
    assert.equal((await submit()).success, true);
    assert.equal(sim.stats.tokenRequests, 1);
    clock.advance((3600 - 60) * 1000 - 1);
    await submit();
    assert.equal(sim.stats.tokenRequests, 1, "still cached 1 ms before expires_in − 60 s");
    clock.advance(1);
    await submit();
    assert.equal(sim.stats.tokenRequests, 2, "renewed at expires_in − 60 s");
    assert.equal(sim.stats.submitCalls, 4);
  });
});

Deno.test("[live portal] concurrent calls share one token request", async () => {
  await withSim(async (sim, sender) => {
    const portal = portalFor(sim);
    const results = await Promise.all(
      [1, 2, 3].map(() => portal.submit(sampleSubmission("etz62"), sender.ctx)),
    );
    assert.ok(results.every((r) => r.success));
    assert.equal(sim.stats.tokenRequests, 1);
  });
});

Deno.test("[live portal] a 401 renews the token once and retries the call once", async () => {
  await withSim(async (sim, sender) => {
    const portal = portalFor(sim);
    await portal.submit(sampleSubmission("etz62"), sender.ctx);
    sim.expireTokens(); // the cached token is now refused with 401 EXPIRED_TOKEN
    const r = await portal.submit(sampleSubmission("etz62"), sender.ctx);
    assert.equal(r.success, true);
    assert.equal(sim.stats.tokenRequests, 2);
    assert.equal(sim.stats.submitCalls, 3, "first call, refused call, one retry");

    sim.fail({ on: "result", fault: { kind: "expired_token" }, times: 1 });
    const p = await portal.result("etz62", r.documentId!, SIM_EIK, sender.ctx);
    assert.equal(p.status, "ok");
    assert.equal(sim.stats.tokenRequests, 3);
    assert.equal(sim.stats.resultCalls, 2);
  });
});

Deno.test("[live portal] a second 401 after the renewal is PORTAL_AUTH_FAILED (no loop)", async () => {
  await withSim(async (sim, sender) => {
    const portal = portalFor(sim);
    sim.fail({ on: "submit", fault: { kind: "expired_token" } });
    await assert.rejects(portal.submit(sampleSubmission("etz62"), sender.ctx), (e) => {
      assert.ok(isAppError(e) && e.code === "PORTAL_AUTH_FAILED");
      return true;
    });
    assert.equal(sim.stats.tokenRequests, 2);
    assert.equal(sim.stats.submitCalls, 2);
  });
});

Deno.test("[live portal] a pre-issued token is sent as is and never renewed", async () => {
  await withSim(async (sim, sender) => {
    const portal = portalFor(sim, {}, {
      clientId: undefined,
      clientSecret: undefined,
      accessToken: PRE_ISSUED,
    });
    assert.equal((await portal.submit(sampleSubmission("etz62"), sender.ctx)).success, true);
    assert.equal(sim.stats.tokenRequests, 0);
    sim.fail({ on: "submit", fault: { kind: "expired_token" } });
    await assert.rejects(portal.submit(sampleSubmission("etz62"), sender.ctx), (e) => {
      assert.ok(isAppError(e) && e.code === "PORTAL_AUTH_FAILED");
      assert.ok(!e.message.includes(PRE_ISSUED));
      return true;
    });
    assert.equal(sim.stats.submitCalls, 2, "no retry without a way to renew");
  });
});

Deno.test("[live portal] an expired pre-issued JWT fails before any call or signature", async () => {
  await withSim(async (sim, sender) => {
    const clock = new FakeClock(Date.UTC(2026, 10, 1));
    const jwt = await new SignJWT({ scope: [SIM_SCOPES.test], client_id: "c" })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(Math.floor(clock.now() / 1000) - 1)
      .sign(new TextEncoder().encode("k".repeat(32)));
    let signed = 0;
    const ctx: PortalContext = { ...sender.ctx, sign: (b) => (signed++, sender.ctx.sign!(b)) };
    const portal = portalFor(sim, { clock }, {
      clientId: undefined,
      clientSecret: undefined,
      accessToken: jwt,
    });
    await assert.rejects(portal.submit(sampleSubmission("etz62"), ctx), (e) => {
      assert.ok(isAppError(e) && e.code === "PORTAL_AUTH_FAILED", String(e));
      assert.match(e.message, /expired at 2026-10-31T23:59:59/);
      assert.ok(!e.message.includes(jwt));
      return true;
    });
    assert.equal(signed, 0);
    assert.equal(sim.stats.submitCalls, 0);
  });
});

Deno.test("[live portal] refused API credentials never ask the signer (no PIN prompt)", async () => {
  await withSim(async (sim, sender) => {
    let signed = 0;
    const ctx: PortalContext = { ...sender.ctx, sign: (b) => (signed++, sender.ctx.sign!(b)) };
    const portal = portalFor(sim, {}, { clientSecret: "not-the-secret" });
    await assert.rejects(portal.submit(sampleSubmission("dec1_6"), ctx), (e) => {
      assert.ok(isAppError(e) && e.code === "PORTAL_AUTH_FAILED");
      assert.ok(!e.message.includes("not-the-secret"));
      return true;
    });
    assert.equal(signed, 0);
  });
});

Deno.test("[live portal] logs carry no client secret, token or personal id", async () => {
  await withSim(async (sim, sender) => {
    const lines: string[] = [];
    const portal = portalFor(sim, {
      log: (level, msg, fields) => lines.push(JSON.stringify({ level, msg, ...fields })),
    });
    await portal.submit(sampleSubmission("dec1_6"), sender.ctx);
    sim.expireTokens();
    sim.fail({
      on: "submit",
      fault: {
        kind: "status",
        status: 400,
        body: { errorCode: "API_WRONG_ENUM_VALUE", i18nMessage: "x", errors: [] },
      },
      times: 1,
    });
    await portal.submit(sampleSubmission("dec1_6"), sender.ctx);
    const all = lines.join("\n");
    assert.ok(lines.length >= 3, all);
    for (const secret of [SIM_CLIENT.secret, SIM_EGN, "sim-"]) {
      assert.ok(!all.includes(secret), `log leaks ${secret.slice(0, 4)}…: ${all}`);
    }
  });
});

Deno.test("[live portal] settings.caFile makes the portal trust the simulator's CA", async () => {
  await withSim(async (sim, sender) => {
    const caFile = await Deno.makeTempFile({ suffix: ".pem" });
    await Deno.writeTextFile(caFile, sim.caPem);
    const portal = portalFor(sim, { fetch: undefined }, { caFile });
    try {
      const r = await portal.submit(sampleSubmission("dec1_6"), sender.ctx);
      assert.equal(r.success, true);
      const p = await portal.result("dec1_6", r.documentId!, SIM_EIK, sender.ctx);
      assert.equal(p.status, "ok");
    } finally {
      await portal.close();
      await Deno.remove(caFile);
    }
  });
});
