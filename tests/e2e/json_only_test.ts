/**
 * JSON only, keys as sent, and the budgets of the person's pages, against the real token service
 * and agent on loopback: `POST /api/v1/operations/*`, `POST /api/v1/tokens/issue` and
 * `POST /api/v1/applications` answer 415 UNSUPPORTED_MEDIA_TYPE to text/plain, a form, XML and
 * no Content-Type (and accept `application/json` with or without `charset=utf-8`); a refused
 * operation spends neither its token nor a confirmation; a key with characters around it is
 * refused with 401 and a hint; a flood of 300 requests carrying no Origin, Referer or fetch
 * metadata does not stop the user's page (in a browser that sends no fetch metadata either) from
 * loading, polling and confirming; the console's cross-site refusal speaks of the console.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import {
  createKeyCli,
  issueToken,
  type Proc,
  startAgent,
  startTokenService,
} from "../_helpers/e2e.ts";

const EIK = "121212121";

/** The four content types the agent and the token service once read as JSON. */
const NOT_JSON: readonly (readonly [string, string | null, string])[] = [
  ["text/plain", "text/plain;charset=UTF-8", "{}"],
  ["form", "application/x-www-form-urlencoded", "a=1"],
  ["XML", "application/xml", "<a/>"],
  ["none", null, "{}"],
];

async function withServices(fn: (e: { ts: Proc; agent: Proc; key: string }) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "svc-e2e-json-" });
  const ts = await startTokenService(`${dir}/ts`);
  const agent = await startAgent(`${dir}/agent`, ts.url);
  try {
    await fn({ ts, agent, key: await createKeyCli(`${dir}/ts`, "test") });
  } finally {
    await agent.stop();
    await ts.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** A POST whose body is bytes, so that fetch adds no Content-Type of its own. */
function post(url: string, type: string | null, body: string, headers: Record<string, string>) {
  return fetch(url, {
    method: "POST",
    headers: { ...headers, ...(type === null ? {} : { "content-type": type }) },
    body: new TextEncoder().encode(body),
  });
}

Deno.test("[e2e] 415 for text/plain, forms, XML and no Content-Type; JSON with or without a charset", async () => {
  await withServices(async ({ ts, agent, key }) => {
    for (const [what, type, body] of NOT_JSON) {
      // The agent: a valid token, a body it would have read as JSON before.
      const token = await issueToken(ts.url, key, { typeId: "debt_payments", eik: EIK });
      const r = await post(`${agent.url}/api/v1/operations/debt_payments`, type, body, {
        authorization: `Bearer ${token}`,
      });
      equal(r.status, 415, what);
      const j = await r.json();
      equal(j.errorCode, "UNSUPPORTED_MEDIA_TYPE", what);
      equal(j.errorKind, "PARAMETER");
      match(j.error, /application\/json/);
      // Refused before the token was used: the same token still works once, as JSON.
      const ok200 = await post(
        `${agent.url}/api/v1/operations/debt_payments_types`,
        "application/json",
        "{}",
        {
          authorization: `Bearer ${await issueToken(ts.url, key, {
            typeId: "debt_payments_types",
          })}`,
        },
      );
      equal(ok200.status, 200, `${what}: JSON still answers`);
      await ok200.body?.cancel();
      // The token service: issuance and the contract application.
      const issued = await post(`${ts.url}/api/v1/tokens/issue`, type, body, {
        authorization: `Bearer ${key}`,
      });
      equal(issued.status, 415, `issue, ${what}`);
      equal((await issued.json()).errorCode, "UNSUPPORTED_MEDIA_TYPE");
      const applied = await post(`${ts.url}/api/v1/applications`, type, body, {
        authorization: `Bearer ${key}`,
      });
      equal(applied.status, 415, `applications, ${what}`);
      equal((await applied.json()).errorCode, "UNSUPPORTED_MEDIA_TYPE");
    }
    // No confirmation page was opened by any refused request.
    equal(agent.logs.filter((l) => l.msg === "confirmation page opened").length, 0);
    for (
      const type of [
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON;charset=UTF-8",
      ]
    ) {
      const token = await issueToken(ts.url, key, { typeId: "debt_payments_types" });
      const r = await post(`${agent.url}/api/v1/operations/debt_payments_types`, type, "{}", {
        authorization: `Bearer ${token}`,
      });
      equal(r.status, 200, type);
      await r.body?.cancel();
      const issued = await post(
        `${ts.url}/api/v1/tokens/issue`,
        type,
        JSON.stringify({ typeId: "debt_payments_types" }),
        {
          authorization: `Bearer ${key}`,
        },
      );
      equal(issued.status, 200, type);
      await issued.body?.cancel();
    }
  });
});

/** Send raw bytes of one request and read the answer's status line and body. */
async function rawRequest(
  url: string,
  head: Uint8Array,
  body: string,
): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  const bytes = new TextEncoder().encode(body);
  const rest = new TextEncoder().encode(
    `Content-Type: application/json\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n${body}`,
  );
  const all = new Uint8Array(head.length + rest.length);
  all.set(head);
  all.set(rest, head.length);
  await conn.write(all);
  let text = "";
  const buf = new Uint8Array(8192);
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  conn.close();
  return { status: Number(text.split(" ")[1]), body: text.split("\r\n\r\n").slice(1).join("") };
}

