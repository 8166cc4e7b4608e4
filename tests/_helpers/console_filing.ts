/**
 * Filings made the way an integrator makes them, for the console's browser tests
 * (tests/browser/console_receipt_test.ts, console_export_test.ts): the one-time console link
 * `agent open` prints, and a VAT return filed over real HTTP and confirmed on its page.
 * @module
 */
import { equal } from "node:assert/strict";
import { decideNext, issueToken, MAIN, type Proc } from "./e2e.ts";

/** `YYYY-MM-DD HH:MM:SS ±HH:MM` in Bulgaria's offsets (winter +02:00, summer +03:00). */
export const LOCAL_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0[23]:00$/;

/** What `agent open` prints: the one-time link. */
export async function agentOpen(dataDir: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "agent", "open", "--data-dir", dataDir],
    env: { NO_COLOR: "1", SVC_OPEN_BROWSER: "never" },
  }).output();
  equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return /The console: (\S+)/.exec(new TextDecoder().decode(out.stdout))![1]!;
}

/** A VAT return filed by an integrator (confirmed through the page), with its files or not. */
export async function fileVat(
  ts: Proc,
  agent: Proc,
  key: string,
  eik: string,
  folder: string | null,
): Promise<Record<string, unknown>> {
  const token = await issueToken(ts.url, key, { typeId: "vat", eik });
  const res = fetch(`${agent.url}/api/v1/operations/vat`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      ...(folder ? { "x-svc-file-path": folder } : {}),
    },
    body: JSON.stringify({ eik, year: 2026, month: 10 }),
  });
  await decideNext(agent, "confirm");
  return await (await res).json();
}
