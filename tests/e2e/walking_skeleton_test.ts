/**
 * End to end over real HTTP: the token service and the agent run as separate programs on
 * loopback; a test key is created with the CLI; every operation that does not read local
 * files gets a token over HTTP and is called on the agent, confirmed through the page's own
 * endpoints; each response validates against its schema in the served OpenAPI document.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { OPERATIONS } from "../../src/contract/operations.ts";
import {
  createKeyCli,
  decideNext,
  issueToken,
  type Proc,
  startAgent,
  startTokenService,
} from "../_helpers/e2e.ts";
import { openApiValidator, resultSchemaName } from "../_helpers/openapi_validate.ts";
import { SAMPLE_BODIES, SAMPLE_EIK } from "../_helpers/sample_bodies.ts";

const EIK = SAMPLE_EIK;
const BODIES = SAMPLE_BODIES;

interface Env {
  ts: Proc;
  agent: Proc;
  key: string;
  dir: string;
}

async function withEnv(fn: (e: Env) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "svc-e2e-" });
  const ts = await startTokenService(`${dir}/ts`);
  const agent = await startAgent(`${dir}/agent`, ts.url);
  try {
    const key = await createKeyCli(`${dir}/ts`, "test");
    await fn({ ts, agent, key, dir });
  } finally {
    await agent.stop();
    await ts.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

async function call(
  e: Env,
  typeId: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const tokenReq: Record<string, unknown> = { typeId };
  const op = OPERATIONS.find((o) => o.typeId === typeId)!;
  if (op.scope === "eik") tokenReq.eik = body.eik ?? EIK;
  const token = await issueToken(e.ts.url, e.key, tokenReq);
  return fetch(`${e.agent.url}/api/v1/operations/${typeId}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

Deno.test("[e2e] every operation without local input runs over HTTP and matches the served OpenAPI", async () => {
  await withEnv(async (e) => {
    const doc = await (await fetch(`${e.agent.url}/api/v1/openapi.json`)).json();
    const validate = openApiValidator(doc);
    const batch = crypto.randomUUID();
    const documentIds: Record<string, string> = {};
    const direct = OPERATIONS.filter((o) => o.localInput !== "required" && o.family !== "result");
    const results = OPERATIONS.filter((o) => o.family === "result");
    // A confirmed batch covers exactly the requests its pages showed (docs/confirmation.md § What
    // a confirmed batch covers): every operation acting in a sender's name is a new item, so each
    // asks once.
    const filed = new Set<string>();
    let pages = 0;
    for (const op of [...direct, ...results]) {
      const body = op.family === "result"
        ? { eik: EIK, documentId: documentIds[op.kind] ?? "999999999999" }
        : BODIES[op.typeId];
      ok(body, `a body for ${op.typeId}`);
      const pending = call(e, op.typeId, body, { "x-svc-batch-id": batch });
      if (op.needsSender) {
        await decideNext(e.agent, "confirm");
        pages++;
      }
      if (op.family === "submission") filed.add(op.kind);
      const res = await pending;
      const json = await res.json();
      equal(res.status, 200, `${op.typeId}: ${JSON.stringify(json)}`);
      const schema = resultSchemaName(doc, `/api/v1/operations/${op.typeId}`);
      equal(validate(schema, json), null, `${op.typeId} matches ${schema}`);
      if (op.family === "submission") {
        equal(json.success, true, op.typeId);
        documentIds[op.kind] = json.documentId;
      }
      if (op.family === "result") {
        equal(
          json.status,
          documentIds[op.kind] ? "ok" : "error",
          `${op.typeId} ${JSON.stringify(json).slice(0, 200)}`,
        );
      }
    }
    equal(
      e.agent.logs.filter((l) => l.msg === "confirmation page opened").length,
      pages,
      "one page for each request acting in a sender's name",
    );
    ok(filed.size > 0);
  });
});

Deno.test("[e2e] agent failures: wrong typeId, replayed jti, EIK not in token, invalid body, declined batch", async () => {
  await withEnv(async (e) => {
    const token = await issueToken(e.ts.url, e.key, { typeId: "vat", eik: EIK });
    const post = (
      typeId: string,
      tok: string,
      body: unknown,
      headers: Record<string, string> = {},
    ) =>
      fetch(`${e.agent.url}/api/v1/operations/${typeId}`, {
        method: "POST",
        headers: { authorization: `Bearer ${tok}`, "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    const wrongType = await post("vat_portal_files", token, { eik: EIK, year: 2026, month: 9 });
    equal(wrongType.status, 401);
    equal((await wrongType.json()).errorCode, "TOKEN_TYPE_MISMATCH");
    const replay = await post("vat_portal_files", token, { eik: EIK, year: 2026, month: 9 });
    equal(replay.status, 401);
    equal((await replay.json()).errorCode, "TOKEN_REPLAYED");

    const t2 = await issueToken(e.ts.url, e.key, { typeId: "debt_payments", eik: EIK });
    const otherEik = await post("debt_payments", t2, { eik: "131313131", year: 2025 });
    equal(otherEik.status, 401);
    equal((await otherEik.json()).errorCode, "TOKEN_EIK_MISMATCH");

    const t3 = await issueToken(e.ts.url, e.key, { typeId: "debt_payments", eik: EIK });
    const invalid = await post("debt_payments", t3, { eik: EIK, year: 1800 });
    equal(invalid.status, 502);
    const ij = await invalid.json();
    deepStrictEqual([ij.errorCode, ij.errorKind, ij.details.field], [
      "VALIDATION_FAILED",
      "PARAMETER",
      "year",
    ]);

    const t4 = await issueToken(e.ts.url, e.key, { typeId: "debt_payments", eik: EIK });
    const notJson = await post("debt_payments", t4, "{oops");
    equal(notJson.status, 502);
    equal((await notJson.json()).errorCode, "INVALID_JSON");

    const batch = crypto.randomUUID();
    const first = call(e, "debt_payments", { eik: EIK, year: 2025 }, { "x-svc-batch-id": batch });
    await decideNext(e.agent, "decline");
    const r1 = await first;
    equal(r1.status, 502);
    const j1 = await r1.json();
    deepStrictEqual([j1.errorCode, j1.errorKind], ["SENDER_NOT_CHOSEN", "CREDENTIALS"]);
    const r2 = await call(e, "due_amounts", { eik: EIK }, { "x-svc-batch-id": batch });
    equal((await r2.json()).errorCode, "SENDER_NOT_CHOSEN");
    equal(
      e.agent.logs.filter((l) => l.msg === "confirmation page opened").length,
      1,
      "no second dialog",
    );
  });
});

Deno.test("[e2e] an agent older than the token's minimum version answers 426 AgentUpdateRequired", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-e2e-" });
  const ts = await startTokenService(`${dir}/ts`, { SVC_MIN_AGENT_VERSION: "99.0.0" });
  const agent = await startAgent(`${dir}/agent`, ts.url);
  try {
    const key = await createKeyCli(`${dir}/ts`, "test");
    const token = await issueToken(ts.url, key, { typeId: "debt_payments_types" });
    const res = await fetch(`${agent.url}/api/v1/operations/debt_payments_types`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{}",
    });
    equal(res.status, 426);
    const j = await res.json();
    equal(j.requiredVersion, "99.0.0");
    ok(typeof j.agentVersion === "string" && typeof j.error === "string");
  } finally {
    await agent.stop();
    await ts.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("[e2e] /health reports an update the token service knows of; the token service publishes integrators' origins", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-e2e-" });
  const ts = await startTokenService(`${dir}/ts`, { SVC_LATEST_AGENT_VERSION: "99.2.0" });
  const agent = await startAgent(`${dir}/agent`, ts.url);
  try {
    let h = { updateAvailable: false, latestVersion: null as string | null };
    // The agent asks once, soon after it starts (with a 3 s time-out): up to 15 s here.
    for (const t0 = performance.now(); performance.now() - t0 < 15_000 && !h.latestVersion;) {
      h = await (await fetch(`${agent.url}/health`)).json();
      if (!h.latestVersion) await new Promise((r) => setTimeout(r, 50));
    }
    equal(h.latestVersion, "99.2.0");
    equal(h.updateAvailable, true);
    const o = await (await fetch(`${ts.url}/api/v1/allowed-origins`)).json();
    ok(Array.isArray(o.origins));
  } finally {
    await agent.stop();
    await ts.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
