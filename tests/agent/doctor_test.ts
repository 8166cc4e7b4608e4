import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import {
  type DoctorCheck,
  type DoctorDeps,
  doctorExitCode,
  formatDoctorReport,
  runDoctor,
} from "../../src/agent/doctor/doctor.ts";
import { LOCK_FILE, RUNNING_FILE, writeRunningRecord } from "../../src/agent/start/mod.ts";
import type { CertificateInfo, KeyStore } from "../../src/signing/mod.ts";
import { VERSION } from "../../src/version.ts";
import {
  makeCert,
  pem,
  SOFTHSM2_MODULE,
  TEST_CA_SUBJECT,
  TEST_PERSONAL_ID,
  toolsMissing,
  writePkcs12,
  writeTestPki,
} from "../_helpers/pki.ts";
import { createSoftHsmToken, holdSoftHsm } from "../signing/softhsm_fixture.ts";
import { freePort } from "../_helpers/e2e.ts";

const NOW = Date.parse("2026-03-02T10:00:00Z");
const HTTP_DATE = new Date(NOW).toUTCString(); // server's clock = NOW (1 s resolution)
const YEAR_AGO = new Date(NOW - 365 * 86_400_000);
const IN_30_DAYS = new Date(NOW + 30 * 86_400_000);

async function publicJwk(kid: string): Promise<Record<string, unknown>> {
  const kp = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
  const jwk = await crypto.subtle.exportKey("jwk", (kp as CryptoKeyPair).publicKey);
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid, alg: "EdDSA", use: "sig" };
}

/** A token service stand-in: /.well-known/jwks.json with a fixed Date header. */
function tokenService(body: () => Response) {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    if (new URL(req.url).pathname !== "/.well-known/jwks.json") {
      return new Response("no", { status: 404 });
    }
    return body();
  });
}
const jwksResponse = (keys: unknown[], date = HTTP_DATE) =>
  Response.json({ keys }, { headers: { date } });

/** Every check says the same in Bulgarian: a title, a detail, and a fix exactly when English has one. */
function assertBilingual(checks: DoctorCheck[]): void {
  for (const c of checks) {
    ok(c.titleBg && c.detailBg, `${c.id} has Bulgarian texts`);
    equal(c.fixBg === null, c.fix === null, `${c.id}: fixBg beside fix`);
    if (c.id !== "agent-file") ok(/[А-Яа-я]/.test(c.titleBg), `${c.id}: ${c.titleBg}`);
    if (c.fixBg) ok(/[А-Яа-я]/.test(c.fixBg), `${c.id}: ${c.fixBg}`);
  }
}

const byId = (checks: DoctorCheck[], id: string) => {
  const c = checks.find((x) => x.id === id);
  ok(c, `no check ${id} in ${checks.map((x) => x.id).join(", ")}`);
  return c;
};

/** Deps for a quick run: everything local, nothing slow. */
async function deps(
  over: Partial<DoctorDeps> = {},
): Promise<DoctorDeps & { cleanup(): Promise<void> }> {
  const dir = await Deno.makeTempDir();
  return {
    dataDir: join(dir, "data"),
    tokenServiceUrl: "http://127.0.0.1:1",
    now: () => NOW,
    ports: [17470],
    portFree: () => Promise.resolve(true),
    discoverModules: () => Promise.resolve([]),
    timeoutMs: 1000,
    ...over,
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
}

function busyPort(answer?: (req: Request) => Response) {
  if (answer) return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, answer);
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  return { addr: l.addr as Deno.NetAddr, shutdown: () => Promise.resolve(l.close()) };
}

/** A real listener answering GET /health as an agent would. */
const agentLike = (version: string) =>
  busyPort(() => Response.json({ status: "ok", service: "svc-agent", version, port: 0 }));

/** No port-free stub: the real Deno.listen probe. */
const real = { portFree: undefined as unknown as NonNullable<DoctorDeps["portFree"]> };

