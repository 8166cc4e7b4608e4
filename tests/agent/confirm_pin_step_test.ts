/**
 * The state machine's two steps (docs/confirmation.md § Two steps), on the manager itself: a page
 * whose request reads the disk after the consent takes no PIN; each request's check is recorded
 * for the page (failed: in words, with the code); a request that passed asks the PIN on a step
 * the open consent page moves to (no new tab); the batch keeps that PIN; declining or timing out
 * the step refuses the batch; a step with no consent page open opens a tab. In test mode (no PIN)
 * the page keeps one step and shows a failed check after the confirmation.
 */
import { deepStrictEqual, equal, ok, rejects } from "node:assert/strict";
import { AppError } from "../../src/contract/mod.ts";
import { FakeClock } from "../../src/clock.ts";
import { join } from "node:path";
import { agentEnv, waitFor } from "../_helpers/agent_env.ts";
import {
  ConfirmationManager,
  type ConfirmSubject,
  type Dialog,
  renderAfterPage,
  renderConfirmPage,
} from "../../src/agent/confirm/mod.ts";

const SENDER = { id: "p12", displayName: "Иван Петров", needsPin: true };

function world(timeoutMs = 60_000) {
  const clock = new FakeClock(Date.UTC(2026, 9, 1));
  const opened: Dialog[] = [];
  const timers: { fn: () => void; at: number }[] = [];
  const m = new ConfirmationManager({
    clock,
    openPage: (_p, d) => opened.push(d),
    timeoutMs,
    setTimer: (fn, ms) => {
      const t = { fn, at: clock.now() + ms };
      timers.push(t);
      return () => {
        t.fn = () => {};
      };
    },
  });
  const fire = () => {
    for (const t of timers) if (t.at <= clock.now()) t.fn();
  };
  return { m, clock, opened, fire };
}

/** A new batch's first request, consented on its page (sender p12, no PIN yet). */
async function consented(m: ConfirmationManager, opened: Dialog[]) {
  const batch = crypto.randomUUID();
  const s = subject(batch);
  const asked = m.confirm(s, [SENDER]);
  const d = opened[0]!;
  m.decide(d.id, d.nonce, "confirm", "p12", null, d.version);
  await asked;
  return { batch, s, d };
}

function subject(batchId: string | null, over: Partial<ConfirmSubject> = {}): ConfirmSubject {
  return {
    batchId,
    senderId: null,
    typeId: "dec1_6",
    filing: "dec1_6",
    summary: "Declarations 1 and 6",
    eiks: ["121212121"],
    period: "2026-09",
    files: [],
    documents: null,
    paths: [{ resolved: "/home/u/EMPL2021.TXT", sent: "/home/u/EMPL2021.TXT" }],
    integratorId: "intg",
    integratorName: "Demo",
    origin: null,
    mode: "live",
    checkAfterConsent: true,
    ...over,
  };
}

Deno.test("[agent] two steps: the consent takes no PIN; a failed check is shown; no PIN step", async () => {
  const { m, opened } = world();
  const s = subject(crypto.randomUUID());
  const asked = m.confirm(s, [SENDER]);
  const d = opened[0]!;
  const page = renderConfirmPage(d, 0);
  ok(!page.includes('name="pin"'), "no PIN field on the consent page");
  ok(page.includes('id="pin-later"'));
  // A PIN sent with the consent is not taken: the files are not checked yet.
  m.decide(d.id, d.nonce, "confirm", "p12", "1234", d.version);
  deepStrictEqual(await asked, { senderId: "p12", pin: null, pinLater: true });
  equal(d.after!.checking.size, 1);
  m.checked(s, new AppError("FILE_KIND_MISMATCH", "EMPL2021.TXT is a declaration 6"));
  equal(d.after!.checking.size, 0);
  equal(d.after!.failed.length, 1);
  const f = d.after!.failed[0]!;
  deepStrictEqual([f.code, f.typeId, f.detail], [
    "FILE_KIND_MISMATCH",
    "dec1_6",
    "EMPL2021.TXT is a declaration 6",
  ]);
  ok(f.bg.length > 0 && f.en.length > 0 && f.todo.bg.length > 0 && f.todo.en.length > 0);
  const after = renderAfterPage(d, undefined);
  ok(after.includes('data-error-code="FILE_KIND_MISMATCH"'));
  ok(after.includes("ПИН код не е поискан"));
  ok(!after.includes('name="pin"'));
  equal(opened.length, 1, "no PIN step opened");
});

