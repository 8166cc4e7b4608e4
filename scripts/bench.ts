/**
 * `deno task bench`: runs every benchmark script in turn and prints their tables (see
 * BENCHMARKS.md). The PostgreSQL scale benchmark runs when SVC_BENCH_DATABASE_URL is set
 * (`eval "$(bash scripts/ci_postgres.sh)"` then `SVC_BENCH_DATABASE_URL=$SVC_TEST_DATABASE_URL`).
 */
const scripts: [string, string[]][] = [
  ["scripts/bench_http.ts", []],
  ["scripts/bench_issue_inproc.ts", []],
  ["scripts/bench_profile.ts", []],
  ["scripts/bench_request_log.ts", []],
  ["scripts/bench_parse.ts", []],
  ["scripts/bench_scan.ts", []],
  ["scripts/bench_sign.ts", ["3"]],
  ["scripts/bench_agent_start.ts", []],
  ["scripts/bench_journal.ts", []],
  ["scripts/bench_console.ts", []],
];
if (Deno.env.get("SVC_BENCH_DATABASE_URL")) scripts.push(["scripts/bench_token_scale.ts", []]);
else console.error("skip scripts/bench_token_scale.ts: SVC_BENCH_DATABASE_URL is not set");
let failed = 0;
for (const [script, args] of scripts) {
  console.log(`\n## ${script}\n`);
  const root = new URL("../", import.meta.url);
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(script, root).pathname, ...args],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) failed++;
}
Deno.exit(failed === 0 ? 0 : 1);
