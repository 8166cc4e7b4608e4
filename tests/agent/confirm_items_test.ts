/**
 * A confirmed batch covers exactly the items its pages showed (docs/confirmation.md § What a
 * confirmed batch covers): one item is the operation, the company (or the companies a folder-wide
 * filing lists), the period, the file set (paths, or inline files by their SHA-256) and the other
 * parameters. A retry of the same item runs silently; anything else opens the page again — never
 * a product of what different items showed. Each case below ran silently before the rule was
 * items (the last step of each case asked no page).
 */
import { deepStrictEqual, equal, match, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import type { AppError } from "../../src/contract/mod.ts";
import { FakeClock } from "../../src/clock.ts";
import {
  ConfirmationManager,
  type ConfirmSubject,
  type Dialog,
  paramsOf,
  renderConfirmPage,
} from "../../src/agent/confirm/mod.ts";
import { agentEnv, waitFor } from "../_helpers/agent_env.ts";
import { sampleDeclarationFile } from "../_helpers/sample_files.ts";
import { fixtureBytes } from "../formats/_helpers.ts";

const A = "121212121";
const B = "131313131";
/** The company of the VAT fixtures (DEKLAR.TXT 00-01), period 2026-08. */
const V = "203456783";

type Env = Awaited<ReturnType<typeof agentEnv>>;

/** One request of a case. */
interface Req {
  readonly typeId: string;
  /** The token's `eik`, or its `eiks` (folder-wide filings). */
  readonly eik?: string;
  readonly eiks?: readonly string[];
  readonly body: Record<string, unknown>;
  readonly headers?: Record<string, string>;
}

/** A step: requests sent together (they share one page when one opens), and what must happen. */
interface Step {
  readonly send: readonly Req[];
  /** `asks`: a page opens (it is confirmed, or declined when `decline`); `silent`: none opens. */
  readonly expect: "asks" | "silent";
  readonly decline?: boolean;
}

interface Case {
  readonly name: string;
  readonly steps: (dir: string) => Promise<readonly Step[]>;
}

const vat = (eik: string, year: number, month: number, extra: Record<string, unknown> = {}) => ({
  typeId: "vat",
  eik,
  body: { eik, year, month, ...extra },
});
const read = (eik: string) => ({ typeId: "debt_payments", eik, body: { eik, year: 2025 } });

/** The VAT fixtures' files, under the names the NRA's program writes. */
async function vatFiles(variant: "plain" | "other") {
  return {
    "DEKLAR.TXT": await fixtureBytes(
      variant === "plain" ? "deklar/DEKLAR.TXT" : "deklar/DEKLAR_TRIMMED_579.TXT",
    ),
    "POKUPKI.TXT": await fixtureBytes("pokupki/POKUPKI.TXT"),
    "PRODAGBI.TXT": await fixtureBytes("prodagbi/PRODAGBI.TXT"),
    "VIES.TXT": await fixtureBytes(
      variant === "plain" ? "vies/VIES.TXT" : "vies/VIES_PADDED_373.TXT",
    ),
  };
}

/** A VAT return of the fixtures' company sent inline. */
const inlineVat = (files: Record<string, Uint8Array>) =>
  vat(V, 2026, 8, {
    _inlineDir: {
      name: "vat",
      files: Object.entries(files).map(([path, b]) => ({ path, contentBase64: b.toBase64() })),
    },
  });

const CASES: Case[] = [
  {
    name: "a filing for one company and a read for another do not cover a filing for the second",
    steps: () =>
      Promise.resolve([
        { send: [vat(A, 2026, 8)], expect: "asks" },
        { send: [read(B)], expect: "asks" },
        { send: [vat(A, 2026, 8)], expect: "silent" },
        { send: [read(B)], expect: "silent" },
        { send: [vat(B, 2026, 8)], expect: "asks", decline: true },
      ]),
  },
  {
    name: "two requests joined on one first page cover those two, not their product",
    steps: () =>
      Promise.resolve([
        { send: [vat(A, 2026, 8), read(B)], expect: "asks" },
        { send: [read(B)], expect: "silent" },
        { send: [vat(B, 2026, 8)], expect: "asks", decline: true },
      ]),
  },
  {
    name: "a disk path inside a folder confirmed only for reading is not covered for a filing",
    steps: async (dir) => {
      const folder = join(dir, "vat");
      await Deno.mkdir(folder);
      for (const [name, b] of Object.entries(await vatFiles("plain"))) {
        await Deno.writeFile(join(folder, name), b);
      }
      return [
        { send: [vat(V, 2026, 8)], expect: "asks" },
        { send: [{ typeId: "vat_files_parse", body: { directory: dir } }], expect: "asks" },
        {
          send: [{ ...vat(V, 2026, 8), headers: { "x-svc-file-path": folder } }],
          expect: "asks",
          decline: true,
        },
      ];
    },
  },
  {
    name: "a mix of two confirmed inline file sets is another file set",
    steps: async () => {
      const one = await vatFiles("plain");
      const two = await vatFiles("other");
      return [
        { send: [inlineVat(one)], expect: "asks" },
        { send: [inlineVat(two)], expect: "asks" },
        { send: [inlineVat(one)], expect: "silent" },
        {
          send: [inlineVat({ ...one, "VIES.TXT": two["VIES.TXT"] })],
          expect: "asks",
          decline: true,
        },
      ];
    },
  },
  {
    name: "a subset of a confirmed file set (VAT without VIES) is another return",
    steps: async () => {
      const { "VIES.TXT": _vies, ...withoutVies } = await vatFiles("plain");
      return [
        { send: [inlineVat(await vatFiles("plain"))], expect: "asks" },
        { send: [inlineVat(withoutVies)], expect: "asks", decline: true },
      ];
    },
  },
  {
    name: "another period of the same declaration and company asks again",
    steps: () =>
      Promise.resolve([
        { send: [vat(A, 2026, 8)], expect: "asks" },
        { send: [vat(A, 2026, 8)], expect: "silent" },
        { send: [vat(A, 2025, 1)], expect: "asks", decline: true },
      ]),
  },
  {
    name: "a folder-wide filing cannot add a company confirmed only for a read",
    steps: (dir) => {
      const batch = (eiks: string[]) => ({
        typeId: "vat_batch",
        eiks,
        body: { rootFolder: dir, year: 2026, month: 8 },
      });
      return Promise.resolve([
        { send: [batch([A])], expect: "asks" },
        { send: [read(B)], expect: "asks" },
        { send: [batch([A, B])], expect: "asks", decline: true },
      ]);
    },
  },
];

/** Send a step's requests in one batch and say whether a page opened for them. */
async function run(e: Env, batchId: string, step: Step) {
  const before = e.opened.length;
  const answers = step.send.map(async (r) => {
    const token = await e.token({
      typeId: r.typeId,
      ...(r.eiks ? { eiks: r.eiks } : r.eik ? { eik: r.eik } : {}),
    });
    return e.call(r.typeId, token, r.body, { "x-svc-batch-id": batchId, ...r.headers });
  });
  let settled = 0;
  for (const a of answers) a.then(() => settled++, () => settled++);
  // Until every request is answered or a page opened with all of them.
  const deadline = Date.now() + 5000;
  while (settled < answers.length) {
    if (e.opened.length > before && await requestsOnPage(e) === step.send.length) break;
    if (Date.now() > deadline) throw new Error("neither answered nor asked in time");
    await new Promise((r) => setTimeout(r, 2));
  }
  const asked = e.opened.length > before;
  if (asked) equal((await e.decide(step.decline ? "decline" : "confirm")).status, 200);
  return { asked, answers: await Promise.all(answers) };
}

/** How many requests the newest page lists (its state endpoint, as the page polls it). */
async function requestsOnPage(e: Env): Promise<number> {
  const res = await e.agent.app.request(`${e.opened.at(-1)!}/state`);
  return res.ok ? (await res.json()).requests : 0;
}

for (const c of CASES) {
  Deno.test(`[agent] items: ${c.name}`, async () => {
    const e = await agentEnv();
    const dir = await Deno.makeTempDir({ prefix: "svc-items-" });
    try {
      const batchId = crypto.randomUUID();
      const steps = await c.steps(dir);
      for (const [i, step] of steps.entries()) {
        const { asked, answers } = await run(e, batchId, step);
        const what = `step ${i + 1} (${step.send.map((r) => r.typeId).join(", ")})`;
        equal(asked, step.expect === "asks", `${what}: ${step.expect}`);
        for (const a of answers) {
          const body = await a.json();
          if (step.decline) {
            equal(body.errorCode, "SENDER_NOT_CHOSEN", `${what}: ${JSON.stringify(body)}`);
            match(body.error, /earlier confirmation stands/);
          } else {
            equal(a.status, 200, `${what}: ${JSON.stringify(body)}`);
          }
        }
      }
      // Nothing was filed for what the last page asked: it was declined.
      ok(e.journal.list().every((r) => r.state === "filed"));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("[agent] items: a declaration read from the disk is bound to its bytes: a retry reading other bytes asks again, showing them", async () => {
  const e = await agentEnv();
  const dir = await Deno.makeTempDir({ prefix: "svc-items-bytes-" });
  try {
    const file = join(dir, "notice.xml");
    const original = sampleDeclarationFile("etz62", A).bytes;
    const changed = new TextEncoder().encode(
      `<etzemploy><eik>${A}</eik><contract><rowenum><egn>7501020018</egn></rowenum>` +
        `</contract></etzemploy>`,
    );
    await Deno.writeFile(file, original);
    const batchId = crypto.randomUUID();
    const notice = {
      typeId: "etz62",
      eik: A,
      body: { eik: A },
      headers: { "x-svc-file-path": file },
    };
    const step = async (expect: "asks" | "silent", decline = false) => {
      const { asked, answers } = await run(e, batchId, { send: [notice], expect, decline });
      equal(asked, expect === "asks");
      const body = await answers[0]!.json();
      equal(body.errorCode, decline ? "SENDER_NOT_CHOSEN" : undefined, JSON.stringify(body));
    };
    await step("asks");
    await step("silent");
    // Other bytes at the same path: the page opens again and shows the file it read.
    await Deno.writeFile(file, changed);
    const before = e.opened.length;
    const pending = e.call("etz62", await e.token({ typeId: "etz62", eik: A }), notice.body, {
      "x-svc-batch-id": batchId,
      ...notice.headers,
    });
    await waitFor(() => e.opened.length > before);
    const page = await (await e.agent.app.request(e.opened.at(-1)!)).text();
    match(page, /id="extension"/);
    ok(page.includes("notice.xml"), "the page names the file read");
    await e.decide("decline");
    equal((await (await pending).json()).errorCode, "SENDER_NOT_CHOSEN");
    equal(e.journal.list().length, 1, "the other bytes were not filed");
    // Confirmed, they are covered too; and so are the first bytes still.
    await step("asks");
    await step("silent");
    await Deno.writeFile(file, original);
    await step("silent");
    equal(e.journal.list().length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[agent] items: in live mode the batch's kept PIN is answered only for a covered item", async () => {
  const clock = new FakeClock(Date.UTC(2026, 9, 1));
  const opened: Dialog[] = [];
  const m = new ConfirmationManager({ clock, openPage: (_p, d) => opened.push(d) });
  const sender = { id: "p12", displayName: "Иван Петров", needsPin: true };
  const batchId = crypto.randomUUID();
  const live = (eik: string, period: string): ConfirmSubject => ({
    batchId,
    senderId: null,
    typeId: "vat",
    filing: "vat",
    summary: "VAT return",
    eiks: [eik],
    period,
    files: [],
    documents: null,
    params: paramsOf({ eik, period }),
    integratorId: "intg",
    integratorName: "Demo",
    origin: null,
    mode: "live",
  });
  const first = m.confirm(live(A, "2026-08"), [sender]);
  const d = opened[0]!;
  m.decide(d.id, d.nonce, "confirm", "p12", "1234", d.version);
  deepStrictEqual(await first, { senderId: "p12", pin: "1234" });
  // The same item again: the kept PIN, silently.
  deepStrictEqual(await m.confirm(live(A, "2026-08"), [sender]), { senderId: "p12", pin: "1234" });
  equal(opened.length, 1);
  // Another company, another period: no PIN without a page; declined, nothing is answered.
  for (const other of [live(B, "2026-08"), live(A, "2025-01")]) {
    let answered = false;
    const asked = m.confirm(other, [sender]).then(() => (answered = true));
    equal(opened.length, 2 + (other.eiks[0] === B ? 0 : 1));
    await new Promise((r) => setTimeout(r, 5));
    equal(answered, false, "the PIN waits for the page");
    const x = opened.at(-1)!;
    ok(!renderConfirmPage(x, clock.now()).includes('name="pin"'), "the batch's PIN, not asked");
    m.decide(x.id, x.nonce, "decline", null, null, x.version);
    await rejects(asked, (e: AppError) => e.code === "SENDER_NOT_CHOSEN");
  }
});
