/**
 * One name for an unknown typeId: `UNKNOWN_TYPE_ID`, on the token service (400) and inside the
 * agent. The agent's wire keeps the deprecated `UNKNOWN_OPERATION` with its 404 until the sunset
 * (CHANGELOG § Deprecated, docs/compatibility.md), so no client sees a change.
 */
import { equal } from "node:assert/strict";
import { Hono } from "hono";
import { AppError } from "../../src/contract/errors.ts";
import { type AgentEnv, errorResponse } from "../../src/agent/http/errors_wire.ts";
import { silentLogger } from "../../src/log.ts";
import { agentEnv } from "../_helpers/agent_env.ts";

Deno.test("the agent answers UNKNOWN_TYPE_ID as the deprecated 404 UNKNOWN_OPERATION", async () => {
  const app = new Hono<AgentEnv>();
  app.get("/x", () => {
    throw new AppError("UNKNOWN_TYPE_ID", "No operation", { typeId: "nope" });
  });
  app.onError((e, c) => errorResponse(c, e, silentLogger));
  const res = await app.request("/x");
  equal(res.status, 404);
  const body = await res.json();
  equal(body.errorCode, "UNKNOWN_OPERATION");
  equal(body.errorKind, "PARAMETER");
  equal(body.details.typeId, "nope");
});

Deno.test("an unknown typeId: 404 UNKNOWN_OPERATION from the agent, 400 UNKNOWN_TYPE_ID from the token service", async () => {
  const e = await agentEnv();
  const issued = await e.issue(e.secret, { typeId: "nope", eik: "121212121" });
  equal(issued.status, 400);
  equal((await issued.json()).errorCode, "UNKNOWN_TYPE_ID");
  const res = await e.call("nope", await e.token({ typeId: "taxpayers" }), {});
  equal(res.status, 404);
  equal((await res.json()).errorCode, "UNKNOWN_OPERATION");
});