Deno.test("runDoctor() port: free, another agent, another program with a free fallback, all busy", async () => {
  const agent = agentLike("1.2.3");
  const other = busyPort(() => new Response("hello", { status: 404 }));
  const raw = busyPort();
  const free = freePort();
  const d = await deps();
  try {
    let c = byId(await runDoctor(d), "port");
    deepStrictEqual([c.ok, c.fix], [true, null]);
    equal(c.detail, "Free: this data folder's agent will listen on 17470 (fallback 17470–17470)");
    equal(c.titleBg, "Порт на агента (17470–17470)");
    ok(c.detailBg.startsWith("Свободен: агентът на тази папка с данни ще слуша на 17470"));

    // An agent that is not this data folder's (no record, no lock) is another agent, never "ours".
    c = byId(await runDoctor({ ...d, ...real, ports: [agent.addr.port, free] }), "port");
    equal(c.ok, "warn");
    equal(
      c.detail,
      `This data folder's agent is not running; it will listen on fallback port ${free}; ` +
        `another agent (another user or data folder) listens on ${agent.addr.port} (version 1.2.3)`,
    );
    ok(c.fix?.startsWith(`Pages look for the agent from ${agent.addr.port} upward`), c.fix ?? "");
    ok(c.detailBg.includes(`друг агент (на друг потребител или с друга папка с данни) слуша на`));

    c = byId(await runDoctor({ ...d, ...real, ports: [other.addr.port, free] }), "port");
    equal(c.ok, "warn");
    equal(
      c.detail,
      `This data folder's agent is not running; it will listen on fallback port ${free}; ` +
        `${other.addr.port} is used by another program`,
    );
    ok(c.fix?.includes(`lsof -nP -iTCP:${other.addr.port} -sTCP:LISTEN`), c.fix ?? "");
    ok(c.fixBg?.startsWith(`Спрете програмата, която заема порт ${other.addr.port}`), c.fixBg!);

    c = byId(
      await runDoctor({ ...d, ...real, os: "windows", ports: [other.addr.port, raw.addr.port] }),
      "port",
    );
    equal(c.ok, false);
    ok(c.detail.startsWith("All ports"), c.detail);
    ok(c.fix?.includes(`netstat -ano | findstr :${other.addr.port}`), c.fix ?? "");
    ok(c.fixBg?.includes("` и `tasklist"), c.fixBg ?? "");
  } finally {
    await Promise.all([agent.shutdown(), other.shutdown(), raw.shutdown(), d.cleanup()]);
  }
});

Deno.test("runDoctor() several agents on one machine: this data folder's agent (record or lock) vs other agents on real sockets", async () => {
  const mine = agentLike("2.0.0");
  const theirs = agentLike("1.0.0");
  const free = freePort();
  const d = await deps({ ...real, isAlive: (pid) => Promise.resolve(pid === Deno.pid) });
  const [me, them] = [mine.addr.port, theirs.addr.port];
  const record = (port: number, pid = Deno.pid) =>
    writeRunningRecord(d.dataDir, {
      pid,
      port,
      tlsPort: null,
      startedAt: new Date(NOW).toISOString(),
      version: "2.0.0",
      tokenServiceUrl: "http://127.0.0.1:1",
    });
  try {
    await Deno.mkdir(d.dataDir, { recursive: true });
    await record(me);
    // The other agent holds the first port, this folder's agent a fallback (the reported bug).
    let c = byId(await runDoctor({ ...d, ports: [them, me, free] }), "port");
    equal(c.ok, "warn");
    equal(
      c.detail,
      `This data folder's agent (pid ${Deno.pid}, version 2.0.0) listens on ${me}; ` +
        `another agent (another user or data folder) listens on ${them} (version 1.0.0)`,
    );
    ok(c.fix?.includes(`reach the agent on ${them} first`), c.fix ?? "");
    ok(c.detailBg.startsWith(`Агентът на тази папка с данни (процес ${Deno.pid}, версия 2.0.0)`));
    ok(c.fixBg?.includes("собствен начален порт"), c.fixBg ?? "");

    // This folder's agent first: the other one is named, nothing to fix.
    c = byId(await runDoctor({ ...d, ports: [me, them, free] }), "port");
    deepStrictEqual([c.ok, c.fix, c.fixBg], [true, null, null]);
    ok(c.detail.includes(`listens on ${me}; another agent`), c.detail);

    // A record whose process is gone (the demo ended with Ctrl+C) names no agent, even when its
    // port now answers as an agent: that one is another agent.
    await record(them, 999_999);
    c = byId(await runDoctor({ ...d, ports: [them, me, free] }), "port");
    equal(c.ok, "warn");
    ok(c.detail.startsWith("This data folder's agent is not running; it will listen on"), c.detail);
    ok(c.detail.includes(`other agents (other users or data folders) listen on ${them}`), c.detail);

    // Only the instance lock (phase 1, or an agent of a version without the record).
    await Deno.remove(join(d.dataDir, RUNNING_FILE));
    const lock = { pid: Deno.pid, port: me, startedAt: new Date().toISOString(), version: "2.0.0" };
    await Deno.writeTextFile(join(d.dataDir, LOCK_FILE), JSON.stringify(lock));
    c = byId(await runDoctor({ ...d, ports: [me, them] }), "port");
    equal(c.ok, true);
    ok(c.detail.startsWith(`This data folder's agent (pid ${Deno.pid}, version 2.0.0)`), c.detail);
    await Deno.writeTextFile(join(d.dataDir, LOCK_FILE), JSON.stringify({ ...lock, port: 0 }));
    c = byId(await runDoctor({ ...d, ports: [me, them] }), "port");
    ok(c.detail.startsWith(`This data folder's agent is starting (pid ${Deno.pid})`), c.detail);

    // Inside the agent (selfPort): its own port is its own, not "taken"; no file is read.
    await Deno.remove(join(d.dataDir, LOCK_FILE));
    c = byId(await runDoctor({ ...d, selfPort: me, ports: [me, them, free] }), "port");
    equal(c.ok, true);
    equal(
      c.detail,
      `This data folder's agent (pid ${Deno.pid}, version ${VERSION}) listens on ${me}; ` +
        `another agent (another user or data folder) listens on ${them} (version 1.0.0)`,
    );
    // Outside the range pages probe (e.g. --port 0): a warning with a fix.
    c = byId(await runDoctor({ ...d, selfPort: me, ports: [them, free] }), "port");
    equal(c.ok, "warn");
    ok(c.detail.includes(`listens on ${me}, outside ${them}–${free}`), c.detail);
    ok(c.fix?.includes("--port / SVC_AGENT_PORT"), c.fix ?? "");
  } finally {
    await Promise.all([mine.shutdown(), theirs.shutdown(), d.cleanup()]);
  }
});

