/**
 * `deno task gen --check` (scripts/gen.ts) in CI: README.md's operation table, docs/errors.md,
 * `clients/ts/agent.d.ts` and `fixtures/golden/` are what the registry generates today.
 */
import { equal } from "node:assert/strict";

Deno.test("deno task gen --check: every generated file is up to date with the registry", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/gen.ts", "--check"],
    cwd: new URL("../..", import.meta.url),
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const err = new TextDecoder().decode(out.stderr);
  equal(out.code, 0, `stale (run: deno task gen):\n${err}`);
});
