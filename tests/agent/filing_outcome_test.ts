/**
 * The journal records what became of each live filing (docs/journal.md): a refusal the NRA
 * answered is "refused" and may be retried (after a 429 no sooner than its Retry-After), a
 * request whose fate cannot be known is "unknown" and stops every filing of the same
 * declaration until a person resolves it. `fileSubmission()` with a real SQLite journal file
 * and the live portal over HTTPS against the NRA simulator.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../src/clock.ts";
import { isAppError } from "../../src/contract/errors.ts";
import { fileSubmission, type FilingMeta, Journal } from "../../src/agent/filing/mod.ts";
import { silentLogger } from "../../src/log.ts";
import { createLivePortal, type LivePortal } from "../../src/portal/live/mod.ts";
import type { SubmissionInput } from "../../src/portal/mod.ts";
import {
  makeSimSender,
  type NraSimulator,
  sampleSubmission,
  SIM_CLIENT,
  type SimSender,
  startNraSimulator,
} from "../_helpers/nra_simulator.ts";

interface World {
  sim: NraSimulator;
  sender: SimSender;
  selfSigned: SimSender;
  portal: LivePortal;
  journal: Journal;
  clock: FakeClock;
  dir: string;
  file(input: SubmissionInput, key: string, ctx?: SimSender): Promise<unknown>;
}

async function world(): Promise<World & AsyncDisposable> {
  const [sender, selfSigned] = await Promise.all([
    makeSimSender(),
    makeSimSender({ selfSigned: true }),
  ]);
  const sim = await startNraSimulator({ recognised: "any", powerOfAttorney: "any" });
  const clock = new FakeClock();
  const portal = createLivePortal({
    baseUrl: sim.url,
    environment: "test",
    clientId: SIM_CLIENT.id,
    clientSecret: SIM_CLIENT.secret,
    timeoutSeconds: 3, // one call can take over 1 s on a loaded CI machine
  }, { clock, fetch: sim.fetch });
  const dir = await Deno.makeTempDir({ prefix: "svc-filing-outcome-" });
  const journal = new Journal(`${dir}/journal.sqlite`);
  const deps = { journal, clock, log: silentLogger };
  const meta = (key: string): FilingMeta => ({
    typeId: "dec1_6",
    mode: "live",
    integrator: "default",
    batchId: null,
    idempotencyKey: key,
    period: "2026-08",
  });
  return {
    sim,
    sender,
    selfSigned,
    portal,
    journal,
    clock,
    dir,
    file: (input, key, ctx = sender) =>
      fileSubmission(deps, portal, input, ctx.ctx, meta(key)).then((r) => r, (e) => e),
    async [Symbol.asyncDispose]() {
      journal.close();
      await portal.close();
      await sim.stop();
      await sender.close();
      await selfSigned.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The row holding an Idempotency-Key now (the journal scopes the header's value). */
const rowOf = (j: Journal, key: string) =>
  j.list().find((r) => r.idempotencyKey?.includes(`|key:${key}|`))!;

const code = (e: unknown) => (isAppError(e) ? e.code : `not an error: ${JSON.stringify(e)}`);

Deno.test("fileSubmission() journals definite refusals as refused and lets them be retried", async () => {
  await using w = await world();
  const input = sampleSubmission("dec1_6");
  // CERTIFICATE_NOT_RECOGNISED, then a retry with the same key and a recognised certificate.
  assert.equal(code(await w.file(input, "k-cert", w.selfSigned)), "CERTIFICATE_NOT_RECOGNISED");
  const [refused] = w.journal.list();
  assert.equal(refused!.state, "refused");
  assert.equal(refused!.errorCode, "CERTIFICATE_NOT_RECOGNISED");
  const ok = await w.file(input, "k-cert") as { success: boolean; documentId: string };
  assert.equal(ok.success, true, JSON.stringify(ok));
  const retry = w.journal.list().find((r) => r.retryOf === refused!.id)!;
  assert.equal(retry.state, "filed");
  assert.equal(w.journal.get(refused!.id)!.state, "refused", "the refusal keeps its own record");

  // A 401 on the only submit, then the token endpoint fails: refused, retry allowed.
  const other = sampleSubmission("etz62");
  w.sim.expireTokens();
  w.sim.fail({ on: "token", fault: { kind: "status", status: 500 }, times: 1 });
  assert.equal(code(await w.file(other, "k-token")), "PORTAL_SERVER_ERROR");
  assert.equal(rowOf(w.journal, "k-token").state, "refused");
  assert.equal(((await w.file(other, "k-token")) as { success: boolean }).success, true);

  // An NRA refusal of the declaration (success: false): refused, with PORTAL_REJECTED.
  w.sim.fail({
    on: "submit",
    fault: {
      kind: "status",
      status: 400,
      body: { errorCode: "API_FILE_FORMAT_ERROR", i18nMessage: "Формат", errors: [] },
    },
    times: 1,
  });
  const no = await w.file(sampleSubmission("high_fisc_risk"), "k-env") as { success: boolean };
  assert.equal(no.success, false);
  const row = rowOf(w.journal, "k-env");
  assert.equal(row.state, "refused");
  assert.equal(row.errorCode, "PORTAL_REJECTED");
});

