/**
 * Sign-in neither tells nor locks out (docs/token-service.md § Signing up and signing in): the
 * answer to a sign-in is the same for an e-mail with an account and one without; an attacker's
 * address asking for bob's link again and again is refused with 429 (its own address), sends bob
 * at most a few mails (capped silently), and bob asking from his own address still gets his link,
 * read from the real SMTP sink, and signs in with it. On SQLite and (when SVC_TEST_DATABASE_URL
 * is set) PostgreSQL.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { sqliteTokenStore, type TokenStore } from "../../../src/token/mod.ts";
import { pgIgnored } from "../../_helpers/postgres.ts";
import { mailTo, req, signUp, takeLink, webEnv } from "./web_env.ts";

const ATTACKER = "203.0.113.9";
const BOB = "198.51.100.7";

/** What an answer shows: status, the headers a client reads, the page without its nonces. */
async function shown(r: Response) {
  return {
    status: r.status,
    type: r.headers.get("content-type"),
    cookie: r.headers.get("set-cookie"),
    body: (await r.text()).replace(/nonce="[^"]+"/g, "nonce"),
  };
}

async function suite(store: TokenStore, drop?: () => Promise<void>) {
  const e = await webEnv(store, drop);
  try {
    await signUp(e, "bob@five.test", "Bob Ltd");
    await new Promise((r) => setTimeout(r, 100));
    const n0 = e.sink.messages.length;

    // The same answer for an address with an account and one without.
    const known = await req(e, "/profile/sign-in", { form: { email: "bob@five.test" }, from: BOB });
    const unknown = await req(e, "/profile/sign-in", {
      form: { email: "nobody@five.test" },
      from: BOB,
    });
    deepStrictEqual(await shown(known), await shown(unknown));
    await mailTo(e, "bob@five.test", n0);
    await new Promise((r) => setTimeout(r, 200));
    equal(e.sink.messages.slice(n0).filter((m) => m.to.includes("nobody@five.test")).length, 0);

    // The attacker's address asks for bob's link 30 times: its own address gets 429 after 20,
    // bob gets at most 3 mails from it.
    const n1 = e.sink.messages.length;
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const r = await req(e, "/profile/sign-in", {
        form: { email: "bob@five.test" },
        from: ATTACKER,
      });
      statuses.push(r.status);
      await r.body?.cancel();
    }
    deepStrictEqual(statuses, [...Array(20).fill(200), ...Array(10).fill(429)]);
    await new Promise((r) => setTimeout(r, 500));
    const fromAttacker = e.sink.messages.slice(n1).filter((m) => m.to.includes("bob@five.test"));
    ok(fromAttacker.length <= 3, `${fromAttacker.length} mails to bob`);

    // Bob, from his own address, is neither refused nor left without his link.
    const n2 = e.sink.messages.length;
    const own = await req(e, "/profile/sign-in", { form: { email: "bob@five.test" }, from: BOB });
    equal(own.status, 200);
    await own.body?.cancel();
    const session = await takeLink(e, await mailTo(e, "bob@five.test", n2));
    ok(session.csrf.length > 10);
  } finally {
    await e.close();
  }
}

Deno.test("sign-in: the same answer for known and unknown; no lockout of the owner (SQLite)", async () => {
  await suite(sqliteTokenStore(":memory:"));
});

Deno.test({
  name: "sign-in: the same answer for known and unknown; no lockout of the owner (PostgreSQL)",
  ignore: pgIgnored(),
  async fn() {
    const { freshPgSchema } = await import("../../_helpers/postgres.ts");
    const { openTokenStore } = await import("../../../src/token/mod.ts");
    const pg = await freshPgSchema();
    await suite(
      await openTokenStore({ dataDir: "/nonexistent", databaseUrl: pg.url }),
      () => pg.drop(),
    );
  },
});
