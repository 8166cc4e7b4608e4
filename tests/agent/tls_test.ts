import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { ensureLoopbackTls, trustCommands } from "../../src/agent/tls/tls.ts";
import { run } from "../_helpers/pki.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import { startAgent, startTokenService } from "../_helpers/e2e.ts";

Deno.test("ensureLoopbackTls() issues a localhost certificate under a name-constrained CA whose key is discarded", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-tls-" });
  const now = new Date("2026-11-22T10:00:00Z");
  const t = await ensureLoopbackTls(dir, now);
  const ca = new x509.X509Certificate(t.caPem);
  const nc = ca.extensions.find((e) => e.type === "2.5.29.30");
  ok(nc?.critical, "critical name constraints");
  const files = [...Deno.readDirSync(join(dir, "tls"))].map((e) => e.name).sort();
  deepStrictEqual(files, ["ca.pem", "server.key", "server.pem"], "no CA key on disk");
  equal(Deno.statSync(join(dir, "tls", "server.key")).mode! & 0o777, 0o600);
  // Reused while valid, renewed near the end.
  const again = await ensureLoopbackTls(dir, new Date(now.getTime() + 86_400_000));
  equal(again.caPem, t.caPem);
  const renewed = await ensureLoopbackTls(dir, new Date(now.getTime() + 380 * 86_400_000));
  ok(renewed.caPem !== t.caPem);
  await Deno.remove(dir, { recursive: true });
});

Deno.test({
  name:
    "openssl accepts the server certificate for localhost and 127.0.0.1 and refuses it for another host name",
  ignore: skipUnless(["openssl"], "TLS openssl check"),
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-tls-" });
    const t = await ensureLoopbackTls(dir, new Date());
    const srv = join(dir, "tls", "server.pem");
    for (const [flag, value] of [["-verify_hostname", "localhost"], ["-verify_ip", "127.0.0.1"]]) {
      const r = await run("openssl", ["verify", "-CAfile", t.caFile, flag!, value!, srv]);
      equal(r.code, 0, r.stderr + r.stdout);
    }
    const bad = await run("openssl", [
      "verify",
      "-CAfile",
      t.caFile,
      "-verify_hostname",
      "example.com",
      srv,
    ]);
    ok(bad.code !== 0, "a foreign host name does not verify");
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test("[e2e] with SVC_AGENT_TLS_PORT the agent also answers over HTTPS on loopback", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-tls-e2e-" });
  const ts = await startTokenService(join(dir, "ts"));
  const agent = await startAgent(join(dir, "agent"), ts.url, { SVC_AGENT_TLS_PORT: "0" });
  try {
    let httpsUrl = "";
    for (let i = 0; i < 100 && !httpsUrl; i++) {
      httpsUrl = agent.stdout.map((l) => /^Agent \(HTTPS\): (\S+)/.exec(l)?.[1]).find(Boolean) ??
        "";
      if (!httpsUrl) await new Promise((r) => setTimeout(r, 50));
    }
    ok(httpsUrl.startsWith("https://127.0.0.1:"), agent.stdout.join("\n"));
    const ca = await Deno.readTextFile(join(dir, "agent", "tls", "ca.pem"));
    const client = Deno.createHttpClient({ caCerts: [ca] });
    const res = await fetch(`${httpsUrl}/health`, { client });
    equal(res.status, 200);
    equal((await res.json()).service, "svc-agent");
    const viaLocalhost = await fetch(httpsUrl.replace("127.0.0.1", "localhost") + "/api/senders", {
      client,
    });
    equal(viaLocalhost.status, 200);
    await viaLocalhost.body?.cancel();
    client.close();
  } finally {
    await agent.stop();
    await ts.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("trustCommands() uses security on macOS, none on Windows (the Windows API) and the NSS database on Linux", () => {
  equal(trustCommands("darwin", "/x/ca.pem")[0]![0], "security");
  deepStrictEqual(trustCommands("windows", "C:\\ca.pem"), []);
  ok(trustCommands("linux", "/x/ca.pem")[0]![1].includes("-A"));
});