Deno.test("runDoctor() token service: the URL this data folder's running agent was started with (the demo's random port)", async () => {
  const keys = [await publicJwk("demo")];
  const ts = tokenService(() => jwksResponse(keys));
  const tsUrl = `http://127.0.0.1:${ts.addr.port}`;
  const agent = agentLike(VERSION);
  const d = await deps({ isAlive: (pid) => Promise.resolve(pid === Deno.pid) });
  try {
    await Deno.mkdir(d.dataDir, { recursive: true });
    const rec = {
      pid: Deno.pid,
      port: agent.addr.port,
      tlsPort: null,
      startedAt: new Date(NOW).toISOString(),
      version: VERSION,
      tokenServiceUrl: tsUrl,
    };
    await writeRunningRecord(d.dataDir, rec);
    // The configured default (nothing listens there) is replaced by the running agent's URL.
    let c = byId(await runDoctor(d), "token-service");
    equal(c.ok, true, c.detail);
    equal(
      c.detail,
      `${tsUrl}/.well-known/jwks.json: 1 Ed25519 key(s), kid demo ` +
        "(the URL this data folder's running agent was started with)",
    );
    ok(
      c.detailBg.endsWith("(адресът, с който е стартиран работещият агент на тази папка с данни)"),
    );
    // --token-service given for this run: checked as it is.
    c = byId(await runDoctor({ ...d, tokenServiceSource: "flag" }), "token-service");
    equal(c.ok, false);
    ok(c.detail.startsWith("Cannot reach http://127.0.0.1:1/"), c.detail);
    ok(c.fix?.includes("SVC_TOKEN_SERVICE_URL or --token-service"));
    // Inside the agent: its own configuration is the truth.
    c = byId(
      await runDoctor({ ...d, selfPort: agent.addr.port, tokenServiceUrl: tsUrl }),
      "token-service",
    );
    equal(c.detail, `${tsUrl}/.well-known/jwks.json: 1 Ed25519 key(s), kid demo`);
    // A record of a process that has ended: the configuration again.
    await writeRunningRecord(d.dataDir, { ...rec, pid: 999_999 });
    c = byId(await runDoctor(d), "token-service");
    equal(c.ok, false);
    ok(c.detail.startsWith("Cannot reach http://127.0.0.1:1/"), c.detail);
  } finally {
    await Promise.all([ts.shutdown(), agent.shutdown(), d.cleanup()]);
  }
});

