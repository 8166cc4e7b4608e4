/**
 * `--json` of the commands that print data (spawned as subprocesses): every document parses and
 * has the documented shape; the text format stays the default.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { runMain } from "./_run.ts";

Deno.test("[cli] --json documents of version, keys create, admin, journal, senders", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-cli-json-" });
  try {
    const version = await runMain(["version", "--json"]);
    equal(version.code, 0, version.stderr);
    match(version.json().version, /^\d+\.\d+\.\d+$/);

    const created = await runMain([
      "keys",
      "create",
      "--mode",
      "live",
      "--eik",
      "121212121",
      "--json",
      "--data-dir",
      dir,
    ]);
    equal(created.code, 0, created.stderr);
    const key = created.json();
    match(key.secret, /^svc_live_[A-Za-z0-9_-]{43}$/);
    match(key.keyId, /^key_/);
    equal(key.mode, "live");
    equal(created.stderr, "", "with --json the note on stderr is in the document");
    const plain = await runMain(["keys", "create", "--mode", "test", "--data-dir", dir]);
    match(plain.stdout, /^svc_test_[A-Za-z0-9_-]{43}\n$/, "the text format stays the default");
    match(plain.stderr, /^Key key_\S+ \(test\) created; expires /);

    const [keys, shown, integrators, usage, journal, senders] = await Promise.all([
      runMain(["admin", "keys", "list", "--json", "--data-dir", dir]),
      runMain(["admin", "keys", "show", key.keyId, "--json", "--data-dir", dir]),
      runMain(["admin", "integrators", "list", "--json", "--data-dir", dir]),
      runMain(["admin", "usage", "--json", "--data-dir", dir]),
      runMain(["journal", "list", "--json", "--data-dir", dir]),
      runMain(["senders", "list", "--json", "--data-dir", dir]),
    ]);
    for (const r of [keys, shown, integrators, usage, journal, senders]) equal(r.code, 0, r.stderr);
    equal(keys.json().items.length, 2);
    ok(!keys.stdout.includes(key.secret), "the secret is printed only at creation");
    equal(shown.json().id, key.keyId);
    deepStrictEqual(shown.json().allowedEiks, ["121212121"]);
    equal(integrators.json().items[0].id, "default");
    deepStrictEqual(usage.json(), { items: [], total: 0 });
    deepStrictEqual(journal.json(), []);
    deepStrictEqual(senders.json(), []);

    await Deno.writeTextFile(
      join(dir, "agent.json"),
      JSON.stringify({ senders: [{ id: "ivan", displayName: "Иван", active: true }] }),
    );
    const one = await runMain(["senders", "list", "--json", "--data-dir", dir]);
    deepStrictEqual(one.json(), [{
      id: "ivan",
      displayName: "Иван",
      active: true,
      keystore: null,
    }]);
    const text = await runMain(["senders", "list", "--data-dir", dir]);
    equal(text.stdout, "ivan\tИван\tactive\tno key store\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[cli] agent doctor --json prints every check; exit 1 when one failed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-cli-doctor-" });
  try {
    // Nothing listens on port 9 of loopback: the token service check fails.
    const r = await runMain([
      "agent",
      "doctor",
      "--json",
      "--data-dir",
      dir,
      "--token-service",
      "http://127.0.0.1:9",
    ]);
    equal(r.code, 1, r.stderr);
    const doc = r.json();
    equal(doc.ok, false);
    ok(doc.checks.length >= 4);
    for (const c of doc.checks) {
      equal(typeof c.id, "string");
      ok([true, false, "warn"].includes(c.ok), JSON.stringify(c));
    }
    ok(doc.checks.some((c: { ok: unknown }) => c.ok === false));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
