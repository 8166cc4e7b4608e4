/**
 * Fuzz: per operation family, 10,000 random bodies and headers (with valid, forged, expired and
 * missing tokens) get only 4xx or 502 answers (or 200 where the input happens to be valid),
 * always with a catalogued errorCode, never a 500; the agent keeps serving afterwards.
 */
import { equal, ok } from "node:assert/strict";
import fc from "fast-check";
import { ERROR_CATALOG } from "../../src/contract/errors.ts";
import { OPERATIONS } from "../../src/contract/operations.ts";
import { AGENT, agentEnv, waitFor } from "../_helpers/agent_env.ts";
import { TEST_ISSUER } from "../_helpers/token_env.ts";

const RUNS = Number(Deno.env.get("FUZZ_RUNS") ?? 10_000);
const FAMILIES = ["submission", "result", "report", "portal_files", "local", "batch"] as const;
const tmp = await Deno.makeTempDir({ prefix: "svc-fuzz-" });

const jsonValue = fc.oneof(
  fc.constantFrom(
    "121212121",
    "12",
    "",
    "2026",
    "/etc",
    tmp,
    `${tmp}/missing`,
    "relative/x",
    "C:\\x",
    "EU_BG",
    "0",
  ),
  fc.integer({ min: -5, max: 3000 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string(),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 2 }),
);
const fieldNames = fc.constantFrom(
  "eik",
  "year",
  "month",
  "type",
  "documentId",
  "subtype",
  "filter",
  "rootFolder",
  "directory",
  "recursive",
  "dec1FilePath",
  "dec6FilePath",
  "fund",
  "iban",
  "_inlineFile",
  "_inlineDir",
  "__proto__",
  "constructor",
);
const body = fc.oneof(
  fc.dictionary(fieldNames, jsonValue, { maxKeys: 6 }).map((o) => JSON.stringify(o)),
  fc.string().map((s) => s),
  fc.constantFrom("", "null", "[]", "{", '{"eik":', "\u0000", '{"year":1e400}', "x".repeat(5000)),
  fc.uint8Array({ maxLength: 64 }).map((b) => new TextDecoder("latin1").decode(b)),
);
const tokenKind = fc.constantFrom(
  "valid",
  "valid",
  "valid",
  "none",
  "garbage",
  "otherType",
  "expired",
);
const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(crypto.randomUUID(), "test-sender", "/tmp", ""),
);

for (const family of FAMILIES) {
  Deno.test({
    name:
      `[agent] fuzz: ${RUNS} random requests to the ${family} family give only catalogued 4xx/502 answers`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const e = await agentEnv({ timeoutMs: 60_000, rateLimits: { operationsPer10s: 1e9 } });
      const ops = OPERATIONS.filter((o) => o.family === family);
      // A batch refused once: every confirmation in the fuzz run is answered at once.
      const declined = crypto.randomUUID();
      const first = e.call(
        "due_amounts",
        await e.token({ typeId: "due_amounts", eik: "121212121" }),
        { eik: "121212121" },
        {
          "x-svc-batch-id": declined,
        },
      );
      await waitFor(() => e.opened.length === 1);
      await e.decide("decline");
      await first;
      const mint = (typeId: string, claims: Record<string, unknown>, iatOffset = 0) => {
        const now = Math.floor(e.clock.now() / 1000) + iatOffset;
        return e.ring().sign(
          {
            iss: TEST_ISSUER,
            aud: "svc-agent",
            sub: "k",
            jti: crypto.randomUUID(),
            typeId,
            mode: "test",
            intg: "default",
            ...claims,
          },
          now,
          now + 5,
        );
      };
      const seen = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...ops),
          body,
          tokenKind,
          fc.option(headerValue),
          fc.option(headerValue),
          async (op, raw, tk, sender, filePath) => {
            const claims = op.scope === "eik"
              ? { eik: "121212121" }
              : op.scope === "eiks"
              ? { eiks: ["121212121", "131313131"] }
              : {};
            const headers: Record<string, string> = { "content-type": "application/json" };
            if (tk === "valid") headers.authorization = `Bearer ${await mint(op.typeId, claims)}`;
            if (tk === "garbage") headers.authorization = "Bearer eyJhbGciOi.x.y";
            if (tk === "otherType") headers.authorization = `Bearer ${await mint("taxpayers", {})}`;
            if (tk === "expired") {
              headers.authorization = `Bearer ${await mint(op.typeId, claims, -60)}`;
            }
            if (sender !== null) headers["x-svc-sender-id"] = sender;
            if (filePath !== null) headers["x-svc-file-path"] = filePath;
            headers["x-svc-batch-id"] = declined;
            const res = await e.agent.app.request(`${AGENT}/api/v1/operations/${op.typeId}`, {
              method: "POST",
              headers,
              body: raw,
            });
            seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
            const j = await res.json();
            if (res.status === 200) return;
            ok(
              res.status === 502 || (res.status >= 400 && res.status < 500),
              `status ${res.status}: ${JSON.stringify(j)}`,
            );
            ok(j.errorCode in ERROR_CATALOG, `uncatalogued ${JSON.stringify(j)}`);
            ok(j.errorCode !== "AGENT_INTERNAL_ERROR", `internal error: ${JSON.stringify(j)}`);
            equal(typeof j.error, "string");
          },
        ),
        { numRuns: RUNS },
      );
      ok(!seen.has(500));
      equal(e.opened.length, 1, "no dialog beyond the declined one");
      const health = await e.agent.app.request(`${AGENT}/health`);
      equal(health.status, 200, "the agent keeps serving");
      console.error(`  ${family}: statuses ${JSON.stringify(Object.fromEntries(seen))}`);
    },
  });
}