Deno.test("runDoctor() token service: a valid Ed25519 JWKS passes; clock skew ok / warn / fail", async () => {
  const keys = [await publicJwk("k1"), await publicJwk("k2")];
  const ts = tokenService(() => jwksResponse(keys));
  const url = `http://127.0.0.1:${ts.addr.port}`;
  const d = await deps({ tokenServiceUrl: url });
  try {
    const run = async (offsetMs: number) => {
      const checks = await runDoctor({ ...d, now: () => NOW + 500 + offsetMs });
      return [byId(checks, "token-service"), byId(checks, "clock")] as const;
    };
    const [svc, clock] = await run(300);
    equal(svc.ok, true);
    equal(svc.detail, `${url}/.well-known/jwks.json: 2 Ed25519 key(s), kid k1, k2`);
    deepStrictEqual([clock.ok, clock.fix], [true, null]);
    equal(
      clock.detail,
      "This PC's clock matches the token service (to ±0.5 s) (tokens live 5 s; the agent allows 2 s of skew)",
    );
    const [, warn] = await run(-1500);
    equal(warn.ok, "warn");
    ok(warn.detail.startsWith("This PC's clock is about 1.5 s behind"), warn.detail);
    ok(warn.fix?.startsWith("Sync the clock: "));
    const [, bad] = await run(3000);
    equal(bad.ok, false);
    ok(bad.detail.includes("3.0 s ahead"));
    ok(bad.detail.includes("tokens live 5 s; the agent allows 2 s of skew"));
  } finally {
    await ts.shutdown();
    await d.cleanup();
  }
});

Deno.test("runDoctor() clock: one stale Date (a server under load) is read again, not reported as skew; a real skew stays", async () => {
  const keys = [await publicJwk("k1")];
  let answers = 0;
  // The first answer carries a Date 3 s old, the later ones the server's true time.
  const ts = tokenService(() =>
    jwksResponse(keys, answers++ === 0 ? new Date(NOW - 3000).toUTCString() : HTTP_DATE)
  );
  const d = await deps({ tokenServiceUrl: `http://127.0.0.1:${ts.addr.port}` });
  try {
    const clock = byId(await runDoctor({ ...d, now: () => NOW + 500 }), "clock");
    deepStrictEqual([clock.ok, answers], [true, 3]);
    // Every answer 3 s old: the skew is real and reported as before.
    answers = 0;
    const stale = tokenService(() => jwksResponse(keys, new Date(NOW - 3000).toUTCString()));
    try {
      const url = `http://127.0.0.1:${stale.addr.port}`;
      const bad = byId(
        await runDoctor({ ...d, tokenServiceUrl: url, now: () => NOW + 500 }),
        "clock",
      );
      equal(bad.ok, false);
      ok(bad.detail.includes("3.0 s ahead"), bad.detail);
    } finally {
      await stale.shutdown();
    }
  } finally {
    await ts.shutdown();
    await d.cleanup();
  }
});

Deno.test("runDoctor() token service failures: unreachable, HTTP 500, private key, RSA, no kid, no Date", async () => {
  const good = await publicJwk("k1");
  const cases: [string, () => Response, RegExp][] = [
    ["500", () => new Response("oops", { status: 500 }), /answered HTTP 500/],
    ["html", () => new Response("<html>", { headers: { date: HTTP_DATE } }), /did not return JSON/],
    ["empty", () => jwksResponse([]), /lists no keys/],
    ["private", () => jwksResponse([{ ...good, d: "secret" }]), /PRIVATE key material/],
    ["rsa", () => jwksResponse([{ kty: "RSA", n: "x", e: "AQAB", kid: "r" }]), /not OKP\/Ed25519/],
    ["nokid", () => jwksResponse([{ ...good, kid: undefined }]), /has no kid/],
  ];
  const d = await deps();
  try {
    for (const [name, body, re] of cases) {
      const ts = tokenService(body);
      try {
        const c = byId(
          await runDoctor({ ...d, tokenServiceUrl: `http://127.0.0.1:${ts.addr.port}` }),
          "token-service",
        );
        equal(c.ok, false, name);
        ok(re.test(c.detail), `${name}: ${c.detail}`);
        ok(c.fix?.includes("SVC_TOKEN_SERVICE_URL"), name);
        ok(!c.detail.includes("secret"), "never echo key material");
      } finally {
        await ts.shutdown();
      }
    }
    const down = await runDoctor({ ...d, tokenServiceUrl: "http://user:pw@127.0.0.1:1/" });
    const c = byId(down, "token-service");
    equal(c.ok, false);
    ok(c.detail.startsWith("Cannot reach http://127.0.0.1:1/.well-known/jwks.json"), c.detail);
    ok(!JSON.stringify(down).includes("pw@"), "credentials in the URL are not shown");
    equal(byId(down, "clock").ok, "warn");
    const noDate = await runDoctor({
      ...d,
      tokenServiceUrl: "http://ts.example",
      fetch: () => Promise.resolve(Response.json({ keys: [good] })),
    });
    equal(byId(noDate, "token-service").ok, true);
    equal(byId(noDate, "clock").ok, "warn");
    ok(byId(noDate, "clock").detail.includes("no Date header"));
  } finally {
    await d.cleanup();
  }
});

