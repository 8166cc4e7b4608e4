/**
 * Cloud signature benchmark (docs/signing.md § 11): a folder-wide filing of N
 * companies' D1/D6 (default 50) signed through the CSC simulator (scripts/csc_simulator.ts,
 * every CSC call held `--csc-delay-ms`, default 250 ms, as a provider's round trip) against the
 * same batch signed with a PKCS#12 file, in the same run, on the agent's own batch code — the
 * folder scan, `runBatch`, the journal (SQLite file), the live adapter — against the NRA
 * simulator (every call held `--delay-ms`, default 300 ms). The sign-in and the approval are
 * given by the simulator itself (no person); the refresh of the access token is inside the
 * measured time.
 *
 *   deno run -A scripts/bench_csc.ts [--companies 50] [--delay-ms 300] [--csc-delay-ms 250]
 *
 * Prints a markdown table; the last line is `csc: N=<n> ratio X.XX`.
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type BatchOperation, getOperation } from "../src/contract/mod.ts";
import { fileSubmission, Journal, runBatch } from "../src/agent/filing/mod.ts";
import type { OperationClaims } from "../src/agent/http/mod.ts";
import { createLocalOps } from "../src/agent/local/mod.ts";
import {
  beginCscSignIn,
  liveContext,
  newTokenFile,
  parseKeyStoreRef,
} from "../src/agent/senders/mod.ts";
import { createLivePortal } from "../src/portal/live/mod.ts";
import type { PortalContext, SubmissionInput } from "../src/portal/mod.ts";
import { silentLogger } from "../src/log.ts";
import { SIM_CLIENT, startNraSimulator } from "./nra_simulator.ts";
import { CSC_CLIENT_ID, CSC_PIN, startCscSimulator } from "./csc_simulator.ts";
import { writePkcs12, writeTestPki } from "../tests/_helpers/pki.ts";
import { writeCompanyTree } from "../tests/_helpers/company_tree.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    companies: { type: "string", default: "50" },
    "delay-ms": { type: "string", default: "300" },
    "csc-delay-ms": { type: "string", default: "250" },
  },
});
const N = Number(values.companies);
const DELAY = Number(values["delay-ms"]);
const CSC_DELAY = Number(values["csc-delay-ms"]);
const op = getOperation("dec1_6_batch") as BatchOperation;
const clock = { now: () => Date.now() };

const dir = await Deno.makeTempDir({ prefix: "bench-csc-" });
const sim = await startNraSimulator({
  recognised: "any",
  powerOfAttorney: "any",
  latencyMs: DELAY,
});
const csc = await startCscSimulator({ autoApprove: true });
try {
  await Deno.mkdir(join(dir, "pki"));
  const pki = await writeTestPki(join(dir, "pki"));
  const p12 = await writePkcs12(pki.rsa, join(dir, "sender.p12"), "p12-pin");
  const caFile = join(dir, "csc-ca.pem");
  await Deno.writeTextFile(caFile, csc.caPem);
  // Sign in once (the simulator approves by itself), as `senders add --csc` would.
  const tokenFile = newTokenFile(dir);
  const service = { serviceUrl: csc.serviceUrl, clientId: CSC_CLIENT_ID, caFile, tokenFile };
  const signIn = await beginCscSignIn(service, "http://127.0.0.1:9/callback");
  const res = await csc.fetch(signIn.url, { redirect: "manual" });
  await res.body?.cancel();
  await signIn.finish(new URL(res.headers.get("location")!).searchParams);
  csc.faults.delayMs = CSC_DELAY;

  const root = join(dir, "clients");
  console.error(`writing ${N} companies' D1/D6 …`);
  const eiks = await writeCompanyTree(root, N, 2026, 9);
  const portal = createLivePortal({
    baseUrl: sim.url,
    environment: "test",
    clientId: SIM_CLIENT.id,
    clientSecret: SIM_CLIENT.secret,
    timeoutSeconds: 60,
    experimentalVatService: false,
  }, { fetch: sim.fetch, clock });
  const request = { year: 2026, month: 9, recursive: true, rootFolder: root };
  const scan = await createLocalOps().scanBatch(op, request, { path: root });
  const refs = {
    pkcs12: { ref: parseKeyStoreRef({ type: "pkcs12", file: p12 }), pin: "p12-pin" },
    csc: {
      ref: parseKeyStoreRef({
        type: "csc",
        ...service,
        certId: csc.credentials.explicit,
        authMode: "explicit",
        pin: true,
      }),
      pin: CSC_PIN,
    },
  };

  /** File the N companies as one batch with the sender; its wall time, ms. */
  const batch = async (kind: keyof typeof refs, name: string) => {
    const journal = new Journal(join(dir, `${name}.sqlite`));
    const t0 = performance.now();
    const live = await liveContext({ id: kind, displayName: kind }, refs[kind].ref, refs[kind].pin);
    try {
      const deps = { journal, clock, log: silentLogger };
      const claims = { eiks, mode: "live", typeId: op.typeId, jti: name } as OperationClaims;
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
      const r = await runBatch(op, request, claims, scan, submit, () => Promise.resolve(live.ctx));
      if (r.submitted !== N) throw new Error(`${name}: ${r.submitted}/${N} filed: ${r.error}`);
      return performance.now() - t0;
    } finally {
      live.close();
      journal.close();
    }
  };

  await batch("pkcs12", "warm-up-p12");
  await batch("csc", "warm-up-csc");
  const approvalsBefore = csc.stats.authorizations;
  const rows: { kind: string; ms: number }[] = [];
  for (let round = 0; round < 2; round++) {
    rows.push({ kind: "pkcs12", ms: await batch("pkcs12", `p12-${round}`) });
    rows.push({ kind: "csc", ms: await batch("csc", `csc-${round}`) });
  }
  const approvals = (csc.stats.authorizations - approvalsBefore) / 2;
  const avg = (k: string) => rows.filter((r) => r.kind === k).reduce((s, r) => s + r.ms, 0) / 2;
  const p12Ms = avg("pkcs12");
  const cscMs = avg("csc");
  console.log(
    `Folder-wide D1/D6 of ${N} companies against the NRA simulator (every call ${DELAY} ms), ` +
      `4 in flight; the CSC simulator holds every call ${CSC_DELAY} ms:\n`,
  );
  console.log("| sender | approvals per batch | wall time (mean of 2) | ratio |");
  console.log("|---|---|---|---|");
  console.log(`| PKCS#12 file | – | ${(p12Ms / 1000).toFixed(2)} s | 1.00 |`);
  console.log(
    `| CSC simulator | ${approvals} | ${(cscMs / 1000).toFixed(2)} s | ${
      (cscMs / p12Ms).toFixed(2)
    } |`,
  );
  console.log("");
  await portal.close();
  console.log(`csc: N=${N} ratio ${(cscMs / p12Ms).toFixed(2)}`);
} finally {
  await csc.stop();
  await sim.stop();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