Deno.test("[agent] two steps: files that passed ask the PIN on a step the consent page moves to; the batch keeps it", async () => {
  const { m, opened } = world();
  const { batch, s, d } = await consented(m, opened);
  const pin = m.pin(s, { files: ["/home/u/EMPL2021.TXT"], documents: 1 }, SENDER);
  equal(opened.length, 1, "the consent page moves on: no new tab");
  const stepId = d.after!.pinStep!;
  const step = m.get(stepId)!;
  deepStrictEqual([step.step, step.preselected, d.after!.passed], ["pin", "p12", 1]);
  const html = renderConfirmPage(step, 0);
  ok(html.includes('name="pin"') && html.includes('data-step="pin"'));
  // The PIN step needs the PIN.
  try {
    m.decide(stepId, step.nonce, "confirm", "p12", null, step.version);
    ok(false, "a PIN step without the PIN was accepted");
  } catch (e) {
    equal((e as AppError).code, "VALIDATION_FAILED");
  }
  m.decide(stepId, step.nonce, "confirm", "p12", "4711", step.version);
  equal(await pin, "4711");
  // The batch's next request inside it: silent, and its PIN is the batch's.
  const next = subject(batch);
  const c = await m.confirm(next, [SENDER]);
  deepStrictEqual(c, { senderId: "p12", pin: "4711" });
  equal(opened.length, 1);
});

Deno.test("[agent] two steps: declining or timing out the PIN step refuses the batch", async () => {
  for (const how of ["decline", "timeout"] as const) {
    const { m, opened, clock, fire } = world(1000);
    const { batch, s, d } = await consented(m, opened);
    const pin = m.pin(s, {}, SENDER);
    const step = m.get(d.after!.pinStep!)!;
    if (how === "decline") m.decide(step.id, step.nonce, "decline", null);
    else {
      clock.advance(1001);
      fire();
    }
    await rejects(pin, (e: AppError) => e.code === "SENDER_NOT_CHOSEN");
    await rejects(
      m.confirm(subject(batch), [SENDER]),
      (e: AppError) => e.code === "SENDER_NOT_CHOSEN",
    );
    equal(opened.length, 1, `${how}: the refused batch opens no page`);
  }
});

Deno.test("[agent] two steps: a request of the batch whose PIN is still unknown opens a PIN step in a tab", async () => {
  const { m, opened } = world();
  const { batch, s } = await consented(m, opened);
  m.checked(s, new AppError("FILE_EIK_MISMATCH", "another company's file"));
  // The same path again, now with the right file: inside the batch, silent until the PIN.
  const again = subject(batch);
  const c = await m.confirm(again, [SENDER]);
  deepStrictEqual(c, { senderId: "p12", pin: null, pinLater: true });
  const pin = m.pin(again, {}, SENDER);
  equal(opened.length, 2, "no consent page is open for it: the PIN step opens a tab");
  const step = opened[1]!;
  equal(step.step, "pin");
  m.decide(step.id, step.nonce, "confirm", "p12", "4711", step.version);
  equal(await pin, "4711");
});

Deno.test("[agent] one step is unchanged: inline input asks the PIN with the confirmation", async () => {
  const { m, opened } = world();
  const s = subject(crypto.randomUUID(), { paths: [], checkAfterConsent: false, files: ["x"] });
  const asked = m.confirm(s, [SENDER]);
  const d = opened[0]!;
  ok(renderConfirmPage(d, 0).includes('name="pin"'));
  try {
    m.decide(d.id, d.nonce, "confirm", "p12", null, d.version);
    ok(false, "a one-step page without the PIN was accepted");
  } catch (e) {
    equal((e as AppError).code, "VALIDATION_FAILED");
  }
  m.decide(d.id, d.nonce, "confirm", "p12", "4711", d.version);
  deepStrictEqual(await asked, { senderId: "p12", pin: "4711" });
  equal(d.after, undefined);
});

