/**
 * A confirmed batch covers the items its pages showed (docs/confirmation.md § What a confirmed
 * batch covers): the same request again stays silent; another report, a filing of a declaration
 * it did not show, a company it did not show, or another path — even inside a confirmed folder —
 * asks again, showing only what is new; a decline then refuses only that request, and the batch's
 * earlier items stay. (The table of the cases that a product of the items used to let through is
 * in confirm_items_test.ts.)
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { agentEnv, waitFor } from "../_helpers/agent_env.ts";
import { sampleDeclarationFile } from "../_helpers/sample_files.ts";

/** A confirmation page in English (the language switch's cookie): the checks read its words. */
async function englishPage(
  e: { agent: { app: { request: (u: string, i?: RequestInit) => Response | Promise<Response> } } },
  url: string,
) {
  return await (await e.agent.app.request(url, { headers: { cookie: "svc_lang=en" } })).text();
}

const EIK = "121212121";
const OTHER = "246824682";

type Env = Awaited<ReturnType<typeof agentEnv>>;

function caller(e: Env, batch: string) {
  return async (typeId: string, eik: string | null, body: Record<string, unknown>, h = {}) =>
    await e.call(
      typeId,
      await e.token(eik ? { typeId, eik } : { typeId }),
      body,
      { "x-svc-batch-id": batch, ...h },
    );
}

const inline731 = (eik: string) => {
  const f = sampleDeclarationFile("dec731", eik);
  return { eik, year: 2025, _inlineFile: { name: f.name, contentBase64: f.bytes.toBase64() } };
};
const inlineEtz = (eik: string) => {
  const f = sampleDeclarationFile("etz62", eik);
  return { eik, _inlineFile: { name: f.name, contentBase64: f.bytes.toBase64() } };
};

Deno.test("[agent] a read-only confirmation does not cover a filing or another company: the page asks again for what is new, a decline refuses only that", async () => {
  const e = await agentEnv();
  const call = caller(e, crypto.randomUUID());
  const first = call("debt_payments", EIK, { eik: EIK, year: 2025 });
  await waitFor(() => e.opened.length === 1);
  await e.decide("confirm");
  equal((await first).status, 200);
  // The same read again: silent.
  equal((await call("debt_payments", EIK, { eik: EIK, year: 2025 })).status, 200);
  equal(e.opened.length, 1);
  // Another report of the same company was not shown: it asks again, and once confirmed is covered.
  const due = call("due_amounts", EIK, { eik: EIK });
  await waitFor(() => e.opened.length === 2);
  match(await englishPage(e, e.opened[1]!), /read: Amounts due for 121212121/);
  await e.decide("confirm");
  equal((await due).status, 200);
  equal((await call("due_amounts", EIK, { eik: EIK })).status, 200);
  equal(e.opened.length, 2);
  // A filing the user never saw: the page opens again, showing only the new part.
  const filing = call("dec731", EIK, inline731(EIK));
  await waitFor(() => e.opened.length === 3);
  const page = await englishPage(e, e.opened[2]!);
  match(page, /id="extension"/);
  match(page, /This batch was already confirmed for reports for 121212121\. It now also asks to:/);
  match(page, /file: Annual tax return form 731 for 121212121/);
  match(page, /dec731\.xml/);
  match(page, /Declining refuses only what is new/);
  ok(
    !/Debts and payments/.test(page.split('id="what"')[0]!),
    "the earlier read is not asked again",
  );
  await e.decide("decline");
  const refused = await filing;
  equal(refused.status, 502);
  const body = await refused.json();
  equal(body.errorCode, "SENDER_NOT_CHOSEN");
  match(body.error, /earlier confirmation stands/);
  // The batch's earlier items stay: its reads still run silently.
  equal((await call("due_amounts", EIK, { eik: EIK })).status, 200);
  equal(e.opened.length, 3);
  equal(e.journal.list().length, 0, "nothing was filed");
  // Another company, another declaration: asks again; confirmed, it is filed and then covered.
  const etz = call("etz62", OTHER, inlineEtz(OTHER));
  await waitFor(() => e.opened.length === 4);
  const page3 = await englishPage(e, e.opened[3]!);
  match(page3, /file: Employment contract notice \(Labour Code art\. 62\) for 246824682/);
  match(page3, /New company: 246824682/);
  await e.decide("confirm");
  const filed = await etz;
  equal(filed.status, 200);
  equal((await filed.json()).success, true);
  const again = await call("etz62", OTHER, inlineEtz(OTHER), { "idempotency-key": "2" });
  equal(again.status, 200);
  equal(e.opened.length, 4, "the same bytes again, inside the widened scope: silent");
  // Another notice of that company (other bytes) was never shown: it asks again.
  const changed = inlineEtz(OTHER);
  changed._inlineFile.contentBase64 = new TextEncoder().encode(
    `<etzemploy><eik>${OTHER}</eik><contract><rowenum><egn>7501020018</egn></rowenum></contract></etzemploy>`,
  ).toBase64();
  const second = call("etz62", OTHER, changed);
  await waitFor(() => e.opened.length === 5);
  match(
    await englishPage(e, e.opened[4]!),
    /file: Employment contract notice \(Labour Code art\. 62\) for 246824682/,
  );
  await e.decide("decline");
  equal((await (await second).json()).errorCode, "SENDER_NOT_CHOSEN");
  // The filing declined earlier asks again (its kind was never confirmed).
  const retry = call("dec731", EIK, inline731(EIK));
  await waitFor(() => e.opened.length === 6);
  await e.decide("confirm");
  equal((await retry).status, 200);
});

