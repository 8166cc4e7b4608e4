/**
 * `agent update` run from source (in process, against the token service's app over HTTP on loopback):
 * the route's answers become one sentence and exit 1, or `{error, errorCode}` with --json; a
 * manifest signed by a key the build does not embed is refused (this source embeds none yet); the
 * swap command is hidden. (tests/e2e/update_test.ts runs the packaged agent's whole update.)
 */
import * as assert from "node:assert/strict";
import { runInProcess } from "../cli/_run.ts";
import { tokenEnv } from "../_helpers/token_env.ts";
import { agentUpdateRoute } from "../../src/token/mod.ts";
import { signManifest, updatePayload } from "../../scripts/sign_manifest.ts";
import { makeUpdateKeyPair } from "../../scripts/update_keys.ts";
import { UPDATE_PUBLIC_KEYS } from "../../src/agent/update/mod.ts";

/** The token service's app (in-memory store) with the update route, over HTTP on loopback. */
async function tokenService(jws: string | null) {
  const { app, store, service } = await tokenEnv();
  agentUpdateRoute(app, jws === null ? null : () => Promise.resolve(jws));
  const s = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  return {
    url: `http://127.0.0.1:${s.addr.port}`,
    stop: async () => {
      await s.shutdown();
      await service.stop();
      await store.close();
    },
  };
}

async function withData(fn: (env: Record<string, string>) => Promise<void>, jws: string | null) {
  const dir = await Deno.makeTempDir({ prefix: "svc-update-cli-" });
  const ts = await tokenService(jws);
  try {
    await fn({ SVC_DATA_DIR: dir, SVC_TOKEN_SERVICE_URL: ts.url });
  } finally {
    await ts.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("[cli] agent update: no manifest published is UPDATE_NOT_PUBLISHED, one sentence, exit 1", async () => {
  await withData(async (env) => {
    const r = await runInProcess(["agent", "update"], { env });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^Failed \(UPDATE_NOT_PUBLISHED\): The token service at .* publishes no agent update\n$/,
    );
    const j = await runInProcess(["agent", "update", "--check", "--json"], { env });
    assert.equal(j.code, 1);
    assert.equal(JSON.parse(j.stderr).errorCode, "UPDATE_NOT_PUBLISHED");
  }, null);
});

Deno.test("[cli] agent update refuses a manifest signed by a key this build does not embed", async () => {
  const keys = await makeUpdateKeyPair();
  const payload = updatePayload(
    {
      name: "svc-filing",
      version: "99.0.0",
      packages: [{
        target: "linux-x64",
        triple: "x86_64-unknown-linux-gnu",
        file: "a.tar.gz",
        size: 1,
        sha256: "a".repeat(64),
      }],
    },
    "https://example.com/r/",
    new Date(),
  );
  const jws = await signManifest(payload, keys.privateJwk, [keys.publicKey]);
  await withData(async (env) => {
    const r = await runInProcess(["agent", "update", "--check", "--json"], { env });
    assert.equal(r.code, 1);
    const err = JSON.parse(r.stderr);
    assert.equal(err.errorCode, "UPDATE_SIGNATURE_INVALID");
    // The source ships without a key (docs/install.md § Updates); once the first release's key is
    // listed, a manifest signed by any other key is refused the same way.
    assert.match(
      err.error,
      UPDATE_PUBLIC_KEYS.length
        ? /which this agent does not trust/
        : /this build has no update key/,
    );
    assert.equal(r.stdout, "");
  }, jws);
});

Deno.test("[cli] agent --help lists update, not the swap it runs", async () => {
  const r = await runInProcess(["agent", "--help"]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /\n {2}update \[options\] +check for a signed update and install it/);
  assert.doesNotMatch(r.stdout, /update-swap/);
  const bad = await runInProcess(["agent", "update-swap"]);
  assert.equal(bad.code, 2); // --plan is required
});