Deno.test("fileSubmission() refuses a retry before the portal's Retry-After with FILING_RETRY_TOO_EARLY", async () => {
  await using w = await world();
  const input = sampleSubmission("dec1_6");
  w.sim.fail({
    on: "submit",
    fault: { kind: "status", status: 429, body: {}, headers: { "retry-after": "120" } },
    times: 1,
  });
  assert.equal(code(await w.file(input, "k1")), "PORTAL_REJECTED");
  const row = w.journal.list()[0]!;
  assert.equal(row.state, "refused");
  assert.equal(row.retryAfter, new Date(w.clock.now() + 120_000).toISOString());
  const calls = w.sim.stats.submitCalls;
  w.clock.advance(30_000);
  for (const key of ["k1", "another-key"]) {
    const early = await w.file(input, key);
    assert.equal(code(early), "FILING_RETRY_TOO_EARLY");
    assert.ok(isAppError(early));
    assert.equal(early.details?.retryAfter, 90);
    assert.equal(early.details?.filingId, row.id);
  }
  assert.equal(w.sim.stats.submitCalls, calls, "nothing was sent too early");
  assert.equal(w.journal.list().length, 1, "a refused attempt writes no row");
  w.clock.advance(91_000);
  assert.equal(((await w.file(input, "k1")) as { success: boolean }).success, true);
});

Deno.test("fileSubmission() keeps a filed-then-timed-out declaration unknown and refuses it again until resolved", async () => {
  await using w = await world();
  const input = sampleSubmission("dec1_6");
  w.sim.fail({ on: "submit", fault: { kind: "accept_then_delay", ms: 8000 }, times: 1 });
  const lost = await w.file(input, "k1");
  assert.equal(code(lost), "PORTAL_TIMEOUT");
  assert.ok(isAppError(lost));
  const row = rowOf(w.journal, "k1");
  assert.equal(row.state, "unknown");
  assert.equal(row.errorCode, "PORTAL_TIMEOUT");
  assert.equal(lost.details?.filingId, row.id);
  assert.equal(w.sim.submissions.size, 1, "the simulator filed it");
  // The same key: FILING_OUTCOME_UNKNOWN; another key, same declaration: FILING_UNRESOLVED.
  assert.equal(code(await w.file(input, "k1")), "FILING_OUTCOME_UNKNOWN");
  const again = await w.file(input, "k2");
  assert.equal(code(again), "FILING_UNRESOLVED");
  assert.ok(isAppError(again));
  assert.equal(again.details?.filingId, row.id);
  assert.match(again.message, new RegExp(`journal resolve ${row.id} --filed`));
  assert.equal(w.sim.submissions.size, 1, "not filed twice");
  // Another declaration of the same company is not held up.
  assert.equal(
    ((await w.file(sampleSubmission("etz62"), "k3")) as { success: boolean }).success,
    true,
  );
  // Resolved as not filed: the same key sends again, in a row of its own.
  assert.ok(w.journal.resolve(row.id, { filed: false }, "tester", new Date(w.clock.now())));
  assert.equal(((await w.file(input, "k1")) as { success: boolean }).success, true);
  assert.equal(w.journal.get(row.id)!.state, "not_filed");
  assert.equal(w.journal.list().find((r) => r.retryOf === row.id)!.state, "filed");
});
