/**
 * The desk's review actions (docs/token-service.md § The administrator's desk) over HTTP against
 * the token app: a key's allowed EIKs are saved (and a malformed EIK is refused with the page's
 * error message, nothing saved), a contract is terminated with its reason (and terminating it
 * again is refused: it is no longer in force), each change audited under the administrator; an
 * unknown application is answered with the page's error message, not a crash. On SQLite and
 * PostgreSQL.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { systemClock } from "../../../src/clock.ts";
import {
  approveApplication,
  createApiKey,
  submitApplication,
  systemRandom,
} from "../../../src/token/mod.ts";
import { pgIgnored } from "../../_helpers/postgres.ts";
import { firstAdmin, startWebEnv, type WebEnv, webText } from "../../_helpers/web_people.ts";

/** The page's message of the last action (`ok` or `error`) and its text. */
function flashOf(page: string): { kind: string; text: string } {
  const m = /<div class="flash (\w+)" id="flash" role="status">([^<]*)<\/div>/.exec(page);
  ok(m, "the page shows the action's outcome");
  return { kind: m[1]!, text: m[2]! };
}

async function suite(e: WebEnv) {
  const svc = e.svcs[0]!;
  const now = Date.now();
  await e.store.createIntegrator({
    id: "acme",
    name: "Acme",
    email: "dev@acme.test",
    locale: "en",
    allowedOrigins: [],
    createdAt: now,
  });
  const key = await createApiKey(e.store, { mode: "test", integratorId: "acme", now });
  const d = { store: e.store, clock: systemClock, random: systemRandom };
  const app = await submitApplication(d, "acme", {
    company: "Acme Ltd",
    contactEmail: "contracts@acme.test",
    intendedUse: "VAT returns",
  });
  const { contract } = await approveApplication(d, app.id, { note: null });
  const root = await firstAdmin(e, "root@svc.test");
  const post = (path: string, form: Record<string, string>) =>
    webText(svc, `/admin${path}`, {
      form: { ...form, csrf: root.csrf },
      cookie: `${root.cookie}; svc_lang=en`,
    });

  // A key's allowed EIKs: a malformed one is refused and nothing is saved; then saved.
  const bad = await post(`/keys/${key.record.id}/eiks`, { eiks: "121212121 12345" });
  equal(bad.status, 200);
  equal(flashOf(bad.text).kind, "error");
  match(flashOf(bad.text).text, /^Failed: /);
  equal((await e.store.getKey(key.record.id))!.allowedEiks, null);
  const saved = await post(`/keys/${key.record.id}/eiks`, { eiks: "121212121, 999999931" });
  deepStrictEqual(flashOf(saved.text), { kind: "ok", text: "The EIKs were saved." });
  deepStrictEqual((await e.store.getKey(key.record.id))!.allowedEiks, ["121212121", "999999931"]);

  // The contract: terminated with its reason; a second time it is not in force.
  const ended = await post(`/contracts/${contract.id}/terminate`, { reason: "Unpaid invoices" });
  deepStrictEqual(flashOf(ended.text), { kind: "ok", text: "The contract was terminated." });
  const stored = (await e.store.getContract(contract.id))!;
  equal(stored.status, "terminated");
  equal(stored.terminationReason, "Unpaid invoices");
  const again = await post(`/contracts/${contract.id}/terminate`, { reason: "Again" });
  equal(flashOf(again.text).kind, "error");

  // An unknown application: the page's error message.
  const unknown = await post("/applications/app_nope/reject", { note: "No" });
  equal(unknown.status, 200);
  equal(flashOf(unknown.text).kind, "error");

  const audit = (await e.store.listAudit({ limit: 50 })).map((a) =>
    `${a.actor} ${a.action} ${a.target}`
  );
  ok(audit.includes(`root@svc.test key.allowed-eiks ${key.record.id}`), audit.join("\n"));
  ok(audit.includes(`root@svc.test contract.terminate ${contract.id}`), audit.join("\n"));
  equal(audit.filter((a) => a.includes("contract.terminate")).length, 1);
}

Deno.test("the desk saves a key's EIKs and terminates a contract, audited (SQLite)", async () => {
  const e = await startWebEnv("sqlite");
  try {
    await suite(e);
  } finally {
    await e.close();
  }
});

Deno.test({
  name: "the desk saves a key's EIKs and terminates a contract, audited (PostgreSQL)",
  ignore: pgIgnored(),
  async fn() {
    const e = await startWebEnv("postgres");
    try {
      await suite(e);
    } finally {
      await e.close();
    }
  },
});
