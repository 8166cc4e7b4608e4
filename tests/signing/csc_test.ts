/**
 * The CSC API v2 key store against the CSC simulator over HTTPS on loopback (docs/signing.md
 * § Remote signing): sign-in with PKCE, credentials with their chain, CMS signatures whose value
 * comes from signHash (checked by `openssl cms -verify`), a batch's hashes in one authorization
 * (split by the provider's limit), both auth modes, and every fault mapped to its catalog code.
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import {
  CSC_CLIENT_ID,
  CSC_PIN,
  type CscSimulator,
  startCscSimulator,
} from "../../scripts/csc_simulator.ts";
import {
  authorizeUrl,
  CscClient,
  newPkceRequest,
  openCscKeyStore,
  signDetachedMany,
  verifyDetached,
} from "../../src/signing/mod.ts";
import { hasTool, run } from "../_helpers/pki.ts";

const REDIRECT = "http://127.0.0.1:9/callback";

/** Follow the provider's answer to the loopback callback as a browser would (no page: the
 * simulator approves by itself) and return the callback's query. */
async function callback(sim: CscSimulator, url: string): Promise<URLSearchParams> {
  const res = await sim.fetch(url, { redirect: "manual" });
  await res.body?.cancel();
  equal(res.status, 302);
  return new URL(res.headers.get("location")!).searchParams;
}

async function signIn(sim: CscSimulator, client: CscClient): Promise<string> {
  const pkce = await newPkceRequest();
  const info = await client.info();
  const q = await callback(
    sim,
    authorizeUrl(info.oauth2, CSC_CLIENT_ID, REDIRECT, pkce, { scope: "service" }),
  );
  equal(q.get("state"), pkce.state);
  const t = await client.exchangeCode(q.get("code")!, pkce.verifier, REDIRECT);
  ok(t.refreshToken);
  return t.refreshToken;
}

async function world(o: Parameters<typeof startCscSimulator>[0] = {}) {
  const sim = await startCscSimulator({ autoApprove: true, ...o });
  const client = new CscClient({
    serviceUrl: sim.serviceUrl,
    clientId: CSC_CLIENT_ID,
    fetch: sim.fetch,
    timeoutMs: 2_000,
  });
  const refresh = await signIn(sim, client);
  const store = openCscKeyStore({
    client,
    accessToken: async () => (await client.refresh(refresh)).accessToken,
    approve: async ({ credentialId, hashes }) => {
      const pkce = await newPkceRequest();
      const info = await client.info();
      const q = await callback(
        sim,
        authorizeUrl(info.oauth2, CSC_CLIENT_ID, REDIRECT, pkce, {
          scope: "credential",
          credentialId,
          hashes,
        }),
      );
      if (q.get("error")) throw new Error(q.get("error")!);
      return (await client.exchangeCode(q.get("code")!, pkce.verifier, REDIRECT)).accessToken;
    },
  });
  return { sim, client, store, refresh };
}

const files = (n: number) =>
  Array.from({ length: n }, (_, i) => new TextEncoder().encode(`EMPL2021 company ${i}\r\n`));

Deno.test("csc: sign-in with PKCE lists both credentials with their certificate chain", async () => {
  const { sim, client, store, refresh } = await world();
  try {
    const certs = await store.listCertificates();
    deepEqual(certs.map((c) => c.id), [sim.credentials.explicit, sim.credentials.oauth2code]);
    ok(certs[0]!.subject.includes("Ivan Petrov"));
    equal(certs[0]!.personalId, "PNOBG-8001010008");
    const access = (await client.refresh(refresh)).accessToken;
    const cred = await client.credential(access, sim.credentials.explicit);
    equal(cred.certificates.length, 2, "the signer and its CA");
    equal(cred.authMode, "explicit");
    ok(cred.pin);
    equal(sim.stats.signIns, 1);
  } finally {
    await sim.stop();
  }
});

