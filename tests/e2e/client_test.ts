/**
 * The generated TypeScript client (clients/ts) against the real programs over HTTP: the types
 * are up to date with the contract, and the walking-skeleton flow (every operation without
 * local input, one batch, one confirmation) runs through `createAgentClient` with tokens bound
 * to the exact body (`bodySha256`).
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { OPERATIONS } from "../../src/contract/operations.ts";
import {
  createAgentClient,
  operationRequest,
  type OperationTypeId,
} from "../../clients/ts/client.ts";
import { checkAgentTypes } from "../../scripts/gen_client.ts";
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

async function sha256Hex(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return new Uint8Array(d).toHex();
}

interface Env {
  ts: Proc;
  agent: Proc;
  key: string;
}

async function withEnv(fn: (e: Env) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "svc-client-" });
  const ts = await startTokenService(`${dir}/ts`);
  const agent = await startAgent(`${dir}/agent`, ts.url);
  try {
    const key = await createKeyCli(`${dir}/ts`, "test");
    await fn({ ts, agent, key });
  } finally {
    await agent.stop();
    await ts.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** A token for one prepared call, bound to its exact body, as an integrator's server issues it. */
async function tokenFor(e: Env, typeId: string, bodyText: string, eik?: string) {
  const op = OPERATIONS.find((o) => o.typeId === typeId)!;
  return await issueToken(e.ts.url, e.key, {
    typeId,
    ...(op.scope === "eik" ? { eik: eik ?? EIK } : {}),
    bodySha256: await sha256Hex(bodyText),
  });
}

Deno.test("[client] clients/ts/agent.d.ts is up to date with the contract", async () => {
  const { upToDate } = await checkAgentTypes();
  ok(upToDate, "stale: run deno run -A scripts/gen_client.ts");
});

Deno.test("[client] the walking skeleton runs through the generated client over HTTP", async () => {
  await withEnv(async (e) => {
    const agent = createAgentClient(e.agent.url);
    equal((await agent.health()).status, "ok");
    ok(Array.isArray((await agent.senders()).senders));
    const doc = await (await fetch(`${e.agent.url}/api/v1/openapi.json`)).json();
    const validate = openApiValidator(doc);
    const batchId = crypto.randomUUID();
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
      const req = operationRequest(op.typeId as OperationTypeId, body as never);
      const token = await tokenFor(e, op.typeId, req.bodyText);
      const pending = agent.run(req, { token, batchId });
      if (op.needsSender) {
        await decideNext(e.agent, "confirm");
        pages++;
      }
      if (op.family === "submission") filed.add(op.kind);
      const out = await pending;
      ok(out.ok, `${op.typeId}: ${out.ok ? "" : JSON.stringify(out.error)}`);
      const json = out.data as Record<string, unknown>;
      const schema = resultSchemaName(doc, `/api/v1/operations/${op.typeId}`);
      equal(validate(schema, json), null, `${op.typeId} matches ${schema}`);
      if (op.family === "submission") {
        equal(json.success, true, op.typeId);
        documentIds[op.kind] = json.documentId as string;
      }
      if (op.family === "result") equal(json.status, documentIds[op.kind] ? "ok" : "error");
    }
    equal(
      e.agent.logs.filter((l) => l.msg === "confirmation page opened").length,
      pages,
      "one page for each request acting in a sender's name",
    );
    ok(filed.size > 0);
  });
});

Deno.test("[client] typed outcomes: NO_DATA, body mismatch, a declined batch", async () => {
  await withEnv(async (e) => {
    const agent = createAgentClient(e.agent.url);
    // A typed call: the body type and the result type follow the typeId.
    // @ts-expect-error year is an integer, not a string
    operationRequest("debt_payments", { eik: EIK, year: "2025" });
    const types = operationRequest("debt_payments_types", {});
    const t = await agent.run(types, { token: await tokenFor(e, types.typeId, types.bodyText) });
    ok(t.ok && t.data.items.length > 0 && !t.noData);

    const batchId = crypto.randomUUID();
    const empty = operationRequest("debt_payments", { eik: EIK, year: 2019 });
    const pending = agent.run(empty, {
      token: await tokenFor(e, empty.typeId, empty.bodyText),
      batchId,
    });
    await decideNext(e.agent, "confirm");
    const none = await pending;
    ok(none.ok, JSON.stringify(none.ok ? null : none.error));
    deepStrictEqual([none.data.status, none.data.items.length, none.noData], ["ok", 0, true]);

    // A token bound to one body does not open another body.
    const bound = operationRequest("debt_payments", { eik: EIK, year: 2025 });
    const other = operationRequest("debt_payments", { eik: EIK, year: 2024 });
    const mismatch = await agent.run(other, {
      token: await tokenFor(e, bound.typeId, bound.bodyText),
      batchId,
    });
    ok(!mismatch.ok);
    deepStrictEqual([mismatch.status, mismatch.error.errorCode], [401, "TOKEN_BODY_MISMATCH"]);

    // A declined batch: SENDER_NOT_CHOSEN for the whole batch, with no new dialog.
    const refused = crypto.randomUUID();
    const due = operationRequest("due_amounts", { eik: EIK });
    const first = agent.run(due, {
      token: await tokenFor(e, due.typeId, due.bodyText),
      batchId: refused,
    });
    await decideNext(e.agent, "decline");
    const r1 = await first;
    ok(!r1.ok);
    deepStrictEqual([r1.status, r1.error.errorCode, r1.error.errorKind], [
      502,
      "SENDER_NOT_CHOSEN",
      "CREDENTIALS",
    ]);
    const again = operationRequest("taxpayers", {});
    const r2 = await agent.run(again, {
      token: await tokenFor(e, again.typeId, again.bodyText),
      batchId: refused,
    });
    ok(!r2.ok && r2.error.errorCode === "SENDER_NOT_CHOSEN");
    equal(e.agent.logs.filter((l) => l.msg === "confirmation page opened").length, 2);
  });
});
