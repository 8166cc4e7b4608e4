/**
 * The cost of the item check of a confirmed batch (docs/confirmation.md § What a confirmed batch
 * covers): a confirmed request — the retry of an inline VAT return (DEKLAR, POKUPKI, PRODAGBI,
 * VIES from fixtures/) in a batch whose pages showed it and `--items` reports — sent through the
 * whole in-process agent (token check, body, the files read and checked, their SHA-256, the
 * confirmation, the journal's replay of the first answer), measured in the same run:
 *
 * - **with** the check: the manager looks the batch up and finds the request among its items;
 * - **without**: the manager's `confirm` answers the batch's sender at once (no lookup, no item
 *   check), so the difference bounds the check from above;
 * - the check alone: the request's parameters in canonical form (`paramsOf`) and `covers` on the
 *   batch's scope, per call.
 *
 * The two request variants alternate (ABBA), median of `--reps` each.
 *
 *   deno run -A scripts/bench_confirm_scope.ts [--items 100] [--reps 300]
 *
 * Prints a markdown table; the last line is `confirm scope: added X.XXX ms, ratio X.XXX`.
 * @module
 */
import { parseArgs } from "node:util";
import { agentEnv } from "../tests/_helpers/agent_env.ts";
import { fixtureBytes } from "../tests/formats/_helpers.ts";
import { covers, paramsOf, scopeOf } from "../src/agent/confirm/mod.ts";
import type { Confirmed, ConfirmSubject } from "../src/agent/confirm/mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    items: { type: "string", default: "100" },
    reps: { type: "string", default: "300" },
  },
});
const ITEMS = Number(values.items);
const REPS = Number(values.reps);
const EIK = "203456783"; // the VAT fixtures' company (DEKLAR.TXT 00-01), period 2026-08
const READ_EIK = "121212121";

const e = await agentEnv();
const batchId = crypto.randomUUID();
const files = {
  "DEKLAR.TXT": await fixtureBytes("deklar/DEKLAR.TXT"),
  "POKUPKI.TXT": await fixtureBytes("pokupki/POKUPKI.TXT"),
  "PRODAGBI.TXT": await fixtureBytes("prodagbi/PRODAGBI.TXT"),
  "VIES.TXT": await fixtureBytes("vies/VIES.TXT"),
};
const vatBody = {
  eik: EIK,
  year: 2026,
  month: 8,
  _inlineDir: {
    name: "vat",
    files: Object.entries(files).map(([path, b]) => ({ path, contentBase64: b.toBase64() })),
  },
};
const send = async (typeId: string, eik: string, body: unknown) =>
  await e.call(typeId, await e.token({ typeId, eik }), body, { "x-svc-batch-id": batchId });

// One first page: the VAT return and `ITEMS` reports (each its own item), confirmed once.
const first = [
  send("vat", EIK, vatBody),
  ...Array.from(
    { length: ITEMS },
    (_, i) => send("debt_payments", READ_EIK, { eik: READ_EIK, year: 2025 - i }),
  ),
];
// Until every request joined the page (it counts them).
for (const end = Date.now() + 60_000;;) {
  if (Date.now() > end) throw new Error("the first page did not list every request");
  if (e.opened.length === 1) {
    const r = await e.agent.app.request(`${e.opened[0]!}/state`);
    if ((await r.json()).requests === ITEMS + 1) break;
  }
  await new Promise((r) => setTimeout(r, 5));
}
if ((await e.decide("confirm")).status !== 200) throw new Error("the page was not confirmed");
for (const r of await Promise.all(first)) {
  if (r.status !== 200) throw new Error(`a first request failed: ${await r.text()}`);
}

// The variant without the check: the manager answers the batch's sender at once.
const m = e.agent.confirmations;
const checked = m.confirm.bind(m);
let confirmed: Confirmed | null = null;
const direct = () => Promise.resolve(confirmed!);

// The first retry goes through the real manager and keeps what it asked and answered.
const subjectSeen: ConfirmSubject[] = [];
const capture: typeof m.confirm = (s, senders, o) => {
  subjectSeen.push(s);
  return checked(s, senders, o).then((c) => (confirmed = c));
};

async function timed(variant: "check" | "direct" | "capture"): Promise<number> {
  const token = await e.token({ typeId: "vat", eik: EIK });
  m.confirm = variant === "check" ? checked : variant === "direct" ? direct : capture;
  const t0 = performance.now();
  const r = await e.call("vat", token, vatBody, { "x-svc-batch-id": batchId });
  const ms = performance.now() - t0;
  if (r.status !== 200) throw new Error(`the retry failed: ${r.status} ${await r.text()}`);
  await r.body?.cancel();
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

await timed("capture");
if (e.opened.length !== 1) throw new Error("the retry asked again: it is not covered");
const subject = subjectSeen[0]!;

// Warm-up, then the two variants alternating.
for (let i = 0; i < 30; i++) await timed(i % 2 === 0 ? "check" : "direct");
const withCheck: number[] = [];
const without: number[] = [];
for (let i = 0; i < REPS; i++) {
  // ABBA: neither variant always runs first (after the other's garbage).
  if (i % 2 === 0) {
    withCheck.push(await timed("check"));
    without.push(await timed("direct"));
  } else {
    without.push(await timed("direct"));
    withCheck.push(await timed("check"));
  }
}
if (e.opened.length !== 1) throw new Error("a retry asked again");

// The check alone: the parameters' canonical form and the look-up among the batch's items (the
// manager keeps its batches private: the same scope is rebuilt from the requests it saw).
const batchScope = scopeOf([subject, ...Array.from({ length: ITEMS }, (_, i) => readSubject(i))]);
function readSubject(i: number): ConfirmSubject {
  return {
    ...subject,
    typeId: "debt_payments",
    filing: null,
    eiks: [READ_EIK],
    period: String(2025 - i),
    files: [],
    digests: [],
    params: paramsOf({ eik: READ_EIK, year: 2025 - i }),
  };
}
const { _inlineDir: _d, ...plain } = vatBody;
const N = 100_000;
const t0 = performance.now();
let hits = 0;
for (let i = 0; i < N; i++) {
  const s = { ...subject, params: paramsOf(plain) };
  if (covers(batchScope, s)) hits++;
}
const checkMs = (performance.now() - t0) / N;
if (hits !== N) throw new Error("the rebuilt scope does not cover the request");

const a = median(withCheck);
const b = median(without);
console.log(
  `confirmed retry of an inline VAT return (4 files), batch of ${ITEMS + 1} items, ` +
    `median of ${REPS} each, alternating (ABBA)\n`,
);
console.log("| variant | ms per request |\n| --- | ---: |");
console.log(`| without the item check (baseline) | ${b.toFixed(3)} |`);
console.log(`| with the item check | ${a.toFixed(3)} |`);
console.log(`| the check alone (paramsOf + covers) | ${checkMs.toFixed(4)} |`);
console.log(
  `\nconfirm scope: added ${(a - b).toFixed(3)} ms, ratio ${(a / b).toFixed(3)}`,
);
Deno.exit(0);