Deno.test({
  name: `[agent] fuzz: ${
    Math.ceil(RUNS / 5)
  } random decisions to POST /confirm/:id/decision give only catalogued 4xx/502 answers`,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const e = await agentEnv({ timeoutMs: 600_000, rateLimits: { confirmPerMinute: 1e9 } });
    const pending = e.call(
      "due_amounts",
      await e.token({ typeId: "due_amounts", eik: "121212121" }),
      { eik: "121212121" },
    );
    await waitFor(() => e.opened.length === 1);
    const url = e.opened[0]!;
    const id = url.split("/").at(-1)!;
    const nonce = /name="nonce" value="([^"]+)"/.exec(
      await (await e.agent.app.request(url)).text(),
    )![1]!;
    const value = fc.oneof(
      jsonValue,
      fc.constantFrom(nonce, "confirm", "decline", "1", "test-sender", "ghost"),
      fc.object({ maxDepth: 1, maxKeys: 2 }),
      fc.constant({ toString: 1 }),
    );
    const field = fc.constantFrom("decision", "nonce", "seen", "senderId", "pin", "__proto__", "x");
    const body = fc.oneof(
      fc.dictionary(field, value, { maxKeys: 5 }).map((o) => ({
        kind: "json",
        raw: JSON.stringify(o),
      })),
      fc.dictionary(field, fc.string({ maxLength: 70 }), { maxKeys: 5 }).map((o) => ({
        kind: "form",
        raw: new URLSearchParams(o).toString(),
      })),
      fc.constantFrom("null", "[]", "1", '"x"', "{", "", "\u0000").map((raw) => ({
        kind: "json",
        raw,
      })),
      fc.string().map((raw) => ({ kind: "text", raw })),
    );
    const contentType = {
      json: "application/json",
      form: "application/x-www-form-urlencoded",
      text: "text/plain",
    };
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        body,
        // Mostly the real dialog from the agent's own page, so that the bodies are what is tried.
        fc.oneof({ weight: 4, arbitrary: fc.constant(id) }, fc.string({ maxLength: 30 })),
        fc.oneof(
          { weight: 6, arbitrary: fc.constant(AGENT) },
          fc.constantFrom("https://evil.example", "null", undefined),
        ),
        fc.constantFrom("same-origin", "same-origin", "cross-site", "none", undefined),
        fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, fc.constant(false)),
        async (b, target, origin, site, typed) => {
          const headers: Record<string, string> = { accept: "application/json" };
          if (typed) headers["content-type"] = contentType[b.kind as keyof typeof contentType];
          if (origin) headers.origin = origin;
          if (site) headers["sec-fetch-site"] = site;
          const res = await e.agent.app.request(
            `${AGENT}/confirm/${encodeURIComponent(target)}/decision`,
            { method: "POST", headers, body: b.raw },
          );
          seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
          if (res.status === 200) return void await res.body?.cancel();
          const j = await res.json();
          ok(res.status === 502 || (res.status >= 400 && res.status < 500), `${res.status}`);
          ok(j.errorCode in ERROR_CATALOG, `uncatalogued ${JSON.stringify(j)}`);
          ok(
            j.errorCode !== "AGENT_INTERNAL_ERROR",
            `internal error: ${JSON.stringify(j)} for ${b.raw}`,
          );
        },
      ),
      { numRuns: Math.ceil(RUNS / 5) },
    );
    ok(!seen.has(500));
    e.agent.confirmations.declineAllPending();
    await pending;
    console.error(`  decisions: statuses ${JSON.stringify(Object.fromEntries(seen))}`);
  },
});