Deno.test("[e2e] a key with characters around it is refused with 401 and a hint", async () => {
  await withServices(async ({ ts, key }) => {
    const body = JSON.stringify({ typeId: "debt_payments_types" });
    const issueWith = async (authorization: Uint8Array) =>
      await rawRequest(
        `${ts.url}/api/v1/tokens/issue`,
        new Uint8Array([
          ...new TextEncoder().encode(
            `POST /api/v1/tokens/issue HTTP/1.1\r\nHost: ${
              new URL(ts.url).host
            }\r\nAuthorization: `,
          ),
          ...authorization,
          13,
          10,
        ]),
        body,
      );
    const enc = (s: string) => new TextEncoder().encode(s);
    const cases: [string, Uint8Array][] = [
      ["a space and more text", enc(`Bearer ${key} x`)],
      ["a tab and more text", enc(`Bearer ${key}\tx`)],
      ["a no-break space (UTF-8)", new Uint8Array([...enc(`Bearer ${key}`), 0xc2, 0xa0])],
      ["a no-break space (Latin-1)", new Uint8Array([...enc(`Bearer ${key}`), 0xa0])],
      ["a no-break space before it", new Uint8Array([...enc("Bearer "), 0xa0, ...enc(key)])],
      ["quotes", enc(`Bearer "${key}"`)],
    ];
    for (const [what, auth] of cases) {
      const r = await issueWith(auth);
      equal(r.status, 401, what);
      const j = JSON.parse(r.body);
      equal(j.errorCode, "API_KEY_INVALID", what);
      match(j.error, /other characters around it/, what);
    }
    // The key as it is, or after several spaces (RFC 6750 allows them), is accepted; spaces and
    // tabs at the very end of the header are removed by HTTP itself before the service sees it.
    for (const auth of [`Bearer ${key}`, `Bearer   ${key}`, `bearer\t${key}`]) {
      equal((await issueWith(enc(auth))).status, 200, JSON.stringify(auth));
    }
    // An unknown secret keeps the plain refusal.
    const r = await issueWith(enc(`Bearer svc_test_${"A".repeat(43)}`));
    equal(r.status, 401);
    ok(!/around it/.test(JSON.parse(r.body).error));
  });
});

Deno.test("[e2e] 300 requests without Origin, Referer or fetch metadata do not stop the user's page from confirming", async () => {
  await withServices(async ({ ts, agent, key }) => {
    const token = await issueToken(ts.url, key, { typeId: "due_amounts", eik: EIK });
    const filing = fetch(`${agent.url}/api/v1/operations/due_amounts`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "x-svc-batch-id": crypto.randomUUID(),
      },
      body: JSON.stringify({ eik: EIK }),
    });
    const pageUrl = String((await agent.waitLog("confirmation page opened")).url);
    // A local program floods the person's pages: no Origin, no Referer, no fetch metadata.
    const flood = await Promise.all(
      Array.from(
        { length: 300 },
        (_, i) =>
          fetch(
            `${agent.url}/${
              i % 3 === 0 ? "confirm/x/state" : i % 3 === 1 ? "confirm/y" : "console"
            }`,
          )
            .then(async (r) => (await r.body?.cancel(), r.status)),
      ),
    );
    ok(flood.filter((s) => s === 429).length >= 300 - 120, `flood answered ${flood}`);
    // The user's page in a browser that sends no fetch metadata: opened without a Referer (as the
    // agent opens it), then polling and deciding with the agent's own Referer and Origin.
    const page = await fetch(pageUrl);
    equal(page.status, 200);
    const html = await page.text();
    for (let i = 0; i < 5; i++) {
      const poll = await fetch(`${pageUrl}/state`, { headers: { referer: pageUrl } });
      equal(poll.status, 200);
      await poll.body?.cancel();
    }
    const decided = await fetch(`${pageUrl}/decision`, {
      method: "POST",
      redirect: "manual",
      headers: {
        origin: new URL(pageUrl).origin,
        referer: pageUrl,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({
        nonce: /name="nonce" value="([^"]+)"/.exec(html)![1]!,
        seen: /name="seen" id="seen" value="(\d+)"/.exec(html)![1]!,
        decision: "confirm",
        senderId: /name="senderId" value="([^"]+)" checked/.exec(html)?.[1] ?? "",
      }),
    });
    equal(decided.status, 200);
    await decided.body?.cancel();
    const answered = await filing;
    equal(answered.status, 200);
    await answered.body?.cancel();
    // The flood's own budget is still spent: it keeps being refused.
    const after = await fetch(`${agent.url}/confirm/x/state`);
    equal(after.status, 429);
    await after.body?.cancel();
  });
});

Deno.test("[e2e] the console's cross-site refusal speaks of the console", async () => {
  await withServices(async ({ agent }) => {
    const refusals = [];
    for (const path of ["/console", "/", "/confirm/x"]) {
      const r = await fetch(`${agent.url}${path}`, { headers: { "sec-fetch-site": "cross-site" } });
      equal(r.status, 403);
      refusals.push((await r.json()).error);
    }
    match(refusals[0], /console/);
    match(refusals[1], /console/);
    ok(!/confirmation/.test(refusals[0]));
    match(refusals[2], /confirmation pages/);
    deepStrictEqual(new Set(refusals).size, 2);
  });
});
