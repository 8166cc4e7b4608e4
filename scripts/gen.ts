/**
 * Everything generated from the operation registry and the error catalog, in one task:
 * docs/errors.md and the lists of operations in README.md and docs/*.md (scripts/gen_docs.ts,
 * scripts/gen_doc_lists.ts), the client's types
 * `clients/ts/agent.d.ts` (scripts/gen_client.ts) and the test portal's golden files
 * `fixtures/golden/` (scripts/gen_golden.ts), and the request log's writer thread bundled as text
 * (`src/token/store/request_log_thread_js.ts`, scripts/gen_request_log_thread.ts). With `--check` nothing is written and the exit
 * code is 1 when any of them is stale; tests/scripts/gen_check_test.ts runs that check in CI.
 *
 *   deno task gen            write them
 *   deno task gen --check    exit 1 when one is stale
 *
 * @module
 */
import { genClient } from "./gen_client.ts";
import { genDocs } from "./gen_docs.ts";
import { genGolden } from "./gen_golden.ts";
import { genRequestLogThread } from "./gen_request_log_thread.ts";

/**
 * Run every generator.
 * @param check only compare
 * @returns whether everything was up to date (or has been written)
 */
export async function genAll(check: boolean): Promise<boolean> {
  const docs = await genDocs(check);
  const client = await genClient(check);
  const golden = await genGolden(check);
  const thread = await genRequestLogThread(check);
  return docs && client && golden && thread;
}

if (import.meta.main) {
  if (!await genAll(Deno.args.includes("--check"))) Deno.exit(1);
}
