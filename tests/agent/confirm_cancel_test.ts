/**
 * Pending confirmations over real HTTP (docs/confirmation.md): the agent app served on a loopback
 * port, tokens from the in-process token service's key ring. A client that disconnects leaves its
 * dialog; a dialog left by all its requests is cancelled (and its batch may ask again); the cap on
 * pending dialogs is per integrator, so one integrator at its cap does not block another.
 */
import { equal, match, ok } from "node:assert/strict";
import { createLocalJWKSet } from "jose";
import { createAgentApp } from "../../src/agent/app.ts";
import { createLocalOps } from "../../src/agent/local/ops.ts";
import { silentLogger } from "../../src/log.ts";
import { createTestPortal } from "../../src/portal/test/adapter.ts";
import { waitFor } from "../_helpers/agent_env.ts";
import { TEST_ISSUER, tokenEnv } from "../_helpers/token_env.ts";

const EIK = "121212121";

/** The agent app on a real loopback port; `maxPending` dialogs per integrator. */
async function servedAgent(maxPending: number) {
  const t = await tokenEnv();
  const opened: string[] = [];
  let port = 0;
  const agent = createAgentApp({
    clock: t.clock,
    log: silentLogger,
    verifier: {
      getKey: (h, tok) => createLocalJWKSet(t.ring().jwks())(h, tok),
      issuer: TEST_ISSUER,
      audience: "svc-agent",
    },
    senders: [],
    portals: { test: createTestPortal({ now: () => new Date(t.clock.now()) }) },
    openBrowser: (url) => opened.push(url),
    port: () => port,
    confirmTimeoutMs: 60_000,
    maxPendingConfirmations: maxPending,
    localOps: createLocalOps(),
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    agent.app.fetch,
  );
  port = server.addr.port;
  const url = `http://127.0.0.1:${port}`;
  /** A token of integrator `intg` for `due_amounts` (asks the sender confirmation). */
  const token = (intg: string) => {
    const now = Math.floor(t.clock.now() / 1000);
    return t.ring().sign(
      {
        iss: TEST_ISSUER,
        aud: "svc-agent",
        sub: `key-${intg}`,
        jti: crypto.randomUUID(),
        typeId: "due_amounts",
        mode: "test",
        intg,
        intgName: `Integrator ${intg}`,
        eik: EIK,
      },
      now,
      now + 5,
    );
  };
  /** `due_amounts` over HTTP; `signal` disconnects the client. */
  const call = async (intg: string, batch: string | null, signal?: AbortSignal) =>
    await fetch(`${url}/api/v1/operations/due_amounts`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${await token(intg)}`,
        "content-type": "application/json",
        ...(batch ? { "x-svc-batch-id": batch } : {}),
      },
      body: JSON.stringify({ eik: EIK }),
      ...(signal ? { signal } : {}),
    });
  /** Confirm a dialog through its page, as a browser would. */
  const confirm = async (pageUrl: string) => {
    const html = await (await fetch(pageUrl)).text();
    const res = await fetch(`${pageUrl}/decision`, {
      method: "POST",
      headers: {
        origin: url,
        "sec-fetch-site": "same-origin",
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: new URLSearchParams({
        nonce: /name="nonce" value="([^"]+)"/.exec(html)![1]!,
        seen: /name="seen" id="seen" value="(\d+)"/.exec(html)![1]!,
        decision: "confirm",
        senderId: "test-sender",
      }),
    });
    await res.body?.cancel();
    return res.status;
  };
  const idOf = (pageUrl: string) => pageUrl.split("/").at(-1)!;
  return {
    agent,
    opened,
    url,
    call,
    confirm,
    idOf,
    close: () => server.shutdown(),
  };
}

/** Start a request whose client can disconnect; its failure (the abort) is expected. */
function disconnectable(start: (signal: AbortSignal) => Promise<Response>) {
  const ac = new AbortController();
  const res = start(ac.signal).catch((e: Error) => e);
  return { disconnect: () => ac.abort(), res };
}

Deno.test("[agent] a client that disconnects cancels its pending confirmation; the batch may ask again", async () => {
  const a = await servedAgent(4);
  try {
    const batch = crypto.randomUUID();
    const req = disconnectable((s) => a.call("intg-a", batch, s));
    await waitFor(() => a.opened.length === 1);
    const page = a.opened[0]!;
    const id = a.idOf(page);
    equal(a.agent.confirmations.get(id)?.state, "pending");
    req.disconnect();
    await req.res;
    await waitFor(() => a.agent.confirmations.get(id)?.state === "cancelled");
    equal(a.agent.confirmations.pending, 0);
    const closed = await fetch(page);
    equal(closed.status, 404);
    match(await closed.text(), /вече не чака отговор/);
    equal((await (await fetch(`${page}/state`)).json()).requests, 0);
    // No decision was taken: the same batch asks again (not SENDER_NOT_CHOSEN).
    const again = a.call("intg-a", batch);
    await waitFor(() => a.opened.length === 2);
    equal(await a.confirm(a.opened[1]!), 200);
    equal((await again).status, 200);
  } finally {
    await a.close();
  }
});

Deno.test("[agent] a shared dialog stays while one of its requests waits, and is cancelled when the last one goes", async () => {
  const a = await servedAgent(4);
  try {
    const batch = crypto.randomUUID();
    const one = disconnectable((s) => a.call("intg-a", batch, s));
    await waitFor(() => a.opened.length === 1);
    const id = a.idOf(a.opened[0]!);
    const two = disconnectable((s) => a.call("intg-a", batch, s));
    await waitFor(() => a.agent.confirmations.get(id)?.subjects.length === 2);
    one.disconnect();
    await one.res;
    await waitFor(() => a.agent.confirmations.get(id)?.subjects.length === 1);
    equal(a.agent.confirmations.get(id)?.state, "pending", "the other request still waits");
    const state = await (await fetch(`${a.opened[0]}/state`)).json();
    equal(state.requests, 1);
    equal(state.version, 3, "one joined, one left: the page reloads");
    two.disconnect();
    await two.res;
    await waitFor(() => a.agent.confirmations.get(id)?.state === "cancelled");
    equal(a.opened.length, 1);
  } finally {
    await a.close();
  }
});

Deno.test("[agent] an integrator at its cap of pending confirmations does not block another integrator", async () => {
  const a = await servedAgent(2);
  try {
    const held = [0, 1].map(() => disconnectable((s) => a.call("intg-a", crypto.randomUUID(), s)));
    await waitFor(() => a.agent.confirmations.pendingFor("intg-a") === 2);
    const busy = await a.call("intg-a", crypto.randomUUID());
    equal(busy.status, 502);
    equal((await busy.json()).errorCode, "CONFIRMATION_BUSY");
    equal(a.opened.length, 2, "no tab for the refused request");
    // Integrator B is not affected by A's dialogs.
    const b = a.call("intg-b", crypto.randomUUID());
    await waitFor(() => a.opened.length === 3);
    equal(await a.confirm(a.opened[2]!), 200);
    equal((await b).status, 200);
    // A's clients go away: their dialogs are cancelled and A may ask again.
    for (const h of held) h.disconnect();
    await Promise.all(held.map((h) => h.res));
    await waitFor(() => a.agent.confirmations.pendingFor("intg-a") === 0);
    const later = a.call("intg-a", crypto.randomUUID());
    await waitFor(() => a.opened.length === 4);
    equal(await a.confirm(a.opened[3]!), 200);
    equal((await later).status, 200);
    ok(
      a.opened.slice(0, 2).every((u) =>
        a.agent.confirmations.get(a.idOf(u))?.state === "cancelled"
      ),
    );
  } finally {
    await a.close();
  }
});
