/**
 * Exit codes of `main.ts` (spawned as a subprocess, docs/cli.md): a wrong command line exits 2
 * with one line on stderr plus a hint, a failing command exits 1 with one sentence, never a
 * stack trace.
 */
import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, runMain } from "./_run.ts";

const STACK = /^\s+at /m;

/** Asserts exit 2: one `error:` line and the hint to the command's --help. */
function assertUsageError(r: CliResult, hint: string, what: string) {
  equal(r.code, 2, `${what}: exit ${r.code}\n${r.stdout}${r.stderr}`);
  equal(r.stdout, "", what);
  const lines = r.stderr.trimEnd().split("\n");
  equal(lines.length, 2, `${what}: ${r.stderr}`);
  match(lines[0]!, /^error: /, what);
  equal(lines[1], `Run '${hint} --help' for usage.`, what);
}

/** Asserts exit 1: one line on stderr, no stack trace. */
function assertFailure(r: CliResult, line: RegExp, what: string) {
  equal(r.code, 1, `${what}: exit ${r.code}\n${r.stdout}${r.stderr}`);
  ok(!STACK.test(r.stderr), `${what}: no stack trace\n${r.stderr}`);
  const lines = r.stderr.trimEnd().split("\n");
  equal(lines.length, 1, `${what}: ${r.stderr}`);
  match(lines[0]!, line, what);
}

Deno.test("[cli] an unknown command exits 2 with a one-line reason and a hint", async () => {
  const [nope, typo, sub, deep, help] = await Promise.all([
    runMain(["nope"]),
    runMain(["agnt"]),
    runMain(["journal", "lst"]),
    runMain(["admin", "keys", "explode"]),
    runMain(["admin", "help", "nope"]),
  ]);
  assertUsageError(help, "main.ts admin", "admin help nope");
  assertUsageError(nope, "main.ts", "nope");
  match(nope.stderr, /^error: unknown command 'nope'$/m);
  assertUsageError(typo, "main.ts", "agnt");
  match(typo.stderr, /unknown command 'agnt' \(Did you mean agent\?\)/);
  assertUsageError(sub, "main.ts journal", "journal lst");
  assertUsageError(deep, "main.ts admin keys", "admin keys explode");
});

Deno.test("[cli] an unknown option or a bad option value exits 2 with a one-line reason", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-cli-opt-" });
  try {
    const cases: [string[], string][] = [
      [["--bogus"], "main.ts"],
      [["demo", "--bogus"], "main.ts demo"],
      [["agent", "--bogus"], "main.ts agent"],
      [["agent", "--port", "abc", "--data-dir", dir], "main.ts agent"],
      [["agent", "doctor", "--bogus"], "main.ts agent doctor"],
      [["agent", "install-autostart", "--bogus"], "main.ts agent install-autostart"],
      [["token-service", "--port", "70000"], "main.ts token-service"],
      [["keys", "create", "--mode", "prod"], "main.ts keys create"],
      [["keys", "create", "--mode", "test", "--eik", "12"], "main.ts keys create"],
      [["keys", "create", "--mode", "test", "--bogus"], "main.ts keys create"],
      [["journal", "list", "--limit", "many"], "main.ts journal list"],
      [["journal", "export", "--format", "xml"], "main.ts journal export"],
      [["senders", "list", "--bogus"], "main.ts senders list"],
      [["senders", "add", "--id", "a", "--name", "A"], "main.ts senders add"],
      [["senders", "test"], "main.ts senders test"],
      [["admin", "keys", "list", "--bogus"], "main.ts admin keys list"],
      [["admin", "keys", "revoke"], "main.ts admin keys revoke"],
      [["admin", "usage", "--month", "11-2026"], "main.ts admin usage"],
      [["openapi", "--service", "nope"], "main.ts openapi"],
      [["version", "--bogus"], "main.ts version"],
    ];
    const results = await Promise.all(
      cases.map(([argv]) => runMain(argv, { SVC_DATA_DIR: dir })),
    );
    cases.forEach(([argv, hint], i) => assertUsageError(results[i]!, hint, argv.join(" ")));
    // `agent --port abc` never reached phase 1: nothing listens, no lock is left.
    await Deno.stat(join(dir, "agent.lock")).then(() => ok(false, "lock left"), () => {});
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[cli] a command that fails exits 1 with one sentence and no stack trace", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-cli-fail-" });
  const file = join(dir, "a-file");
  await Deno.writeTextFile(file, "not a directory");
  try {
    const [journal, exported, sender, removed, contract, agent, token] = await Promise.all([
      runMain(["journal", "list", "--data-dir", file]),
      runMain(["journal", "export", "--data-dir", file]),
      runMain(["senders", "test", "nope", "--data-dir", dir]),
      runMain(["senders", "remove", "nope", "--data-dir", dir]),
      runMain(["admin", "contracts", "show", "ctr_nope", "--data-dir", dir]),
      runMain(["agent", "--port", "0", "--data-dir", join(dir, "agent")], {
        SVC_TOKEN_SERVICE_URL: "not a url",
      }),
      runMain(["token-service", "--port", "0", "--data-dir", dir], { SVC_MIN_AGENT_VERSION: "x" }),
    ]);
    assertFailure(journal, /^Cannot read the journal in .*a-file: /, "journal list");
    assertFailure(exported, /^Cannot read the journal in /, "journal export");
    assertFailure(sender, /^Failed \(SENDER_NOT_FOUND\): No sender "nope"\.$/, "senders test");
    assertFailure(removed, /^Failed \(SENDER_NOT_FOUND\): No sender "nope"\.$/, "senders remove");
    assertFailure(contract, /^Failed \(NOT_FOUND\): No contract "ctr_nope"$/, "admin");
    // Phase 1 listened before the configuration was read: it stops and frees the lock.
    match(agent.stdout, /^Agent: http:\/\/127\.0\.0\.1:\d+\n$/);
    assertFailure(agent, /^Invalid configuration: SVC_TOKEN_SERVICE_URL: /, "agent");
    await Deno.stat(join(dir, "agent", "agent.lock")).then(() => ok(false, "lock left"), () => {});
    assertFailure(token, /^Invalid configuration: SVC_MIN_AGENT_VERSION: /, "token-service");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
