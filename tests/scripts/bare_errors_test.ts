/**
 * The error rule (docs/architecture.md § A request's path, "Errors"): a bare `throw new Error`
 * in src/ marks a programming error only, with a comment beside it saying so; a failure the
 * person reads is a `UserError` (printed as is) and one the API answers an `AppError`.
 */
import { equal, ok } from "node:assert/strict";
import { join, relative } from "node:path";
import { failureText } from "../../src/cli/output.ts";
import { UserError } from "../../src/user_error.ts";

const ROOT = join(import.meta.dirname!, "..", "..");

async function* tsFiles(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) yield* tsFiles(path);
    else if (e.name.endsWith(".ts")) yield path;
  }
}

/** Whether `at` is inside a template string (browser script sent as text is not our throw). */
function inTemplate(text: string, at: number): boolean {
  return (text.slice(0, at).match(/(?<!\\)`/g)?.length ?? 0) % 2 === 1;
}

Deno.test("every bare throw new Error in src/ is a programming error, said in a comment", async () => {
  const bare: string[] = [];
  let checked = 0;
  for await (const file of tsFiles(join(ROOT, "src"))) {
    const rel = relative(ROOT, file).replaceAll("\\", "/");
    const text = await Deno.readTextFile(file);
    for (const m of text.matchAll(/throw new Error\(/g)) {
      if (inTemplate(text, m.index)) continue;
      checked++;
      const line = text.slice(0, m.index).split("\n").length;
      const before = text.split("\n").slice(Math.max(0, line - 4), line).join("\n");
      if (!/programming error/i.test(before)) bare.push(`${rel}:${line}`);
    }
  }
  ok(checked > 0, "some programming errors are expected (field tables, registry lookups)");
  equal(bare.join("\n"), "", "throw new Error without a programming-error comment");
});

Deno.test("a UserError prints as is: its message, no error code (exit 1 as any failure)", () => {
  const e = new UserError(`No filing "x" in the journal.`);
  equal(failureText(e), `No filing "x" in the journal.`);
  equal(
    failureText(new UserError("Invalid configuration:\n  SVC_AGENT_PORT: bad")),
    "Invalid configuration: SVC_AGENT_PORT: bad",
  );
  ok(e instanceof Error);
});
