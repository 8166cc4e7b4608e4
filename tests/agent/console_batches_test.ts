/**
 * The console's view of folder-wide filings, in process: a batch and a folder scan past 2 s on
 * the Filings page and in `/console/batches.json`, and a filing being sent now, which offers no
 * resolve form (docs/console.md § Folder-wide filings and long scans).
 */
import { equal, ok } from "node:assert/strict";
import { waitFor } from "../_helpers/agent_env.ts";
import { consoleEnv as env } from "../_helpers/console_env.ts";

Deno.test("console: a folder scan running past 2 s and a batch show on the Filings page with their progress", async () => {
  const e = await env();
  const s = await e.signIn();
  const scan = e.agent.batches.startScan("dec1_files_scan", "acme");
  scan.files(120, 480);
  const batch = e.agent.batches.start("0f8fad5b-d9cb-469f-a165-70867728950e", "dec1_6_batch", {
    integrator: "acme",
    mode: "test",
    origin: null,
  }, null);
  batch.plan(10, 10);
  batch.phase("filing");
  batch.current("121212121");
  const before = await (await e.req("/console/filings", { headers: { cookie: s.cookie } })).text();
  ok(!before.includes("Четене на папка"), "a scan under 2 s is not shown");
  ok(before.includes('data-batch="0f8fad5b-d9cb-469f-a165-70867728950e"'), "the batch is");
  ok(before.includes("подава 121212121"), "the company being filed");
  e.clock.advance(3_000);
  const page = await (await e.req("/console/filings", { headers: { cookie: s.cookie } })).text();
  ok(page.includes("Четене на папка"), "the long scan");
  ok(page.includes("прочетени 120 от 480 файла"), page.slice(page.indexOf("batches"), 2000));
  const jr = await e.req("/console/batches.json", { headers: { cookie: s.cookie } });
  const json = await jr.json();
  ok(Array.isArray(json.scans), `${jr.status} ${JSON.stringify(json).slice(0, 300)}`);
  equal(json.scans[0].total, 480);
  equal(json.batches[0].state, "running");
  equal((await e.req("/console/batches.json")).status, 403, "the session is needed");
  scan.done();
  batch.done();
  const done = await (await e.req("/console/filings", { headers: { cookie: s.cookie } })).text();
  ok(!done.includes("Четене на папка"));
  ok(done.includes('href="/console/batches/0f8fad5b-d9cb-469f-a165-70867728950e"'));
  await e.cleanup();
});

Deno.test("console filings: a filing being sent now offers no resolve form and cannot be resolved", async () => {
  let release: () => void = () => {};
  let held = false;
  const e = await env({}, {
    portal: (p) => ({
      ...p,
      async submit(input, ctx) {
        input.onSend?.();
        held = true;
        await new Promise<void>((r) => (release = r));
        return await p.submit(input, ctx);
      },
    }),
  });
  const s = await e.signIn();
  const tok = await e.token({ typeId: "dec731", eik: "121212121" });
  const filing = e.call("dec731", tok, { eik: "121212121", year: 2025 }, {
    "x-svc-batch-id": crypto.randomUUID(),
  });
  await waitFor(() => e.opened.length === 1);
  await e.decide("confirm");
  await waitFor(() => held);
  const [row] = e.journal.list();
  equal(row!.state, "unknown");
  const page = await (await e.req("/console/filings", { headers: { cookie: s.cookie } })).text();
  ok(page.includes("изпраща се, чака отговор"), "shown as being sent");
  ok(!page.includes(`/console/filings/${row!.id}/resolve`), "no resolve form while it runs");
  const post = await e.req(`/console/filings/${row!.id}/resolve`, {
    method: "POST",
    headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrf: s.csrf, how: "not_filed" }),
  });
  equal(post.status, 303);
  equal(e.journal.get(row!.id)!.state, "unknown", "not resolved while it runs");
  release();
  equal((await filing).status, 200);
  equal(e.journal.get(row!.id)!.state, "filed");
  await e.cleanup();
});

Deno.test("console: an unknown batch and a filing without a protocol are 404 pages that say so", async () => {
  const e = await env();
  const s = await e.signIn();
  const batch = await e.req("/console/batches/0f8fad5b-d9cb-469f-a165-70867728950f", {
    headers: { cookie: s.cookie },
  });
  equal(batch.status, 404);
  const batchPage = await batch.text();
  ok(batchPage.includes("<p>Няма такова подаване"), batchPage.slice(0, 2000));
  const protocol = await e.req("/console/filings/no-such-filing/protocol", {
    headers: { cookie: s.cookie },
  });
  equal(protocol.status, 404);
  const protocolPage = await protocol.text();
  ok(
    protocolPage.includes("<p>Няма запазен протокол за тази декларация."),
    protocolPage.slice(0, 2000),
  );
  await e.cleanup();
});
