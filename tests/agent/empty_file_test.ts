/**
 * An empty declaration file (0 bytes, or only blank lines) is refused as FILE_PARSE_ERROR naming
 * the file, before any confirmation page for inline input and before anything is signed or
 * journaled for a path on the disk (docs/local-input.md). A D1 or D6 found by its name
 * (EMPL2021.TXT, NRA62007.TXT) parses to no records: it must not reach the EIK and period checks
 * with no EIK, nor the filing.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { agentEnv, waitFor } from "../_helpers/agent_env.ts";
import { fixtureBytes } from "../formats/_helpers.ts";

/** The EIK and period of the D1 / D6 / DEKLAR fixtures (fixtures/formats/). */
const EIK = "203456783";

const dir = (files: Record<string, Uint8Array>) => ({
  name: "upload",
  files: Object.entries(files).map(([path, b]) => ({ path, contentBase64: b.toBase64() })),
});
const EMPTY = new Uint8Array(0);
/** Line breaks only (and a DOS end-of-file mark): blank lines the parser skips. */
const BLANK = new TextEncoder().encode("\r\n\r\n\n\x1a");

/** The error's listed files (FILE_PARSE_ERROR: `details.errors[].file`). */
function erredFiles(json: { details?: { errors?: { file?: string }[] } }): string[] {
  return (json.details?.errors ?? []).map((e) => String(e.file));
}

Deno.test("[agent] an empty D1 or D6 is refused as FILE_PARSE_ERROR naming the file, before any page", async () => {
  const e = await agentEnv();
  const d1 = await fixtureBytes("d1/EMPL2021.TXT");
  const d6 = await fixtureBytes("d6/NRA62007.TXT");
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["a 0-byte D1 alone", { "EMPL2021.TXT": EMPTY }, ["EMPL2021.TXT"]],
    ["a D1 of blank lines alone", { "EMPL2021.TXT": BLANK }, ["EMPL2021.TXT"]],
    ["a 0-byte D6 beside a good D1", { "EMPL2021.TXT": d1, "NRA62007.TXT": EMPTY }, [
      "NRA62007.TXT",
    ]],
    ["both empty", { "EMPL2021.TXT": BLANK, "NRA62007.TXT": EMPTY }, [
      "EMPL2021.TXT",
      "NRA62007.TXT",
    ]],
    ["a good D6 beside a 0-byte D1", { "EMPL2021.TXT": EMPTY, "NRA62007.TXT": d6 }, [
      "EMPL2021.TXT",
    ]],
  ];
  for (const [what, files, named] of cases) {
    for (const withEik of [true, false]) {
      const body = {
        year: 2026,
        month: 8,
        ...(withEik ? { eik: EIK } : {}),
        _inlineDir: dir(files as Record<string, Uint8Array>),
      };
      const r = await e.call("dec1_6", await e.token({ typeId: "dec1_6", eik: EIK }), body, {
        "x-svc-batch-id": crypto.randomUUID(),
      });
      const json = await r.json();
      const label = `${what} (eik ${withEik ? "given" : "left out"}): ${JSON.stringify(json)}`;
      equal(r.status, 502, label);
      deepStrictEqual([json.errorCode, json.errorKind], ["FILE_PARSE_ERROR", "PARAMETER"], label);
      deepStrictEqual(erredFiles(json).map((f) => f.split("/").at(-1)), named, label);
      ok(named.every((n) => json.error.includes(n)), label);
      ok(json.error.includes("empty"), label);
    }
  }
  // Lines of spaces are no line breaks: the content fits no NRA layout, whatever the name says.
  const spaces = await e.call("dec1_6", await e.token({ typeId: "dec1_6", eik: EIK }), {
    year: 2026,
    month: 8,
    _inlineDir: dir({ "EMPL2021.TXT": new TextEncoder().encode("   \r\n \r\n") }),
  }, { "x-svc-batch-id": crypto.randomUUID() });
  equal((await spaces.json()).errorCode, "FILE_KIND_UNKNOWN");
  equal(e.opened.length, 0, "no confirmation page was opened");
  equal(e.journal.list().length, 0, "nothing was journaled");
});

Deno.test("[agent] an empty D1 given as dec1FilePath is refused after consent, before anything is filed", async () => {
  const e = await agentEnv();
  const d = await Deno.makeTempDir({ prefix: "svc-empty-d1-" });
  try {
    const path = join(d, "EMPL2021.TXT");
    await Deno.writeFile(path, EMPTY);
    const pending = e.call(
      "dec1_6",
      await e.token({ typeId: "dec1_6", eik: EIK }),
      { year: 2026, month: 8, eik: EIK, dec1FilePath: path },
      { "x-svc-batch-id": crypto.randomUUID() },
    );
    await waitFor(() => e.opened.length === 1);
    equal((await e.decide("confirm")).status, 200);
    const r = await pending;
    const json = await r.json();
    equal(r.status, 502, JSON.stringify(json));
    equal(json.errorCode, "FILE_PARSE_ERROR", JSON.stringify(json));
    deepStrictEqual(erredFiles(json), [path]);
    equal(e.journal.list().length, 0, "nothing was journaled");
  } finally {
    await Deno.remove(d, { recursive: true });
  }
});

Deno.test("[agent] the VAT folder: an empty DEKLAR.TXT is FILE_PARSE_ERROR naming it", async () => {
  const e = await agentEnv();
  const files = {
    "DEKLAR.TXT": await fixtureBytes("deklar/DEKLAR.TXT"),
    "POKUPKI.TXT": await fixtureBytes("pokupki/POKUPKI.TXT"),
    "PRODAGBI.TXT": await fixtureBytes("prodagbi/PRODAGBI.TXT"),
  };
  for (const deklar of [EMPTY, BLANK]) {
    const r = await e.call("vat", await e.token({ typeId: "vat", eik: EIK }), {
      year: 2026,
      month: 8,
      eik: EIK,
      _inlineDir: dir({ ...files, "DEKLAR.TXT": deklar }),
    }, { "x-svc-batch-id": crypto.randomUUID() });
    const json = await r.json();
    equal(json.errorCode, "FILE_PARSE_ERROR", JSON.stringify(json));
    deepStrictEqual(erredFiles(json).map((f) => f.split("/").at(-1)), ["DEKLAR.TXT"]);
  }
  equal(e.opened.length, 0, "no confirmation page was opened");
  equal(e.journal.list().length, 0, "nothing was journaled");
});