Deno.test("runDoctor() data dir: writable temp dir passes; a path under a regular file fails with a fix", async () => {
  const d = await deps();
  try {
    const good = byId(await runDoctor(d), "data-dir");
    equal(good.ok, true);
    equal((await Array.fromAsync(Deno.readDir(d.dataDir))).length, 0, "probe file removed");
    // chmod 0o500 would not stop root (tests run as root here): use a path under a file.
    const file = join(d.dataDir, "plain-file");
    await Deno.writeTextFile(file, "x");
    const bad = byId(await runDoctor({ ...d, dataDir: join(file, "sub") }), "data-dir");
    equal(bad.ok, false);
    ok(bad.detail.startsWith(`Cannot write in ${join(file, "sub")}`));
    ok(bad.fix?.includes("--data-dir or SVC_DATA_DIR"));
  } finally {
    await d.cleanup();
  }
});

Deno.test("runDoctor() agent.json: absent → test mode note; invalid → fail with the path", async () => {
  const d = await deps();
  try {
    const none = await runDoctor(d);
    equal(byId(none, "agent-file").ok, true);
    ok(byId(none, "agent-file").detail.includes("built-in fictitious sender"));
    await Deno.mkdir(d.dataDir, { recursive: true });
    await Deno.writeTextFile(join(d.dataDir, "agent.json"), "{oops");
    const bad = byId(await runDoctor(d), "agent-file");
    equal(bad.ok, false);
    ok(bad.fix?.includes(join(d.dataDir, "agent.json")));
  } finally {
    await d.cleanup();
  }
});

async function withSenders(d: DoctorDeps, senders: unknown[]) {
  await Deno.mkdir(d.dataDir, { recursive: true });
  await Deno.writeTextFile(join(d.dataDir, "agent.json"), JSON.stringify({ senders }));
}
const sender = (id: string, keystore?: Record<string, unknown>, active = true) => ({
  id,
  displayName: id,
  active,
  ...(keystore ? { keystore } : {}),
});

