/**
 * The registry's rows cannot be written with two values swapped (docs/architecture.md § Adding an
 * operation): a report's flags are words of their own (`sender: "confirm" | "none"`,
 * `memo: "per_day" | "none"`), every field is named, and a name's `{ bg, en }` must be Bulgarian
 * (Cyrillic) and English (no Cyrillic). Each `@ts-expect-error` line below is checked by the type
 * checker when this file is checked (`deno test` and `deno check` fail if the line compiles), and
 * the tests assert what the rows that do compile become.
 */
import { deepStrictEqual, equal } from "node:assert/strict";
import { z } from "zod";
import {
  batch,
  local,
  noticeBatch,
  OPERATIONS,
  report,
  scan,
  submission,
} from "../../src/contract/operations.ts";

const Req = z.object({ eik: z.string() });
const Res = z.object({ status: z.literal("ok") });

/** A well-formed report row: it compiles, and its words become the entry's flags. */
const good = report({
  typeId: "a_report",
  family: "report",
  answer: "aReport",
  request: Req,
  result: Res,
  scope: "eik",
  sender: "confirm",
  memo: "none",
  summary: "A report",
  name: { bg: "Справка", en: "A report" },
  sample: { eik: "121212121" },
});

Deno.test("a report row's words become the entry's flags", () => {
  equal(good.needsSender, true);
  equal(good.dayStable, false);
  deepStrictEqual(good.name, { bg: "Справка", en: "A report" });
  const other = report({ ...ROW, sender: "none", memo: "per_day" });
  equal(other.needsSender, false);
  equal(other.dayStable, true);
});

const ROW = {
  typeId: "b_report",
  family: "report",
  answer: "bReport",
  request: Req,
  result: Res,
  scope: "none",
  sender: "confirm",
  memo: "per_day",
  summary: "Another report",
  name: { bg: "Друга справка", en: "Another report" },
  sample: {},
} as const;

Deno.test("rows with two values swapped do not compile", () => {
  // Each call is type-checked only; none of them runs.
  const rejected = () => [
    // The flags swapped: "per_day" is not a sender step, "confirm" is not a memo.
    // @ts-expect-error the sender step and the memo swapped
    report({ ...ROW, sender: "per_day", memo: "confirm" }),
    // The old positional booleans are no longer accepted.
    // @ts-expect-error needsSender is the word "confirm" or "none", not a boolean
    report({ ...ROW, sender: true }),
    // @ts-expect-error the Bulgarian and English names swapped
    report({ ...ROW, name: { bg: "Another report", en: "Друга справка" } }),
    // @ts-expect-error an English name with Cyrillic letters
    report({ ...ROW, name: { bg: "Друга справка", en: "Друга справка" } }),
    // @ts-expect-error a name that is not a literal cannot be checked
    report({ ...ROW, name: { bg: String(1), en: "Another report" } }),
    // @ts-expect-error a row as the old positional tuple
    report(["b_report", "report", "bReport", Req, Res, "none", true, true, "x", "б", "b", {}]),
    scan({
      typeId: "c_scan",
      fileKind: "d1",
      request: Req,
      result: Res,
      summary: "A scan",
      // @ts-expect-error a scan's names swapped
      name: { bg: "Find", en: "Търсене" },
    }),
    local({
      typeId: "c_local",
      // @ts-expect-error a local operation's names swapped
      name: { bg: "Check", en: "Проверка" },
      summary: "A check",
      request: Req,
      result: Res,
      run: { run: "vat_parse", folderField: "directory" },
    }),
    batch({
      typeId: "c_batch",
      kind: "vat",
      // @ts-expect-error a batch's names swapped
      name: { bg: "Returns", en: "Справки" },
      summary: "A batch",
      request: Req,
      grouping: { group: "vat_folders" },
    }),
    // @ts-expect-error a notice batch's names swapped
    noticeBatch({ form: "62", name: { bg: "Notices", en: "Уведомления" }, summary: "x" }),
    submission({
      kind: "vat",
      // @ts-expect-error a submission's local input and reader swapped
      localInput: "vat_folder",
      // @ts-expect-error (the other half of the swap)
      reader: "optional",
      request: Req,
      summary: "x",
      sample: {},
    }),
  ];
  equal(typeof rejected, "function");
});

Deno.test("every entry of the registry has the flags its family implies", () => {
  for (const op of OPERATIONS) {
    if (op.family === "submission" || op.family === "result" || op.family === "batch") {
      equal(op.needsSender, true, op.typeId);
    }
    if (op.family === "local") equal(op.needsSender, false, op.typeId);
  }
});
