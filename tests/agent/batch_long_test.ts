/**
 * A long folder-wide filing (docs/local-input.md § Long batches): the token (5 s) and the
 * confirmation (10 minutes) are checked at the batch's start, so a batch whose filings take 15
 * minutes on the clock is not cut by them; while it runs, a second request with the same batch
 * id gets FILING_IN_PROGRESS with the batch id and its progress (no second filing, no dialog);
 * afterwards the same batch id, once its confirmation lapsed, asks again and files nothing twice.
 * In-process agent, fake clock: the test portal moves the clock one minute per filing.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { agentEnv, waitFor } from "../_helpers/agent_env.ts";
import { writeCompanyTree } from "../_helpers/company_tree.ts";

Deno.test("[agent] a 15-minute batch outlives its token and its confirmation; a second request meanwhile gets FILING_IN_PROGRESS", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-batch-long-" });
  try {
    const root = join(dir, "clients");
    const eiks = await writeCompanyTree(root, 15, 2026, 9, 24_000_000);
    let release: () => void = () => {};
    let filings = 0;
    let held: Promise<void> | null = null;
    const e = await agentEnv({
      portal: (p, clock) => ({
        ...p,
        async submit(input, ctx) {
          filings++;
          clock.advance(60_000); // each filing takes a minute
          // The 8th filing waits for the test: a second request arrives meanwhile.
          if (filings === 8) await (held = new Promise<void>((r) => (release = r)));
          return await p.submit(input, ctx);
        },
      }),
    });
    const batchId = crypto.randomUUID();
    const body = { rootFolder: root, year: 2026, month: 9 };
    const send = async () => {
      const token = await e.token({ typeId: "dec1_6_batch", eiks });
      const r = await e.call("dec1_6_batch", token, body, { "x-svc-batch-id": batchId });
      return { status: r.status, json: await r.json() };
    };
    const run = send();
    await waitFor(() => e.opened.length === 1);
    equal((await e.decide("confirm")).status, 200);
    await waitFor(() => held !== null);
    const dialogs = e.opened.length;
    // 8 minutes in: a second request of the batch (a fresh token).
    const second = await send();
    equal(second.status, 409, JSON.stringify(second.json));
    equal(second.json.errorCode, "FILING_IN_PROGRESS");
    equal(second.json.details.batchId, batchId);
    equal(second.json.details.progress.state, "running");
    ok(second.json.details.progress.filed < 15);
    equal(e.opened.length, dialogs, "no second dialog");
    release();
    const done = await run;
    equal(done.status, 200, JSON.stringify(done.json).slice(0, 300));
    equal(done.json.submitted, 15, "not cut by the 5-second token nor the 10-minute confirmation");
    equal(filings, 15);
    // After the batch: the confirmation (10 minutes from the decision) has lapsed; the same
    // batch id asks again and answers every company from the journal, filing nothing twice.
    const again = send();
    await waitFor(() => e.opened.length === dialogs + 1);
    equal((await e.decide("confirm")).status, 200);
    const replay = await again;
    equal(replay.status, 200, JSON.stringify(replay.json).slice(0, 300));
    equal(replay.json.submitted, 15);
    equal(filings, 15, "nothing filed twice");
    ok(e.journal.list().every((r) => r.state === "filed"));
    equal(e.journal.list().length, 15);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