Deno.test("runDoctor() senders: certificate files (valid, expired, not qualified) and PKCS#12 files", async () => {
  const d = await deps();
  const ca = await makeCert({ subject: TEST_CA_SUBJECT, ca: true });
  const subject = `CN=Ivan Petrov, 2.5.4.5=${TEST_PERSONAL_ID}, C=BG`;
  const valid = await makeCert({ subject, issuer: ca, notBefore: YEAR_AGO, notAfter: IN_30_DAYS });
  const expired = await makeCert({
    subject,
    issuer: ca,
    notBefore: new Date(NOW - 86_400_000 * 400),
    notAfter: new Date(NOW - 86_400_000),
  });
  const plain = await makeCert({
    subject: "CN=Self Signed",
    qc: false,
    notBefore: YEAR_AGO,
    notAfter: IN_30_DAYS,
  });
  const soon = await makeCert({
    subject,
    issuer: ca,
    notBefore: YEAR_AGO,
    notAfter: new Date(NOW + 20 * 86_400_000 + 3_600_000),
  });
  try {
    const f = (n: string) => join(d.dataDir, n);
    await withSenders(d, [
      sender("ok", { type: "pkcs12", file: "/x.p12", certificateFile: f("valid.pem") }),
      sender("old", { type: "pkcs11", module: "/x.so", certificateFile: f("expired.der") }),
      sender("plain", { type: "macos", certificateFile: f("plain.der") }),
      sender("gone", { type: "pkcs12", file: f("missing.p12") }),
      sender("junk", { type: "pkcs12", file: f("junk.p12") }),
      sender("nokey"),
      sender("odd", { type: "smartcard-magic" }),
      sender("off", { type: "pkcs12", file: "/nowhere" }, false),
      sender("win", { type: "windows", thumbprint: "AB".repeat(20) }),
      sender("soon", { type: "pkcs12", file: "/x.p12", certificateFile: f("soon.der") }),
    ]);
    await Deno.writeFile(f("soon.der"), soon.der);
    await Deno.writeTextFile(f("valid.pem"), pem("CERTIFICATE", valid.der));
    await Deno.writeFile(f("expired.der"), expired.der);
    await Deno.writeFile(f("plain.der"), plain.der);
    await Deno.writeTextFile(f("junk.p12"), "not a pfx");
    const checks = await runDoctor(d);
    const s = (id: string) => byId(checks, `sender:${id}`);
    equal(s("ok").ok, true);
    ok(s("ok").detail.startsWith("Ivan Petrov: Valid until"), s("ok").detail);
    equal(s("old").ok, false);
    ok(s("old").detail.includes("Expired on"));
    ok(s("old").fix?.startsWith("Renew the certificate"));
    equal(s("plain").ok, "warn");
    ok(s("plain").fix?.includes("NRA rejects others"));
    equal(s("gone").ok, false);
    equal(s("gone").fix, "Put the file back or correct its path in agent.json");
    equal(s("junk").ok, false);
    ok(s("junk").fix?.includes(".p12/.pfx"));
    equal(s("nokey").ok, "warn");
    equal(s("odd").ok, false);
    ok(s("odd").fix?.includes("pkcs12, pkcs11, windows, macos or csc"));
    deepStrictEqual([s("off").ok, s("off").detail], [true, "Inactive: not checked"]);
    equal(s("win").ok, true);
    // Valid, but ending within 30 days: a warning with what to do (30 days left: none).
    equal(s("soon").ok, "warn");
    ok(s("soon").fix?.startsWith("The certificate ends in 20 days"), String(s("soon").fix));
    ok(s("soon").fixBg?.startsWith("Сертификатът изтича след 20 дни"), String(s("soon").fixBg));
    ok(!JSON.stringify(checks).includes(TEST_PERSONAL_ID), "personal id never shown");
    for (const c of checks) if (c.ok !== true) ok(c.fix, `${c.id} has a fix`);
    assertBilingual(checks);
    equal(s("old").detailBg.split(": ")[1]!.slice(0, 10), "Изтекъл на", s("old").detailBg);
    ok(s("ok").detailBg.includes("Издаден от BORICA (B-Trust)"), s("ok").detailBg);
    equal(s("gone").fixBg, "Върнете файла или поправете пътя до него в agent.json");
  } finally {
    await d.cleanup();
  }
});

function fakeStore(certs: CertificateInfo[]): KeyStore {
  return {
    kind: "pkcs11",
    listCertificates: () => Promise.resolve(certs),
    sign: () => Promise.reject(new Error("not here")),
    close: () => Promise.resolve(),
  };
}

Deno.test("runDoctor() PKCS#11 senders: middleware missing, wrong CPU, token certs via the module, certId", async () => {
  const d = await deps({
    discoverModules: () =>
      Promise.resolve([{
        provider: "Generic",
        middleware: "OpenSC",
        os: "linux" as const,
        path: "/usr/lib/opensc-pkcs11.so",
        verified: true,
      }]),
  });
  const ca = await makeCert({ subject: TEST_CA_SUBJECT, ca: true });
  const leaf = await makeCert({
    subject: "CN=Token Holder, C=BG",
    issuer: ca,
    notBefore: YEAR_AGO,
    notAfter: IN_30_DAYS,
  });
  const info = {
    id: "pkcs11:serial=1;id=01",
    subject: "CN=Token Holder, C=BG",
    der: leaf.der,
  } as CertificateInfo;
  try {
    const wrong = join(d.dataDir, "libvendor.so");
    await withSenders(d, [
      sender("missing", { type: "pkcs11", module: join(d.dataDir, "nope.so") }),
      sender("arm", { type: "pkcs11", module: wrong }),
    ]);
    // An ELF header for another CPU: 64-bit LE, e_machine aarch64 (183) or x86_64 (62).
    const head = new Uint8Array(64);
    head.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
    new DataView(head.buffer).setUint16(18, Deno.build.arch === "x86_64" ? 183 : 62, true);
    await Deno.writeFile(wrong, head);
    const real = await runDoctor({ ...d, os: "linux" });
    const missing = byId(real, "sender:missing");
    equal(missing.ok, false);
    ok(missing.fix?.startsWith("Middleware missing"), missing.fix ?? "");
    ok(missing.fix?.includes("OpenSC (/usr/lib/opensc-pkcs11.so)"));
    equal(byId(real, "pkcs11-modules").detail, "Generic: OpenSC (/usr/lib/opensc-pkcs11.so)");
    if (Deno.build.os === "linux") {
      const arm = byId(real, "sender:arm");
      equal(arm.ok, false);
      ok(
        arm.fix?.startsWith(
          `Wrong CPU architecture: install the middleware build for ${Deno.build.arch}`,
        ),
      );
    }
    await withSenders(d, [
      sender("tok", { type: "pkcs11", module: "/vendor.so", tokenLabel: "QES" }),
      sender("pick", { type: "pkcs11", module: "/vendor.so", certId: "id=02" }),
    ]);
    const opened: unknown[] = [];
    const checks = await runDoctor({
      ...d,
      openPkcs11: (m, label) => {
        opened.push([m, label]);
        return Promise.resolve(fakeStore([info]));
      },
    });
    deepStrictEqual(opened, [["/vendor.so", "QES"], ["/vendor.so", undefined]]);
    equal(byId(checks, "sender:tok").ok, true);
    const pick = byId(checks, "sender:pick");
    equal(pick.ok, false);
    equal(pick.fix, "Set keystore.certId to one of: pkcs11:serial=1;id=01");
    const empty = await runDoctor({ ...d, openPkcs11: () => Promise.resolve(fakeStore([])) });
    equal(byId(empty, "sender:tok").ok, "warn");
  } finally {
    await d.cleanup();
  }
});

