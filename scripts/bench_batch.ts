/**
 * Folder-wide filing benchmark, live mode (docs/local-input.md § Folder-wide filings): the NRA
 * simulator (scripts/nra_simulator.ts) answering every call after a simulated portal delay
 * (300 ms by default), a sender whose RSA key sits on a SoftHSM2 token (PKCS#11, one login for
 * the batch), and the agent's own batch code — the folder scan, `runBatch`, the journal
 * (SQLite file), the live adapter — filing N companies' D1/D6.
 *
 * Baseline, measured in the same run on the same key and simulator: one company filed alone,
 * sequentially (its signatures + one simulator round trip + its journal rows), averaged over
 * 10 companies; the signatures alone are measured too. The ratio is the batch's wall time
 * against N × that baseline: 1.0 is "one after another", lower is what the pipeline overlaps.
 * Goal: ≤ 0.5 with the pipeline (default 4 in flight), never above 1.2.
 *
 *   deno run -A scripts/bench_batch.ts [--delay-ms 300] [--sizes 50,300] [--concurrency 4]
 *
 * Prints a markdown table; the last line is `batch: N=<largest> ratio X.XX`.
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { getOperation } from "../src/contract/mod.ts";
import type { BatchOperation } from "../src/contract/mod.ts";
import { fileSubmission, Journal, runBatch } from "../src/agent/filing/mod.ts";
import type { OperationClaims } from "../src/agent/http/mod.ts";
import { createLocalOps } from "../src/agent/local/mod.ts";
import { liveContext, parseKeyStoreRef } from "../src/agent/senders/mod.ts";
import { createLivePortal } from "../src/portal/live/mod.ts";
import type { PortalContext, SubmissionInput } from "../src/portal/mod.ts";
import { silentLogger } from "../src/log.ts";
import { SIM_CLIENT, startNraSimulator } from "./nra_simulator.ts";
import { writeTestPki } from "../tests/_helpers/pki.ts";
import { writeCompanyTree } from "../tests/_helpers/company_tree.ts";
import { createSoftHsmToken, TOKEN_PIN } from "../tests/signing/softhsm_fixture.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    "delay-ms": { type: "string", default: "300" },
    sizes: { type: "string", default: "50,300" },
    concurrency: { type: "string", default: "4" },
  },
});
const DELAY = Number(values["delay-ms"]);
const SIZES = values.sizes.split(",").map(Number);
const CONCURRENCY = Number(values.concurrency);
const BASELINE_SAMPLES = 10;
const op = getOperation("dec1_6_batch") as BatchOperation;
const body = { year: 2026, month: 9, recursive: true };
const clock = { now: () => Date.now() };

const dir = await Deno.makeTempDir({ prefix: "bench-batch-" });
const sim = await startNraSimulator({
  recognised: "any",
  powerOfAttorney: "any",
  latencyMs: DELAY,
});
try {
  for (const d of ["pki", "hsm"]) await Deno.mkdir(join(dir, d));
  const pki = await writeTestPki(join(dir, "pki"));
  const token = await createSoftHsmToken(pki, join(dir, "hsm"));
  for (const [k, v] of Object.entries(token.env)) Deno.env.set(k, v);
  const root = join(dir, "clients");
  const largest = Math.max(...SIZES);
  console.error(`writing ${largest + BASELINE_SAMPLES} companies' D1/D6 …`);
  const eiks = await writeCompanyTree(root, largest + BASELINE_SAMPLES, 2026, 9);
  const portal = createLivePortal({
    baseUrl: sim.url,
    environment: "test",
    clientId: SIM_CLIENT.id,
    clientSecret: SIM_CLIENT.secret,
    timeoutSeconds: 60,
    experimentalVatService: false,
  }, { fetch: sim.fetch, clock });
  const ref = parseKeyStoreRef({
    type: "pkcs11",
    module: token.module,
    tokenLabel: "test",
    certId: "id=01",
  });
  const request = { ...body, rootFolder: root };
  const scan = await createLocalOps().scanBatch(op, request, { path: root });

  /** File `list` as one folder-wide batch; returns its wall time (ms), login included. */
  const batch = async (list: string[], concurrency: number, name: string) => {
    const journal = new Journal(join(dir, `${name}.sqlite`));
    const live = await liveContext({ id: "hsm", displayName: "SoftHSM" }, ref, TOKEN_PIN);
    try {
      const deps = { journal, clock, log: silentLogger };
      const claims = { eiks: list, mode: "live", typeId: op.typeId, jti: name } as OperationClaims;
      const groups = new Map([...scan.groups].filter(([eik]) => list.includes(eik)));
      const submit = (input: SubmissionInput, ctx: PortalContext) =>
        fileSubmission(deps, portal, input, ctx, {
          typeId: op.typeId,
          mode: "live",
          integrator: "bench",
          batchId: crypto.randomUUID(),
          idempotencyKey: null,
          period: "2026-09",
          replayFiled: true,
        });
      const t0 = performance.now();
      const r = await runBatch(
        op,
        request,
        claims,
        { ...scan, groups },
        submit,
        () => Promise.resolve(live.ctx),
        { concurrency },
      );
      const ms = performance.now() - t0;
      if (r.submitted !== list.length) {
        throw new Error(`${name}: ${r.submitted}/${list.length} filed: ${r.error}`);
      }
      return ms;
    } finally {
      live.close();
      journal.close();
    }
  };

  // Baseline: one company at a time, alone (a batch of one), on the same key and simulator.
  const sample = eiks.slice(largest, largest + BASELINE_SAMPLES);
  await batch([eiks[largest]!], 1, "warm-up");
  let single = 0;
  for (const [i, eik] of sample.entries()) single += await batch([eik], 1, `single-${i}`);
  single /= sample.length;
  // The signatures alone: the company's two files (D1, D6) on the same key, logged in.
  const live = await liveContext({ id: "hsm", displayName: "SoftHSM" }, ref, TOKEN_PIN);
  const files = scan.groups.get(sample[0]!)!.files;
  await live.ctx.sign!(files[0]!.bytes);
  const s0 = performance.now();
  for (let i = 0; i < 20; i++) for (const f of files) await live.ctx.sign!(f.bytes);
  const signMs = (performance.now() - s0) / 20;
  live.close();

  console.log(
    `Live batch of D1/D6 against the NRA simulator (portal delay ${DELAY} ms), SoftHSM2 RSA ` +
      `sender, ${CONCURRENCY} in flight:\n`,
  );
  console.log(
    `Baseline (same run): one company alone ${single.toFixed(0)} ms = its ${files.length} ` +
      `signatures ${signMs.toFixed(1)} ms + one simulator round trip and journal ` +
      `${(single - signMs).toFixed(0)} ms\n`,
  );
  console.log("| N | in flight | wall time | N × baseline | ratio |");
  console.log("|---|---|---|---|---|");
  let last = "";
  const rows: [number, number][] = [...SIZES.map((n) => [n, CONCURRENCY] as [number, number])];
  if (SIZES.includes(50) && CONCURRENCY !== 1) rows.unshift([50, 1]);
  for (const [n, c] of rows) {
    const ms = await batch(eiks.slice(0, n), c, `batch-${n}-${c}`);
    const ratio = ms / (n * single);
    console.log(
      `| ${n} | ${c} | ${(ms / 1000).toFixed(1)} s | ${(n * single / 1000).toFixed(1)} s | ` +
        `${ratio.toFixed(2)} |`,
    );
    if (c === CONCURRENCY) last = `batch: N=${n} ratio ${ratio.toFixed(2)}`;
  }
  console.log("");
  console.log(`simulator: ${sim.stats.submitCalls} submissions`);
  await portal.close();
  console.log(last);
} finally {
  await sim.stop();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
