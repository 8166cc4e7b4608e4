/**
 * docs/integrators.md § 5: a skipped batch item's `result` is null on the wire, so the generated
 * client types (clients/ts/agent.d.ts, openapi-typescript) must say `SubmissionResult | null`. A
 * small program that handles `result === null` without a cast is type-checked against the generated
 * file, and, as a control, against types generated from the old `allOf: [{$ref}, {nullable: true}]`
 * form, where it must fail.
 */
import { equal, ok } from "node:assert/strict";
import { buildAgentOpenApi, nullableRefsFor30 } from "../../src/contract/openapi/mod.ts";
import { AGENT_TYPES_FILE, renderAgentTypes } from "../../scripts/gen_client.ts";
import { openApiValidator } from "../_helpers/openapi_validate.ts";

const program = (typesUrl: string) =>
  `import type { components } from "${typesUrl}";
type BatchItem = components["schemas"]["BatchItem"];
type Assert<T extends true> = T;
/** Fails to compile when \`result\` cannot be null. */
export type ResultIsNullable = Assert<null extends BatchItem["result"] ? true : false>;
/** A skipped item has no result: handled without a cast. */
export function documentIdOf(item: BatchItem): string | null {
  if (item.result === null) return null;
  return item.result.documentId;
}
`;

async function check(dir: string, typesUrl: string): Promise<{ ok: boolean; text: string }> {
  const file = `${dir}/use_${crypto.randomUUID().slice(0, 8)}.ts`;
  await Deno.writeTextFile(file, program(typesUrl));
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--no-config", "--quiet", file],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = (b: Uint8Array) => new TextDecoder().decode(b);
  return { ok: out.success, text: dec(out.stdout) + dec(out.stderr) };
}

Deno.test("clients/ts/agent.d.ts types a batch item's result as SubmissionResult | null", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-nullable-" });
  try {
    const now = await check(dir, AGENT_TYPES_FILE.href);
    ok(now.ok, `deno check against clients/ts/agent.d.ts failed:\n${now.text}`);

    // Control: the form zod-to-openapi writes (nullable without a sibling type) is typed as never
    // null by openapi-typescript, and the program above must then fail to compile.
    const doc = structuredClone(buildAgentOpenApi("0.0.0-test"));
    // deno-lint-ignore no-explicit-any
    (doc.components as any).schemas.BatchItem.properties.result = {
      allOf: [{ $ref: "#/components/schemas/SubmissionResult" }, { nullable: true }],
    };
    await Deno.writeTextFile(`${dir}/old.d.ts`, await renderAgentTypes(doc));
    const old = await check(dir, new URL(`file://${dir}/old.d.ts`).href);
    ok(!old.ok, "the control (non-nullable result) type-checked: the test proves nothing");
    ok(old.text.includes("TS2344"), old.text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("no schema of the agent's document has nullable without a sibling type", () => {
  const bad: string[] = [];
  const walk = (v: unknown, at: string) => {
    if (v === null || typeof v !== "object") return;
    const o = v as Record<string, unknown>;
    if (o.nullable === true && !("type" in o)) bad.push(at);
    for (const [k, x] of Object.entries(o)) walk(x, `${at}/${k}`);
  };
  walk(buildAgentOpenApi("0.0.0-test"), "#");
  equal(bad.join("\n"), "");
});

Deno.test("a skipped batch item (result null) and a submitted one both validate; details admit null", () => {
  const validate = openApiValidator(buildAgentOpenApi("0.0.0-test"));
  const item = {
    eik: "121212121",
    files: [],
    outcome: "skipped",
    result: null,
    errorCode: "NO_DATA",
    error: null,
  };
  equal(validate("BatchItem", item), null);
  const result = {
    success: true,
    documentId: "d-1",
    incomeNumber: "123",
    submissionDate: "2025-01-02T03:04:05Z",
    errorMessage: null,
    nativeErrors: null,
  };
  equal(validate("BatchItem", { ...item, outcome: "submitted", errorCode: null, result }), null);
  ok(validate("BatchItem", { ...item, result: "x" }) !== null, "a string result must not validate");
  ok(validate("BatchItem", { ...item, result: {} }) !== null, "an empty result must not validate");
  equal(
    validate("AgentFailure", {
      error: "x",
      errorCode: "VALIDATION_FAILED",
      errorKind: "PARAMETER",
      details: { field: "eik", value: null },
    }),
    null,
  );
  equal(
    JSON.stringify(nullableRefsFor30({ allOf: [{ $ref: "#/a" }, { nullable: true }] })),
    JSON.stringify({ oneOf: [{ $ref: "#/a" }, { type: "object", nullable: true, enum: [null] }] }),
  );
});
