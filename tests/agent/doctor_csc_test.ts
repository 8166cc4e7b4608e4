/**
 * `agent doctor` for cloud senders (docs/signing.md § Remote signing) against the CSC simulator
 * over HTTPS on loopback: the service answers `info`, the kept sign-in refreshes (the token is
 * never shown) and the certificate is checked as for any sender; an expired sign-in and a
 * service that does not answer fail with what to do, in both languages.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { type DoctorCheck, runDoctor } from "../../src/agent/doctor/doctor.ts";
import { sealRefreshToken } from "../../src/agent/senders/mod.ts";
import { authorizeUrl, CscClient, newPkceRequest } from "../../src/signing/mod.ts";
import { CSC_CLIENT_ID, startCscSimulator } from "../../scripts/csc_simulator.ts";

const REDIRECT = "http://127.0.0.1:9/callback";

Deno.test("runDoctor() cloud senders: service answers, sign-in refreshes, certificate checked; expired sign-in and a silent service fail with a fix", async () => {
  const sim = await startCscSimulator({ autoApprove: true });
  const dir = await Deno.makeTempDir();
  try {
    const client = new CscClient({
      serviceUrl: sim.serviceUrl,
      clientId: CSC_CLIENT_ID,
      fetch: sim.fetch,
    });
    const pkce = await newPkceRequest();
    const res = await sim.fetch(
      authorizeUrl((await client.info()).oauth2, CSC_CLIENT_ID, REDIRECT, pkce, {
        scope: "service",
      }),
      { redirect: "manual" },
    );
    await res.body?.cancel();
    const code = new URL(res.headers.get("location")!).searchParams.get("code")!;
    const refresh = (await client.exchangeCode(code, pkce.verifier, REDIRECT)).refreshToken!;
    const cred = await client.credential(
      (await client.refresh(refresh)).accessToken,
      sim.credentials.explicit,
    );
    const dataDir = join(dir, "data");
    await Deno.mkdir(dataDir);
    const tokenFile = join(dataDir, "csc", "a.token");
    await sealRefreshToken(tokenFile, refresh);
    const sealed = await Deno.readTextFile(tokenFile);
    await Deno.writeTextFile(join(dataDir, "ca.pem"), sim.caPem);
    await Deno.writeFile(join(dataDir, "cloud.der"), cred.certificates[0]!);
    const ref = {
      type: "csc",
      serviceUrl: sim.serviceUrl,
      clientId: CSC_CLIENT_ID,
      certId: cred.id,
      tokenFile,
      authMode: "explicit",
      pin: true,
      caFile: join(dataDir, "ca.pem"),
      certificateFile: join(dataDir, "cloud.der"),
    };
    const senders = [
      { id: "cloud", displayName: "cloud", active: true, keystore: ref },
      {
        id: "gone",
        displayName: "gone",
        active: true,
        keystore: { ...ref, serviceUrl: "https://127.0.0.1:1/csc/v2" },
      },
    ];
    await Deno.writeTextFile(join(dataDir, "agent.json"), JSON.stringify({ senders }));
    const doctor = async () =>
      await runDoctor({
        dataDir,
        tokenServiceUrl: "http://127.0.0.1:1",
        ports: [17470],
        portFree: () => Promise.resolve(true),
        discoverModules: () => Promise.resolve([]),
        timeoutMs: 2000,
      });
    const byId = (checks: DoctorCheck[], id: string) => checks.find((c) => c.id === id)!;

    const checks = await doctor();
    const cloud = byId(checks, "sender:cloud");
    equal(cloud.ok, true, JSON.stringify(cloud));
    const host = new URL(sim.serviceUrl).host;
    ok(
      cloud.detail.startsWith(
        `Cloud signature at CSC simulator (${host}): the service answers, the sign-in refreshes. ` +
          "Ivan Petrov: Valid until",
      ),
      cloud.detail,
    );
    ok(cloud.detailBg.startsWith(`Облачен подпис при CSC simulator (${host})`), cloud.detailBg);
    ok(cloud.detailBg.includes("Валиден до"), cloud.detailBg);
    equal(sim.stats.refreshes > 0, true, "the sign-in was refreshed");
    const gone = byId(checks, "sender:gone");
    equal(gone.ok, false);
    ok(gone.detail.includes("does not answer info"), gone.detail);
    ok(gone.fixBg?.includes("Проверете връзката"), String(gone.fixBg));

    sim.faults.expiredRefresh = true;
    const expired = byId(await doctor(), "sender:cloud");
    equal(expired.ok, false);
    ok(expired.detail.includes("cannot be refreshed (REMOTE_SIGN_IN_REQUIRED)"), expired.detail);
    ok(expired.fix?.startsWith("Sign in again"), String(expired.fix));
    ok(expired.fixBg?.startsWith("Влезте отново"), String(expired.fixBg));

    const all = JSON.stringify([checks, expired]);
    ok(!all.includes(refresh), "the refresh token is never shown");
    ok(!all.includes(JSON.parse(sealed).ct), "nor the sealed file");
    ok(!all.includes("8001010008"), "nor the personal id");
  } finally {
    await sim.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