Deno.test("[agent] paths: a confirmed folder covers reading it again (in any spelling), not a folder inside or beside it", async () => {
  const e = await agentEnv();
  const root = await Deno.makeTempDir({ prefix: "svc-scope-" });
  try {
    await Deno.mkdir(join(root, "a", "sub"), { recursive: true });
    await Deno.mkdir(join(root, "b"));
    const call = caller(e, crypto.randomUUID());
    const scan = (folder: string) =>
      call("dec1_files_scan", null, { rootFolder: folder, year: 2026, month: 9 });
    const first = scan(join(root, "a"));
    await waitFor(() => e.opened.length === 1);
    await e.decide("confirm");
    equal((await first).status, 200);
    // The same folder again, also spelled through a parent (compared resolved): silent.
    equal((await scan(join(root, "a"))).status, 200);
    equal((await scan(join(root, "a", "sub", ".."))).status, 200);
    equal(e.opened.length, 1);
    // A folder inside it, one beside it, and one whose name only starts the same ask again.
    const others = [join(root, "a", "sub"), join(root, "b"), join(root, "a-other")];
    for (const [i, folder] of others.entries()) {
      const p = scan(folder);
      await waitFor(() => e.opened.length === 2 + i);
      const page = await englishPage(e, e.opened.at(-1)!);
      match(page, /It now also asks to:/);
      await e.decide("decline");
      equal((await (await p).json()).errorCode, "SENDER_NOT_CHOSEN");
    }
    // The confirmed folder still runs silently.
    equal((await scan(join(root, "a"))).status, 200);
    equal(e.opened.length, 4);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("[agent] a folder-wide filing covers itself (its folder and its listed companies), not a single filing from a file inside it", async () => {
  const e = await agentEnv();
  const root = await Deno.makeTempDir({ prefix: "svc-scope-batch-" });
  try {
    const call = caller(e, crypto.randomUUID());
    const token = await e.token({ typeId: "etz62_batch", eiks: [EIK, OTHER] });
    const batchId = crypto.randomUUID();
    const first = e.call("etz62_batch", token, { rootFolder: root }, { "x-svc-batch-id": batchId });
    await waitFor(() => e.opened.length === 1);
    await e.decide("confirm");
    equal((await first).status, 200);
    const same = caller(e, batchId);
    // The same folder-wide filing again (a retry): silent.
    const again = await e.call(
      "etz62_batch",
      await e.token({
        typeId: "etz62_batch",
        eiks: [EIK, OTHER],
      }),
      { rootFolder: root },
      {
        "x-svc-batch-id": batchId,
      },
    );
    equal(again.status, 200, JSON.stringify(await again.clone().json()));
    equal(e.opened.length, 1);
    // A notice of a listed company from a file inside the folder was not shown: it asks again,
    // and once confirmed its retry is silent.
    const f = sampleDeclarationFile("etz62", OTHER);
    await Deno.writeFile(join(root, "n.xml"), f.bytes);
    const file = { "x-svc-file-path": join(root, "n.xml") };
    const inside = same("etz62", OTHER, { eik: OTHER }, file);
    await waitFor(() => e.opened.length === 2);
    await e.decide("confirm");
    equal((await inside).status, 200);
    equal((await same("etz62", OTHER, { eik: OTHER }, file)).status, 200);
    equal(e.opened.length, 2);
    // Another declaration kind from the same folder asks again.
    const p = same("etz123", OTHER, { eik: OTHER }, file);
    await waitFor(() => e.opened.length === 3);
    await e.decide("decline");
    deepStrictEqual((await (await p).json()).errorCode, "SENDER_NOT_CHOSEN");
    // A batch of another id is another batch.
    const q = call("etz62", OTHER, { eik: OTHER }, file);
    await waitFor(() => e.opened.length === 4);
    await e.decide("decline");
    await q;
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
