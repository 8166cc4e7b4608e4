/**
 * `journal list`, `journal export` and `journal resolve` on a real journal file (docs/journal.md §
 * Commands): one vocabulary of states, a header row with incomeNumber, errorCode filled for
 * refusals, and a person's verdict on an unknown filing recorded with who and when.
 */
import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { FakeClock } from "../../src/clock.ts";
import { Journal, type NewFiling } from "../../src/agent/filing/mod.ts";
import { runInProcess } from "./_run.ts";

const row = (id: string, eik: string): NewFiling => ({
  id,
  idempotencyKey: `k-${id}`,
  typeId: "dec1_6",
  kind: "dec1_6",
  eik,
  period: "2026-09",
  batchId: null,
  filesSha256: "ab".repeat(32),
  files: [{ name: "EMPL2021.TXT", kind: "d1", numRecords: 2 }],
  senderId: "ivan",
  mode: "live",
  integrator: "default",
  request: { eik, year: 2026, month: 9 },
});

/** A journal with one filing in each state a filing can end in. */
async function journalDir(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "svc-journal-cli-" });
  const j = new Journal(join(dir, "journal.sqlite"));
  const t = (s: number) => new Date(Date.UTC(2026, 9, 1, 8, 0, s));
  for (const [i, id] of ["filed", "refused", "unknown", "notfiled"].entries()) {
    j.begin(row(id, `20345678${i}`), t(i));
    if (id !== "notfiled") j.markSent(id, t(i));
  }
  j.answer("filed", {
    success: true,
    documentId: "1001",
    incomeNumber: "30E000001001",
    submissionDate: t(0).toISOString(),
    errorMessage: null,
    nativeErrors: [],
  }, t(0));
  j.answer("refused", {
    success: false,
    documentId: null,
    incomeNumber: null,
    submissionDate: null,
    errorMessage: "API_FILE_FORMAT_ERROR: Формат",
    nativeErrors: ["API_FILE_FORMAT_ERROR: Формат"],
  }, t(1));
  j.unknownOutcome("unknown", "PORTAL_TIMEOUT", "The NRA portal did not answer", t(2));
  j.notFiled("notfiled", "PIN_INCORRECT", "Wrong PIN", t(3));
  j.close();
  return dir;
}

Deno.test("[cli] journal list prints a header row with incomeNumber and the states' names", async () => {
  const dir = await journalDir();
  try {
    const r = await runInProcess(["journal", "list", "--data-dir", dir]);
    equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    deepStrictEqual(lines[0]!.split(/\s{2,}/), [
      "id",
      "createdAt",
      "typeId",
      "eik",
      "period",
      "state",
      "documentId",
      "incomeNumber",
      "errorCode",
    ]);
    equal(lines.length, 5);
    match(r.stdout, /^filed\s.*\sfiled\s+1001\s+30E000001001\s+-$/m);
    match(r.stdout, /^refused\s.*\srefused\s+-\s+-\s+PORTAL_REJECTED$/m);
    match(r.stdout, /^unknown\s.*\sunknown\s+-\s+-\s+PORTAL_TIMEOUT$/m);
    match(r.stdout, /^notfiled\s.*\snot_filed\s+-\s+-\s+PIN_INCORRECT$/m);
    const only = await runInProcess(["journal", "list", "--state", "unknown", "--data-dir", dir]);
    equal(only.stdout.trimEnd().split("\n").length, 2);
    const csv = await runInProcess(["journal", "export", "--format", "csv", "--data-dir", dir]);
    const refused = csv.stdout.split("\r\n").find((l) => l.startsWith("refused,"))!;
    ok(refused.includes(",refused,false,,,,PORTAL_REJECTED,API_FILE_FORMAT_ERROR: Формат,"));
    const json = await runInProcess(["journal", "export", "--data-dir", dir]);
    deepStrictEqual(
      json.json().map((x: { state: string }) => x.state).sort(),
      ["filed", "not_filed", "refused", "unknown"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[cli] journal resolve marks an unknown filing filed or not filed, with who and when, and refuses any other", async () => {
  const dir = await journalDir();
  const clock = new FakeClock(Date.UTC(2026, 9, 2, 9, 30));
  const env = { USER: "accountant" };
  try {
    // Only an unknown filing can be resolved: exit 1 and one sentence.
    for (const id of ["filed", "refused", "notfiled"]) {
      const r = await runInProcess(["journal", "resolve", id, "--not-filed", "--data-dir", dir], {
        env,
      });
      equal(r.code, 1, r.stdout);
      match(r.stderr, new RegExp(`^Filing "${id}" is \\w+, not unknown: .*\\.\\n$`));
    }
    const none = await runInProcess(["journal", "resolve", "nope", "--filed", "--data-dir", dir]);
    equal(none.code, 1);
    equal(none.stderr, 'No filing "nope" in the journal.\n');
    // Neither or both verdicts: a wrong command line.
    for (
      const argv of [
        ["journal", "resolve", "unknown", "--data-dir", dir],
        ["journal", "resolve", "unknown", "--filed", "--not-filed", "--data-dir", dir],
      ]
    ) equal((await runInProcess(argv)).code, 2);
    const r = await runInProcess([
      "journal",
      "resolve",
      "unknown",
      "--filed",
      "--document-id",
      "1002",
      "--income-number",
      "30E000001002",
      "--data-dir",
      dir,
    ], { env, clock });
    equal(r.code, 0, r.stderr);
    equal(r.stdout, "Filing unknown marked filed by accountant at 2026-10-02T09:30:00.000Z.\n");
    const j = new Journal(join(dir, "journal.sqlite"));
    const done = j.get("unknown")!;
    j.close();
    equal(done.state, "filed");
    equal(done.resolution, "filed");
    equal(done.resolvedBy, "accountant");
    equal(done.documentId, "1002");
    equal(done.result?.incomeNumber, "30E000001002");
    equal(done.errorCode, "PORTAL_TIMEOUT", "why it was unknown stays on record");
    // Once resolved it is no longer unknown.
    const twice = await runInProcess(
      ["journal", "resolve", "unknown", "--not-filed", "--data-dir", dir],
      { env },
    );
    equal(twice.code, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
