/**
 * One journal vocabulary: inside the agent a declaration that never reached the NRA is
 * "not_filed" (the journal's state, docs/journal.md). The old word "not_sent" is deprecated:
 * an adapter that still says it is understood, and the agent's wire keeps sending it in
 * `details.outcome` until its sunset (CHANGELOG § Deprecated, docs/compatibility.md).
 */
import { equal } from "node:assert/strict";
import { Hono } from "hono";
import { AppError } from "../../src/contract/errors.ts";
import { outcomeOf } from "../../src/agent/filing/outcome.ts";
import { type AgentEnv, errorResponse } from "../../src/agent/http/errors_wire.ts";
import { silentLogger } from "../../src/log.ts";

const err = (outcome?: string, code: "PORTAL_UNREACHABLE" | "PORTAL_TIMEOUT" = "PORTAL_TIMEOUT") =>
  new AppError(code, "x", outcome === undefined ? undefined : { outcome });

Deno.test("outcomeOf(): not_filed, the deprecated not_sent, and the codes' fallback", () => {
  equal(outcomeOf(err("not_filed")), "not_filed");
  equal(outcomeOf(err("not_sent")), "not_filed");
  equal(outcomeOf(err("refused")), "refused");
  equal(outcomeOf(err(undefined, "PORTAL_UNREACHABLE")), "not_filed");
  equal(outcomeOf(err(undefined)), "unknown");
});

Deno.test("the agent's wire still says details.outcome not_sent until its sunset", async () => {
  const app = new Hono<AgentEnv>();
  app.get("/x", () => {
    throw err("not_filed", "PORTAL_UNREACHABLE");
  });
  app.get("/y", () => {
    throw err("unknown");
  });
  app.onError((e, c) => errorResponse(c, e, silentLogger));
  const x = await (await app.request("/x")).json();
  equal(x.errorCode, "PORTAL_UNREACHABLE");
  equal(x.details.outcome, "not_sent");
  equal((await (await app.request("/y")).json()).details.outcome, "unknown");
});
