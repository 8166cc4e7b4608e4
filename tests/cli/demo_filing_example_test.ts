/**
 * The line `demo --agent-data-dir` prints (docs/running.md § The demo with your own agent), for
 * each shell: a `vat` token for the company, then the filing of last month in the sender's name,
 * with a fresh batch id. Its bash form runs end to end in tests/e2e/demo_own_agent_test.ts.
 */
import { equal, ok } from "node:assert/strict";
import { loopbackTokenUrl, previousMonth } from "../../src/cli/demo_agent.ts";
import { demoFilingExample } from "../../src/cli/texts.ts";

const f = { eik: "121212121", year: 2026, month: 10, senderId: "anna" };

Deno.test("[cli] demo --agent-data-dir: the PowerShell line files in the sender's name", () => {
  const text = demoFilingExample(
    "http://127.0.0.1:1",
    "http://127.0.0.1:2",
    "svc_test_k",
    "windows",
    f,
  );
  const line = text.split("\n").find((l) => l.startsWith("$t="))!;
  ok(line.includes(`-Body '{"typeId":"vat","eik":"121212121"}'`), line);
  ok(line.includes("http://127.0.0.1:2/api/v1/operations/vat"), line);
  ok(line.includes("'X-Svc-Batch-Id'=[guid]::NewGuid().ToString();'X-Svc-Sender-Id'='anna'"));
  ok(line.includes(`-Body '{"eik":"121212121","year":2026,"month":10}'`), line);
  ok(!text.includes("curl"), "no curl on Windows");
});

Deno.test("[cli] demo --agent-data-dir: without a sender the page offers them (no header)", () => {
  const text = demoFilingExample("http://t", "http://a", "k", "linux", { ...f, senderId: null });
  ok(!text.includes("X-Svc-Sender-Id"));
  ok(text.includes("X-Svc-Batch-Id"));
});

Deno.test("[cli] demo --agent-data-dir: last month, and the token URLs it can stand in for", () => {
  equal(JSON.stringify(previousMonth(Date.UTC(2026, 0, 15))), '{"year":2025,"month":12}');
  equal(JSON.stringify(previousMonth(Date.UTC(2026, 10, 28))), '{"year":2026,"month":10}');
  equal(loopbackTokenUrl("http://127.0.0.1:17480")?.port, 17480);
  equal(loopbackTokenUrl("http://localhost:17480/")?.port, 17480);
  equal(loopbackTokenUrl("https://127.0.0.1:17480"), null);
  equal(loopbackTokenUrl("http://tokens.example.com"), null);
  equal(loopbackTokenUrl("http://127.0.0.1:17480/prefix"), null);
});