Deno.test("runDoctor() live portal: none → the built-in test portal; reachable, no credentials, 5xx, unreachable, bad caFile", async () => {
  let status = 404;
  const seen: string[] = [];
  const portal = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    seen.push(req.method);
    return new Response(null, { status });
  });
  const base = `http://127.0.0.1:${portal.addr.port}`;
  const d = await deps();
  const write = (p: Record<string, unknown> | undefined) =>
    Deno.writeTextFile(join(d.dataDir, "agent.json"), JSON.stringify(p ? { portal: p } : {}));
  try {
    await Deno.mkdir(d.dataDir, { recursive: true });
    let c = byId(await runDoctor(d), "portal");
    equal(c.ok, true);
    ok(c.detail.startsWith("Test mode only: the test portal is built into the agent"), c.detail);
    ok(c.detailBg.startsWith("Само тестов режим: тестовият портал е вграден в агента"));

    const creds = { clientId: "id", clientSecret: "very-secret-value" };
    await write({ baseUrl: base, environment: "test", ...creds });
    c = byId(await runDoctor(d), "portal");
    equal(c.ok, true, c.detail);
    equal(
      c.detail,
      `${base}/ answers (HTTP 404); environment: the NRA's test environment; test filings use ` +
        "the built-in test portal",
    );
    deepStrictEqual(seen, ["HEAD"]);

    await write({ baseUrl: base, environment: "production" });
    c = byId(await runDoctor(d), "portal");
    equal(c.ok, "warn");
    ok(c.detail.includes("environment: production; no credentials configured"), c.detail);
    ok(c.fix?.includes("portal.clientId and portal.clientSecret, or portal.accessToken"));

    status = 503;
    await write({ baseUrl: base, accessToken: "a.b.c" });
    c = byId(await runDoctor(d), "portal");
    equal(c.ok, "warn");
    ok(c.detail.includes("(HTTP 503)"), c.detail);

    await portal.shutdown();
    c = byId(await runDoctor(d), "portal");
    equal(c.ok, false);
    ok(c.detail.startsWith(`Cannot reach ${base}/: `), c.detail);
    ok(c.fix?.includes("test filings are not affected"));
    ok(c.detailBg.startsWith(`Няма връзка с ${base}/`));

    await write({ baseUrl: base, caFile: join(d.dataDir, "missing-ca.pem"), ...creds });
    c = byId(await runDoctor(d), "portal");
    equal(c.ok, false);
    ok(c.detail.includes("portal.caFile"), c.detail);
    const all = await runDoctor(d);
    ok(!JSON.stringify(all).includes("very-secret-value"), "credentials never shown");
    assertBilingual(all);

    await Deno.writeTextFile(join(d.dataDir, "agent.json"), "{oops");
    c = byId(await runDoctor(d), "portal");
    deepStrictEqual([c.ok, c.detail], ["warn", "Not checked: agent.json is invalid"]);
  } finally {
    await portal.shutdown().catch(() => {});
    await d.cleanup();
  }
});

