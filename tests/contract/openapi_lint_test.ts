/**
 * docs/integrators.md § 8: the OpenAPI documents — the agent's, the token service's public
 * API and its admin API — pass a well-kept linter's recommended ruleset — Redocly CLI (`npx -y @redocly/cli@<pinned> lint`, configured by redocly.yaml at the
 * repository's root). Each generated document is written to a temporary folder and linted; any
 * error or warning fails. Skipped with a message when npx is missing outside CI (in CI it fails).
 */
import { deepStrictEqual } from "node:assert/strict";
import { buildAgentOpenApi, buildTokenOpenApi } from "../../src/contract/openapi/mod.ts";
import { buildAdminOpenApi } from "../../src/token/admin/mod.ts";
import { skipUnless } from "../_helpers/require_tool.ts";

/** The pinned linter (npm). */
export const REDOCLY_CLI = "@redocly/cli@2.77.0";

const CONFIG = new URL("../../redocly.yaml", import.meta.url).pathname;

interface LintTotals {
  errors: number;
  warnings: number;
  ignored: number;
}

async function lint(file: string): Promise<{ totals: LintTotals; report: string }> {
  const out = await new Deno.Command("npx", {
    args: ["-y", REDOCLY_CLI, "lint", "--config", CONFIG, "--format=json", file],
    env: {
      NO_COLOR: "1",
      REDOCLY_TELEMETRY: "off",
      REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
      NO_UPDATE_NOTIFIER: "1",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const err = new TextDecoder().decode(out.stderr);
  let parsed: { totals: LintTotals; problems: unknown[] };
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`redocly lint ${file} gave no JSON (exit ${out.code}):\n${text}\n${err}`);
  }
  return { totals: parsed.totals, report: JSON.stringify(parsed.problems, null, 2) };
}

/** What redocly.yaml's `operation-4xx-response: off` leaves to this test: every operation that
 * takes a body, a parameter or a credential declares a 4XX answer. */
function operationsWithInputWithout4xx(doc: Record<string, unknown>): string[] {
  const bad: string[] = [];
  const globalSecurity = (doc.security as unknown[] | undefined) ?? [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    for (const [method, op] of Object.entries(item as Record<string, Record<string, unknown>>)) {
      const security = (op.security as unknown[] | undefined) ?? globalSecurity;
      const input = op.requestBody !== undefined ||
        ((op.parameters as unknown[] | undefined) ?? []).length > 0 || security.length > 0 ||
        path.includes("{");
      const has4xx = Object.keys(op.responses as object).some((s) => /^4(\d\d|XX)$/.test(s));
      if (input && !has4xx) bad.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return bad;
}

Deno.test({
  name:
    "Redocly's recommended rules pass on the agent's and the token service's (public and admin) OpenAPI documents",
  ignore: skipUnless(["npx"], "redocly lint of the OpenAPI documents"),
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "svc-openapi-lint-" });
    try {
      const docs: Record<string, Record<string, unknown>> = {
        "agent.json": buildAgentOpenApi("0.0.0-test"),
        "token.json": buildTokenOpenApi("0.0.0-test"),
        "admin.json": buildAdminOpenApi("0.0.0-test"),
      };
      for (const [name, doc] of Object.entries(docs)) {
        await Deno.writeTextFile(`${dir}/${name}`, JSON.stringify(doc, null, 2));
      }
      for (const [name, doc] of Object.entries(docs)) {
        deepStrictEqual(operationsWithInputWithout4xx(doc), [], `${name}: declare a 4XX`);
      }
      for (const name of Object.keys(docs)) {
        const { totals, report } = await lint(`${dir}/${name}`);
        deepStrictEqual(
          { file: name, errors: totals.errors, warnings: totals.warnings },
          { file: name, errors: 0, warnings: 0 },
          report,
        );
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
