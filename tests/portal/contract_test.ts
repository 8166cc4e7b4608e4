/**
 * One contract suite for every PortalAdapter: the same cases run against the test portal
 * (createTestPortal, always) and the live portal (createLivePortal) against the NRA public API
 * simulator with a PKCS#12 test sender. Capability differences are data (CAPABILITIES): what an
 * adapter does not offer must fail with PORTAL_OPERATION_UNSUPPORTED, what it offers must
 * answer with its contract schema.
 */
import { runReport } from "../_helpers/report.ts";
import assert from "node:assert/strict";
import { isAppError } from "../../src/contract/errors.ts";
import {
  getOperation,
  OPERATIONS,
  sampleRequest,
  type SubmissionKind,
} from "../../src/contract/operations.ts";
import { SubmissionResult, SubmissionResultPayload } from "../../src/contract/submissions.ts";
import type { PortalAdapter, PortalContext } from "../../src/portal/adapter.ts";
import { createLivePortal, LIVE_SUBMISSION_KINDS } from "../../src/portal/live/mod.ts";
import { createTestPortal, TEST_PORTAL_REPORTS } from "../../src/portal/test/adapter.ts";
import {
  makeSimSender,
  sampleSubmission,
  SIM_CLIENT,
  SIM_EGN,
  SIM_EIK,
  startNraSimulator,
} from "../_helpers/nra_simulator.ts";
import type { KeyMode } from "../../src/contract/mod.ts";

const ALL_KINDS: readonly SubmissionKind[] = OPERATIONS.flatMap((o) =>
  o.family === "submission" ? [o.kind] : []
);

/** What each adapter offers: the capability differences of the suite, stated once. */
const CAPABILITIES: Readonly<
  Record<KeyMode, { submissions: readonly SubmissionKind[]; reports: readonly string[] }>
> = {
  test: { submissions: ALL_KINDS, reports: TEST_PORTAL_REPORTS },
  live: { submissions: LIVE_SUBMISSION_KINDS, reports: [] },
};

interface Harness {
  readonly name: KeyMode;
  readonly portal: PortalAdapter;
  readonly ctx: PortalContext;
  close(): Promise<void>;
}

async function testHarness(ctx: PortalContext): Promise<Harness> {
  const now = new Date("2026-09-10T08:00:00Z");
  return await Promise.resolve({
    name: "test",
    portal: createTestPortal({ now: () => now }),
    ctx,
    close: () => Promise.resolve(),
  });
}

async function liveHarness(): Promise<Harness> {
  const sender = await makeSimSender();
  const sim = await startNraSimulator({
    recognised: [sender.certificate],
    powerOfAttorney: { [SIM_EGN]: [SIM_EIK] },
  });
  const portal = createLivePortal(
    {
      baseUrl: sim.url,
      environment: "test",
      clientId: SIM_CLIENT.id,
      clientSecret: SIM_CLIENT.secret,
      timeoutSeconds: 10,
    },
    { fetch: sim.fetch, clock: { now: () => Date.now() } },
  );
  return {
    name: "live",
    portal,
    ctx: sender.ctx,
    close: async () => {
      await portal.close();
      await sim.stop();
      await sender.close();
    },
  };
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

async function contract(t: Deno.TestContext, h: Harness): Promise<void> {
  const caps = CAPABILITIES[h.name];
  const ids: Partial<Record<SubmissionKind, string>> = {};

  await t.step(`[${h.name}] mode is "${h.name}"`, () => assert.equal(h.portal.mode, h.name));

  for (const kind of ["dec1_6", "etz62"] as const) {
    await t.step(
      `[${h.name}] submit(${kind}) succeeds with documentId, incomeNumber, date`,
      async () => {
        const r = SubmissionResult.parse(await h.portal.submit(sampleSubmission(kind), h.ctx));
        assert.equal(r.success, true, r.errorMessage ?? "");
        assert.ok(r.documentId && r.incomeNumber && r.submissionDate);
        assert.ok(!Number.isNaN(Date.parse(r.submissionDate)), r.submissionDate);
        assert.equal(r.errorMessage, null);
        assert.deepEqual(r.nativeErrors, []);
        ids[kind] = r.documentId;
      },
    );
    await t.step(
      `[${h.name}] result(${kind}) of that documentId is ok with a protocol`,
      async () => {
        const p = SubmissionResultPayload.parse(
          await h.portal.result(kind, ids[kind]!, SIM_EIK, h.ctx),
        );
        assert.equal(p.status, "ok", p.error ?? "");
        assert.equal(p.error, null);
        assert.match(p.rawBodyContentType, /^text\/html/);
        assert.match(p.rawBody, /приет/);
        if (kind === "dec1_6") assert.match(p.rawBody, /Брой подадени/);
        assert.ok(p.rawBodyUrl.startsWith("https://"), p.rawBodyUrl);
      },
    );
  }

  await t.step(`[${h.name}] result() of a never-issued documentId is status error`, async () => {
    const p = SubmissionResultPayload.parse(
      await h.portal.result("dec1_6", "987654321", SIM_EIK, h.ctx),
    );
    assert.equal(p.status, "error");
    assert.ok(p.error && p.error.length > 0);
  });

  for (const kind of ALL_KINDS) {
    const offered = caps.submissions.includes(kind);
    await t.step(
      `[${h.name}] submit(${kind}) ${offered ? "is offered" : "is PORTAL_OPERATION_UNSUPPORTED"}`,
      async () => {
        const submitted = h.portal.submit(sampleSubmission(kind), h.ctx);
        if (!offered) {
          assert.equal(await codeOf(submitted), "PORTAL_OPERATION_UNSUPPORTED");
          assert.equal(
            await codeOf(h.portal.result(kind, "1001", SIM_EIK, h.ctx)),
            "PORTAL_OPERATION_UNSUPPORTED",
          );
          return;
        }
        const r = SubmissionResult.parse(await submitted);
        assert.equal(r.success, true, r.errorMessage ?? "");
      },
    );
  }

  for (const typeId of TEST_PORTAL_REPORTS) {
    const offered = caps.reports.includes(typeId);
    await t.step(
      `[${h.name}] report(${typeId}) ${offered ? "answers its schema" : "is unsupported"}`,
      async () => {
        const answer = runReport(h.portal, typeId, sampleRequest(typeId, SIM_EIK), h.ctx);
        if (!offered) {
          assert.equal(await codeOf(answer), "PORTAL_OPERATION_UNSUPPORTED");
          return;
        }
        getOperation(typeId)!.result.parse(await answer);
      },
    );
  }

  await t.step(`[${h.name}] report() of an unknown typeId is unsupported`, async () => {
    assert.equal(
      await codeOf(runReport(h.portal, "nope", {}, h.ctx)),
      "PORTAL_OPERATION_UNSUPPORTED",
    );
  });
}

Deno.test("[portal contract] test adapter (createTestPortal)", async (t) => {
  const sender = await makeSimSender();
  const h = await testHarness(sender.ctx);
  try {
    await contract(t, h);
  } finally {
    await h.close();
    await sender.close();
  }
});

Deno.test("[portal contract] live adapter (createLivePortal) against the NRA simulator", async (t) => {
  const h = await liveHarness();
  try {
    await contract(t, h);
  } finally {
    await h.close();
  }
});
