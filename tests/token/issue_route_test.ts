/**
 * The issuance hot path's own request handling (src/token/issuance/issue_route.ts, src/token/edge/request_edge.ts):
 * the body limit with and without `Content-Length`, the `Authorization` forms RFC 6750 allows,
 * the secret-hash memo never outliving a revocation, and the edge's request id on every answer.
 */
import { equal, match, ok } from "node:assert/strict";
import { tokenEnv } from "../_helpers/token_env.ts";
import { MAX_ISSUE_BODY_BYTES } from "../../src/token/issuance/issue_route.ts";

const ISSUE = "/api/v1/tokens/issue";
const body = JSON.stringify({ typeId: "vat", eik: "121212121" });

/** A body sent in chunks without `Content-Length` (HTTP/1.1 chunked transfer). */
function chunked(text: string, chunkBytes = 16 * 1024): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at += chunkBytes));
    },
  });
}

Deno.test("[token] issuance: a body over 256 KiB is refused with 413 BODY_TOO_LARGE, by its Content-Length or as it streams", async () => {
  const t = await tokenEnv();
  const { secret } = await t.newKey("test");
  const auth = { authorization: `Bearer ${secret}`, "content-type": "application/json" };
  // Declared too large: refused before the body is read.
  const declared = await t.app.request(ISSUE, {
    method: "POST",
    headers: { ...auth, "content-length": String(MAX_ISSUE_BODY_BYTES + 1) },
    body: "{}",
  });
  equal(declared.status, 413);
  const declaredBody = await declared.json();
  equal(declaredBody.errorCode, "BODY_TOO_LARGE");
  equal(declaredBody.requestId, declared.headers.get("x-request-id"));
  // Streamed without a length: refused once the count passes the limit.
  const big = JSON.stringify({
    typeId: "vat",
    eik: "121212121",
    pad: "x".repeat(MAX_ISSUE_BODY_BYTES),
  });
  const streamed = await t.app.request(ISSUE, {
    method: "POST",
    headers: auth,
    body: chunked(big),
    duplex: "half",
  } as RequestInit);
  equal(streamed.status, 413);
  equal((await streamed.json()).errorCode, "BODY_TOO_LARGE");
  // A streamed body under the limit is read whole, its multi-byte characters split across
  // chunks included (one byte per chunk: the decoder streams).
  const small = JSON.stringify({ typeId: "vat", eik: "121212121", origin: "https://пример.bg" });
  const whole = await t.app.request(ISSUE, {
    method: "POST",
    headers: auth,
    body: chunked(small, 1),
    duplex: "half",
  } as RequestInit);
  equal(whole.status, 200, await whole.clone().text());
  const claims = JSON.parse(
    atob((await whole.json()).token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")),
  );
  equal(claims.origin, new URL("https://пример.bg").origin);
  // No body at all: not JSON.
  const empty = await t.app.request(ISSUE, { method: "POST", headers: auth });
  equal(empty.status, 400);
  equal((await empty.json()).errorCode, "INVALID_JSON");
});

Deno.test("[token] issuance: Authorization takes the Bearer scheme in any case and spacing, nothing else", async () => {
  const t = await tokenEnv();
  const { secret } = await t.newKey("test");
  const send = (authorization: string) =>
    t.app.request(ISSUE, {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body,
    });
  for (
    const good of [`Bearer ${secret}`, `Bearer  ${secret}`, `bearer ${secret}`, `BEARER\t${secret}`]
  ) {
    equal((await send(good)).status, 200, good.replace(secret, "<key>"));
  }
  for (const bad of [`Bearer ${secret} x`, `Bearer`, `Bearer `, `Basic ${secret}`, secret]) {
    const res = await send(bad);
    equal(res.status, 401, bad.replace(secret, "<key>"));
    const j = await res.json();
    equal(j.errorCode, "API_KEY_INVALID");
    ok(!JSON.stringify(j).includes(secret), "the secret is never echoed");
  }
  // A tab inside the credential is not a key, whichever check refuses it.
  equal((await send(`Bearer ${secret.slice(0, 20)}\t${secret.slice(20)}`)).status, 401);
});

Deno.test("[token] issuance: a key's remembered secret hash does not outlive its revocation", async () => {
  const t = await tokenEnv();
  const { secret, record } = await t.newKey("test");
  const req = JSON.parse(body);
  equal((await t.issue(secret, req)).status, 200, "the secret's hash is now remembered");
  equal((await t.issue(secret, req)).status, 200);
  await t.store.revokeKey(record.id, t.clock.now());
  const revoked = await t.issue(secret, req);
  equal(revoked.status, 401);
  equal((await revoked.json()).errorCode, "API_KEY_REVOKED");
});

Deno.test("[token] issuance: the answer carries X-Request-Id and Cache-Control: no-store (the budget: rate_limit_test.ts)", async () => {
  const t = await tokenEnv();
  const { secret } = await t.newKey("test");
  const res = await t.issue(secret, JSON.parse(body));
  equal(res.status, 200);
  match(res.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  equal(res.headers.get("cache-control"), "no-store");
  equal(res.headers.get("content-type"), "application/json");
  const token = (await res.json()).token as string;
  match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
});
