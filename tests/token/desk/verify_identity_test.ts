/**
 * Who asks, shown truthfully (docs/token-service.md § Who asks): an integrator's name reaches the
 * agents as verified (the token's `intgVerified` claim) only once an administrator verified its
 * legal name and EIK — with "verify identity" on the desk or an EIK given at the contract's
 * approval — and both are audited; a wrong EIK or an empty name is refused with 400
 * `WEB_INPUT_INVALID` and changes nothing; taking it back removes the claim. Over HTTP against
 * the token app, on SQLite and PostgreSQL (the store's migration 11 on both).
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { decodeJwt } from "jose";
import { createApiKey } from "../../../src/token/mod.ts";
import { pgIgnored } from "../../_helpers/postgres.ts";
import { firstAdmin, startWebEnv, type WebEnv, webText } from "../../_helpers/web_people.ts";

async function suite(e: WebEnv) {
  const svc = e.svcs[0]!;
  const now = Date.now();
  for (const id of ["acme", "beta"]) {
    await e.store.createIntegrator({
      id,
      name: "Demo integrator",
      email: `dev@${id}.test`,
      locale: "bg",
      allowedOrigins: [],
      createdAt: now,
    });
  }
  const acme = await createApiKey(e.store, { mode: "test", integratorId: "acme", now });
  const claimsOf = async (secret: string) => {
    const r = await svc.app.request("http://svc.test/api/v1/tokens/issue", {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ typeId: "vat", eik: "121212121" }),
    });
    equal(r.status, 200);
    return decodeJwt((await r.json()).token);
  };
  /** The claims once the issuance cache has seen the change (it checks within a second). */
  const settled = async (secret: string, want: (c: Record<string, unknown>) => boolean) => {
    for (let i = 0; i < 40; i++) {
      const c = await claimsOf(secret);
      if (want(c)) return c;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("the claims never changed");
  };

  // Self-declared: the name only.
  const before = await claimsOf(acme.secret);
  equal(before.intgName, "Demo integrator");
  equal(before.intgVerified, undefined);

  const root = await firstAdmin(e, "root@svc.test");
  const verify = (form: Record<string, string>) =>
    webText(svc, "/admin/integrators/acme/verify-identity", {
      form: { ...form, csrf: root.csrf },
      cookie: root.cookie,
    });
  // A wrong check digit and an empty name are refused; nothing is stored.
  equal((await verify({ legalName: "Акме Софт ООД", eik: "123456789" })).status, 400);
  equal((await verify({ legalName: "  ", eik: "123456786" })).status, 400);
  equal((await e.store.getIntegrator("acme"))!.verified, null);

  const ok1 = await verify({ legalName: " Акме  Софт ООД ", eik: "123456786" });
  equal(ok1.status, 303);
  const stored = (await e.store.getIntegrator("acme"))!.verified!;
  deepStrictEqual([stored.legalName, stored.eik, stored.by], [
    "Акме Софт ООД",
    "123456786",
    "root@svc.test",
  ]);
  const page = await webText(svc, "/admin/integrators", { cookie: root.cookie });
  match(page.text, /data-verified="yes"/);
  match(page.text, /Акме Софт ООД/);

  const after = await settled(acme.secret, (c) => c.intgVerified !== undefined);
  deepStrictEqual(after.intgVerified, { legalName: "Акме Софт ООД", eik: "123456786" });
  equal(after.intgName, "Demo integrator");

  // Taken back: the claim goes.
  const un = await webText(svc, "/admin/integrators/acme/unverify-identity", {
    form: { csrf: root.csrf },
    cookie: root.cookie,
  });
  equal(un.status, 303);
  await settled(acme.secret, (c) => c.intgVerified === undefined);

  // At a contract's approval: the EIK given with it verifies the application's company name.
  const live = await createApiKey(e.store, { mode: "live", integratorId: "beta", now });
  const applied = await svc.app.request("http://svc.test/api/v1/applications", {
    method: "POST",
    headers: { authorization: `Bearer ${live.secret}`, "content-type": "application/json" },
    body: JSON.stringify({
      company: "Бета Счетоводство ЕООД",
      contactEmail: "billing@beta.test",
      intendedUse: "VAT filings",
    }),
  });
  const app = await applied.json();
  const approved = await webText(svc, `/admin/applications/${app.id}/approve`, {
    form: { eik: "123456786", csrf: root.csrf },
    cookie: root.cookie,
  });
  equal(approved.status, 200);
  match(approved.text, /договор/);
  const beta = (await e.store.getIntegrator("beta"))!.verified!;
  deepStrictEqual([beta.legalName, beta.eik], ["Бета Счетоводство ЕООД", "123456786"]);
  const betaClaims = await settled(live.secret, (c) => c.intgVerified !== undefined);
  deepStrictEqual(betaClaims.intgVerified, {
    legalName: "Бета Счетоводство ЕООД",
    eik: "123456786",
  });

  // Audited: who verified whom, when, how.
  const audit = await e.store.listAudit({ limit: 50 });
  const rows = audit.map((a) => `${a.actor} ${a.action} ${a.target}`);
  ok(rows.includes("root@svc.test integrator.verify-identity acme"), rows.join("\n"));
  ok(rows.includes("root@svc.test integrator.unverify-identity acme"), rows.join("\n"));
  const viaApproval = audit.find((a) =>
    a.action === "integrator.verify-identity" && a.target === "beta"
  )!;
  deepStrictEqual(JSON.parse(viaApproval.detail), {
    legalName: "Бета Счетоводство ЕООД",
    eik: "123456786",
    via: "contract approval",
  });
}

Deno.test("an integrator is verified only by an administrator, audited (SQLite)", async () => {
  const e = await startWebEnv("sqlite");
  try {
    await suite(e);
  } finally {
    await e.close();
  }
});

Deno.test({
  name: "an integrator is verified only by an administrator, audited (PostgreSQL)",
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