Deno.test("formatDoctorReport() / doctorExitCode(): status tags, fixes for non-ok only, summary", async () => {
  const d = await deps();
  try {
    await withSenders(d, []);
    await Deno.writeTextFile(
      join(d.dataDir, "agent.json"),
      JSON.stringify({ allowedOrigins: ["https://books.example"] }),
    );
    const checks = await runDoctor(d);
    const lna = byId(checks, "browser-lna");
    equal(lna.ok, true);
    ok(lna.detail.includes('LocalNetworkAccessAllowedForUrls = ["https://books.example"]'));
    const text = formatDoctorReport(checks);
    ok(text.includes("[FAIL] Token service and JWKS\n       Cannot reach"), text);
    ok(text.includes("\n       Fix: Check SVC_TOKEN_SERVICE_URL"));
    ok(text.includes("[ OK ] Agent port (17470–17470)"));
    ok(text.includes("[WARN] Clock (against the token service)"));
    ok(text.endsWith("6 ok, 1 warning(s), 1 failed"), text.split("\n").at(-1));
    // The same report in Bulgarian (`agent doctor --lang bg`; the console shows these texts).
    const bg = formatDoctorReport(checks, "bg");
    ok(bg.includes("[FAIL] Услуга за токени и JWKS\n       Няма връзка с http://127.0.0.1:1/"), bg);
    ok(bg.includes("\n       Решение: Проверете SVC_TOKEN_SERVICE_URL или --token-service"), bg);
    ok(bg.includes("[ OK ] Порт на агента (17470–17470)"), bg);
    ok(bg.includes("[ OK ] Портал на НАП (реални подавания)\n       Само тестов режим"), bg);
    ok(bg.endsWith("6 наред, 1 с предупреждение, 1 неуспешни"), bg.split("\n").at(-1));
    equal(doctorExitCode(checks), 1);
    equal(doctorExitCode(checks.filter((c) => c.ok !== false)), 0);
  } finally {
    await d.cleanup();
  }
});

const missingPfxTools = await toolsMissing(["openssl"]);

Deno.test({
  name:
    "runDoctor() PKCS#12 files made by openssl: encrypted certificate bag → ok without PIN; plain bag → checked",
  ignore: missingPfxTools !== undefined,
  async fn() {
    const d = await deps({ now: () => Date.now() });
    try {
      await Deno.mkdir(d.dataDir, { recursive: true });
      const pki = await writeTestPki(d.dataDir);
      const pfx = async (name: string, extra: string[]) => {
        return await writePkcs12(pki.rsa, join(d.dataDir, name), "secret-pin", extra);
      };
      const enc = await pfx("enc.p12", []);
      const plain = await pfx("plain.p12", ["-certpbe", "NONE"]);
      await withSenders(d, [
        sender("enc", { type: "pkcs12", file: enc }),
        sender("plain", { type: "pkcs12", file: plain }),
      ]);
      const checks = await runDoctor(d);
      const e = byId(checks, "sender:enc");
      equal(e.ok, true);
      equal(
        e.detail,
        `${enc} is readable; its certificate is encrypted and is checked when signing`,
      );
      const p = byId(checks, "sender:plain");
      equal(p.ok, true, p.detail);
      ok(p.detail.startsWith("Ivan Petrov rsa: Valid until"), p.detail);
      ok(!JSON.stringify(checks).includes("secret-pin"));
    } finally {
      await d.cleanup();
    }
  },
});

const missingHsm = await toolsMissing(
  ["openssl", "softhsm2-util", "pkcs11-tool"],
  [SOFTHSM2_MODULE],
);

Deno.test({
  name:
    "runDoctor() PKCS#11 sender on a real SoftHSM2 token: module loads, certificates listed without PIN",
  ignore: missingHsm !== undefined,
  sanitizeResources: false,
  async fn() {
    await using hsm = await holdSoftHsm();
    const d = await deps({ now: () => Date.now() });
    try {
      await Deno.mkdir(d.dataDir, { recursive: true });
      const pki = await writeTestPki(d.dataDir);
      const token = hsm.use(await createSoftHsmToken(pki, d.dataDir));
      await withSenders(d, [
        sender("hsm", { type: "pkcs11", module: token.module, certId: "id=02" }),
      ]);
      const c = byId(await runDoctor(d), "sender:hsm");
      equal(c.ok, true, c.detail);
      ok(c.detail.startsWith("Ivan Petrov ec: Valid until"), c.detail);
      ok(c.detail.includes("Issued by BORICA (B-Trust)"), c.detail);
    } finally {
      await d.cleanup();
    }
  },
});