Deno.test("[agent] two steps: requests that joined the consent page share one PIN step; a failed one is listed", async () => {
  const { m, opened } = world();
  const batch = crypto.randomUUID();
  const [a, b, c] = [subject(batch), subject(batch), subject(batch)];
  const asked = [m.confirm(a, [SENDER]), m.confirm(b, [SENDER]), m.confirm(c, [SENDER])];
  const d = opened[0]!;
  equal(d.subjects.length, 3);
  m.decide(d.id, d.nonce, "confirm", "p12", null, d.version);
  await Promise.all(asked);
  equal(d.after!.checking.size, 3);
  m.checked(b, new AppError("FILE_PERIOD_MISMATCH", "the D1 is for 2026-08"));
  const pa = m.pin(a, {}, SENDER);
  const pc = m.pin(c, {}, SENDER);
  equal(opened.length, 1, "one PIN step, in the consent page's tab");
  const step = m.get(d.after!.pinStep!)!;
  equal(step.subjects.length, 2);
  deepStrictEqual([d.after!.checking.size, d.after!.failed.length, d.after!.passed], [0, 1, 2]);
  m.decide(step.id, step.nonce, "confirm", "p12", "4711", step.version);
  deepStrictEqual(await Promise.all([pa, pc]), ["4711", "4711"]);
  // The consent page, once the step was decided, shows the refused request and the outcome.
  const html = renderAfterPage(d, step);
  ok(html.includes('data-error-code="FILE_PERIOD_MISMATCH"'));
  ok(html.includes('data-decision="confirm"'));
});

Deno.test("[agent] test mode: one page as before, and a file that fails its check is shown on it", async () => {
  const e = await agentEnv();
  const dir = await Deno.makeTempDir({ prefix: "svc-check-page-" });
  try {
    const notes = join(dir, "notes.txt");
    await Deno.writeTextFile(notes, "not an NRA file\n");
    const pending = e.call("etz62", await e.token({ typeId: "etz62", eik: "121212121" }), {
      eik: "121212121",
    }, { "x-svc-file-path": notes, "x-svc-batch-id": crypto.randomUUID() });
    await waitFor(() => e.opened.length === 1);
    const page = await (await e.agent.app.request(e.opened[0]!)).text();
    ok(page.includes('data-step="one"'), "test mode needs no PIN: one step");
    const decided = await e.decide("confirm");
    equal(decided.status, 200);
    const r = await pending;
    equal((await r.json()).errorCode, "FILE_KIND_UNKNOWN");
    const shown = await (await e.agent.app.request(e.opened[0]!)).text();
    ok(shown.includes('data-error-code="FILE_KIND_UNKNOWN"'), shown);
    ok(shown.includes("Файлът не е във формат на НАП."));
    ok(!shown.includes("The file is not in an NRA format."), "one language at a time");
    const shownEn = await (await e.agent.app.request(e.opened[0]!, {
      headers: { cookie: "svc_lang=en" },
    })).text();
    ok(shownEn.includes("The file is not in an NRA format."));
    ok(!shown.includes("ПИН"), "test mode says nothing of a PIN");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[agent] a page asking again for a batch that has its PIN asks no PIN, before or after reading", async () => {
  const { m, opened } = world();
  const batch = crypto.randomUUID();
  const first = subject(batch, { paths: [], checkAfterConsent: false, files: ["x"] });
  const asked = m.confirm(first, [SENDER]);
  const d = opened[0]!;
  m.decide(d.id, d.nonce, "confirm", "p12", "4711", d.version);
  await asked;
  const more = subject(batch, {
    paths: [{ resolved: "/home/u/other/EMPL2021.TXT", sent: "/home/u/other/EMPL2021.TXT" }],
  });
  const again = m.confirm(more, [SENDER]);
  equal(opened.length, 2, "a path outside the batch asks again");
  const ext = opened[1]!;
  const html = renderConfirmPage(ext, 0);
  ok(html.includes('id="extension"'));
  ok(!html.includes('name="pin"') && !html.includes('id="pin-later"'), "no PIN asked");
  m.decide(ext.id, ext.nonce, "confirm", "p12", null, ext.version);
  deepStrictEqual(await again, { senderId: "p12", pin: "4711" });
});