Deno.test("csc: a code exchanged with the wrong verifier is refused", async () => {
  await using sim = await startCscSimulator({ autoApprove: true });
  const client = new CscClient({
    serviceUrl: sim.serviceUrl,
    clientId: CSC_CLIENT_ID,
    fetch: sim.fetch,
  });
  const pkce = await newPkceRequest();
  const info = await client.info();
  const q = await callback(
    sim,
    authorizeUrl(info.oauth2, CSC_CLIENT_ID, REDIRECT, pkce, { scope: "service" }),
  );
  const other = await newPkceRequest();
  await rejects(client.exchangeCode(q.get("code")!, other.verifier, REDIRECT), {
    code: "REMOTE_SIGN_IN_REQUIRED",
  });
});

Deno.test("csc: 50 files signed with one authorization (explicit PIN), each CMS verifies", async () => {
  const { sim, store } = await world();
  try {
    const [cert] = await store.listCertificates();
    const data = files(50);
    const p7s = await signDetachedMany(
      data,
      cert!.der,
      (tbs) => store.signMany(cert!.id, tbs, CSC_PIN),
    );
    equal(p7s.length, 50);
    equal(sim.stats.authorizations, 1, "one approval for the batch");
    equal(sim.stats.signHashCalls, 1);
    equal(sim.stats.hashesSigned, 50);
    for (const [i, s] of p7s.entries()) await verifyDetached(s, data[i]!);
    if (await hasTool("openssl", ["version"])) {
      const dir = await Deno.makeTempDir();
      try {
        await Deno.writeFile(join(dir, "f.bin"), data[7]!);
        await Deno.writeFile(join(dir, "f.p7s"), p7s[7]!);
        await Deno.writeTextFile(join(dir, "ca.pem"), sim.signerCaPem);
        const r = await run("openssl", [
          "cms",
          "-verify",
          "-binary",
          "-inform",
          "DER",
          "-in",
          join(dir, "f.p7s"),
          "-content",
          join(dir, "f.bin"),
          "-CAfile",
          join(dir, "ca.pem"),
          "-purpose",
          "any",
          "-out",
          "/dev/null",
        ]);
        equal(r.code, 0, r.stderr);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    } else if (Deno.env.get("CI") === "true") throw new Error("CI=true and openssl is missing");
  } finally {
    await sim.stop();
  }
});

Deno.test("csc: a limit of 20 hashes per authorization splits 50 files into 3", async () => {
  const { sim, store } = await world({ faults: { maxHashes: 20 } });
  try {
    const [cert] = await store.listCertificates();
    equal(await store.authorizationsFor(cert!.id, 50), 3);
    const p7s = await signDetachedMany(
      files(50),
      cert!.der,
      (t) => store.signMany(cert!.id, t, CSC_PIN),
    );
    equal(p7s.length, 50);
    equal(sim.stats.authorizations, 3);
  } finally {
    await sim.stop();
  }
});

Deno.test("csc: an oauth2code credential is approved once at the provider for the batch", async () => {
  const { sim, store } = await world();
  try {
    const cert = (await store.listCertificates())[1]!;
    equal((await store.authOf(cert.id)).authMode, "oauth2code");
    const data = files(5);
    const p7s = await signDetachedMany(data, cert.der, (t) => store.signMany(cert.id, t));
    await verifyDetached(p7s[4]!, data[4]!);
    equal(sim.stats.authorizations, 0, "no credentials/authorize: the approval was the OAuth step");
    equal(sim.stats.signHashCalls, 1);
  } finally {
    await sim.stop();
  }
});

Deno.test("csc: faults map to catalog codes, provider words in details, no secret", async () => {
  const { sim, store, client, refresh } = await world();
  try {
    const [cert] = await store.listCertificates();
    const one = () => store.sign(cert!.id, new Uint8Array([1, 2, 3]), CSC_PIN);
    await rejects(store.sign(cert!.id, new Uint8Array([1]), "0000"), { code: "PIN_INCORRECT" });
    sim.faults.decline = true;
    await rejects(one(), { code: "SENDER_NOT_CHOSEN" });
    sim.faults.decline = false;
    sim.faults.wrongSad = true;
    await rejects(
      one(),
      (e: { code: string; details: Record<string, unknown>; message: string }) => {
        equal(e.code, "SIGNING_FAILED");
        equal(e.details.providerError, "invalid_request");
        equal(e.details.providerDescription, "SAD is invalid or expired");
        ok(!JSON.stringify(e.details).includes(CSC_PIN));
        return true;
      },
    );
    sim.faults.wrongSad = false;
    sim.faults.wrongKey = true;
    await rejects(
      signDetachedMany(files(2), cert!.der, (t) => store.signMany(cert!.id, t, CSC_PIN)),
      (e: { code: string; message: string }) => {
        equal(e.code, "SIGNING_FAILED");
        ok(/does not verify/.test(e.message), e.message);
        return true;
      },
    );
    sim.faults.wrongKey = false;
    sim.faults.delayMs = 2_500;
    await rejects(one(), { code: "REMOTE_SIGNING_TIMEOUT" });
    sim.faults.delayMs = 0;
    sim.faults.expiredRefresh = true;
    await rejects(client.refresh(refresh), (e: { code: string; message: string }) => {
      equal(e.code, "REMOTE_SIGN_IN_REQUIRED");
      ok(!e.message.includes(refresh));
      return true;
    });
    sim.faults.expiredRefresh = false;
    sim.revokeAll();
    await rejects(one(), { code: "REMOTE_SIGN_IN_REQUIRED" });
  } finally {
    await sim.stop();
  }
});

Deno.test("csc: an online OTP is sent before each authorization and goes with the PIN; a wrong one is OTP_INCORRECT", async () => {
  const sim = await startCscSimulator({ autoApprove: true, otp: true, faults: { maxHashes: 2 } });
  try {
    const client = new CscClient({
      serviceUrl: sim.serviceUrl,
      clientId: CSC_CLIENT_ID,
      fetch: sim.fetch,
      timeoutMs: 2_000,
    });
    const refresh = await signIn(sim, client);
    const cred = await client.credential((await client.refresh(refresh)).accessToken, "cred-otp-1");
    equal(cred.authMode, "explicit");
    ok(cred.pin && cred.otp);
    equal(cred.otpType, "online");
    const asked: { online: boolean; part: number; parts: number; sent: string | null }[] = [];
    let typo = false;
    const store = openCscKeyStore({
      client,
      accessToken: async () => (await client.refresh(refresh)).accessToken,
      askOtp: ({ credentialId, online, part, parts }) => {
        const sent = sim.sentOtp(credentialId);
        asked.push({ online, part, parts, sent });
        return Promise.resolve(typo ? `${sent}9` : sent!);
      },
    });
    deepEqual(await store.authOf("cred-otp-1"), { authMode: "explicit", pin: true, otp: "online" });
    const sigs = await store.signMany("cred-otp-1", files(3), CSC_PIN);
    equal(sigs.length, 3);
    deepEqual(asked.map((a) => [a.online, a.part, a.parts]), [[true, 1, 2], [true, 2, 2]]);
    ok(asked.every((a) => a.sent !== null && /^\d{6}$/.test(a.sent)), "sent before it was asked");
    equal(sim.stats.authorizations, 2);
    typo = true;
    const signed = sim.stats.hashesSigned;
    await rejects(store.sign("cred-otp-1", new Uint8Array([1]), CSC_PIN), (e: Error) => {
      equal((e as { code?: string }).code, "OTP_INCORRECT");
      ok(!JSON.stringify(e).includes(asked.at(-1)!.sent!), "the code is not in the error");
      return true;
    });
    equal(sim.stats.hashesSigned, signed, "nothing signed with a wrong code");
    const noPage = openCscKeyStore({
      client,
      accessToken: async () => (await client.refresh(refresh)).accessToken,
    });
    await rejects(noPage.sign("cred-otp-1", new Uint8Array([1]), CSC_PIN), {
      code: "KEYSTORE_UNAVAILABLE",
    });
  } finally {
    await sim.stop();
  }
});
