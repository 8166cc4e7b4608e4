/**
 * Acceptance check of docs/live-portal.md: `openssl cms -verify` accepts every signature the NRA
 * simulator received from the live portal (detached CMS over the exact file bytes), and agrees
 * with the simulator's own (pkijs) verdict on a deliberately wrong signature. Needs openssl:
 * skips with a message when it is absent, fails when CI=true.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createLivePortal } from "../../src/portal/live/mod.ts";
import { run, tempDir, toolsMissing } from "../_helpers/pki.ts";
import {
  makeSimSender,
  type ReceivedFile,
  sampleSubmission,
  SIM_CLIENT,
  SIM_EGN,
  SIM_EIK,
  startNraSimulator,
} from "../_helpers/nra_simulator.ts";

const skip = await toolsMissing(["openssl"]);

async function opensslVerify(dir: string, i: number, f: ReceivedFile, caPem: string | null) {
  const sig = join(dir, `${i}.p7s`);
  const content = join(dir, `${i}.bin`);
  await Deno.writeFile(sig, f.pkcs7);
  await Deno.writeFile(content, f.content);
  const trust = caPem === null
    ? ["-noverify"]
    : ["-CAfile", join(dir, "qes-ca.pem"), "-purpose", "any"];
  if (caPem !== null) await Deno.writeTextFile(join(dir, "qes-ca.pem"), caPem);
  const r = await run("openssl", [
    "cms",
    "-verify",
    "-binary",
    "-inform",
    "DER",
    "-in",
    sig,
    "-content",
    content,
    ...trust,
    "-out",
    join(dir, `${i}.out`),
  ]);
  return { code: r.code, output: `${r.stdout}${r.stderr}` };
}

Deno.test({
  name: "[live portal] openssl cms -verify accepts every signature the simulator received",
  ignore: skip !== undefined,
  async fn() {
    const sender = await makeSimSender();
    const wrong = await makeSimSender({ signWrongBytes: true });
    const sim = await startNraSimulator({
      recognised: [sender.certificate, wrong.certificate],
      powerOfAttorney: { [SIM_EGN]: [SIM_EIK] },
    });
    const tmp = await tempDir("nra-sim-openssl-");
    const portal = createLivePortal(
      {
        baseUrl: sim.url,
        environment: "production",
        clientId: SIM_CLIENT.id,
        clientSecret: SIM_CLIENT.secret,
        timeoutSeconds: 10,
      },
      { fetch: sim.fetch, clock: { now: () => Date.now() } },
    );
    try {
      assert.equal(sender.keyStore, "pkcs12", "the sender signs from a PKCS#12 file");
      for (const kind of ["dec1_6", "etz62", "high_fisc_risk"] as const) {
        const r = await portal.submit(sampleSubmission(kind), sender.ctx);
        assert.equal(r.success, true, r.errorMessage ?? "");
      }
      assert.equal(sim.received.length, 4, "D1, D6, ETZ62 and the high-fiscal-risk file");
      for (const [i, f] of sim.received.entries()) {
        assert.equal(f.verified, true, `simulator verdict on ${f.fileName}`);
        const plain = await opensslVerify(tmp.path, i, f, null);
        assert.equal(plain.code, 0, `${f.fileName}: ${plain.output}`);
        assert.match(plain.output, /Verification successful/);
        const chained = await opensslVerify(tmp.path, i, f, sender.caPem);
        assert.equal(chained.code, 0, `${f.fileName} with the QES CA: ${chained.output}`);
      }

      // negative control: a signature over other bytes fails in both verifiers
      const refused = portal.submit(sampleSubmission("etz62"), wrong.ctx);
      await assert.rejects(refused, { code: "DOCUMENT_SIGNATURE_MISMATCH" });
      const bad = sim.received.at(-1)!;
      assert.equal(bad.verified, false);
      const r = await opensslVerify(tmp.path, 99, bad, null);
      assert.notEqual(r.code, 0, r.output);
    } finally {
      await portal.close();
      await sim.stop();
      await tmp.remove();
      await sender.close();
      await wrong.close();
    }
  },
});
