/**
 * Regenerates the documentation tables that come from the contract: the operation table in
 * README.md (between `<!-- operations:start -->` and `<!-- operations:end -->`) and
 * docs/errors.md. `--check` exits 1 when a file is out of date. `deno task gen` runs it with the
 * other generators (scripts/gen.ts).
 *
 *   deno run -A scripts/gen_docs.ts [--check]
 */
import { ERROR_CATALOG, type ErrorSpec } from "../src/contract/error_catalog.ts";
import { OPERATIONS } from "../src/contract/operations.ts";
import { buildAgentOpenApi } from "../src/contract/openapi/mod.ts";
import { VERSION } from "../src/version.ts";

const root = new URL("../", import.meta.url);

/** The README operation table (markdown). */
export function operationsTable(): string {
  // deno-lint-ignore no-explicit-any
  const paths = buildAgentOpenApi(VERSION).paths as any;
  const ref = (s: { $ref?: string } | undefined) => s?.$ref?.split("/").at(-1);
  const rows = OPERATIONS.map((o) => {
    const post = paths[`/api/v1/operations/${o.typeId}`].post;
    const req = ref(post.requestBody.content["application/json"].schema);
    const res = ref(post.responses["200"].content["application/json"].schema);
    return `| \`${o.typeId}\` | ${o.family} | ${req ?? ""} | ${
      res ?? ""
    } | ${o.scope} | ${o.localInput} | ${
      o.needsSender ? "yes" : o.family === "local" ? "disk reads" : "no"
    } | ${o.summary} |`;
  });
  return [
    "| typeId | family | request | result | token scope | local input | sender confirmation | what it does |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

/** docs/errors.md. */
export function errorsDoc(): string {
  const rows = Object.entries(ERROR_CATALOG).map(([code, s]: [string, ErrorSpec]) =>
    `| \`${code}\` | ${s.kind} | ${s.status}${
      s.tokenStatus === undefined ? "" : ` (token service: ${s.tokenStatus})`
    } | ${s.description} |`
  );
  return `# Error catalog

Generated from \`src/contract/error_catalog.ts\` by \`deno run -A scripts/gen_docs.ts\`; do not edit by hand.
Client code relies on \`errorCode\`, never on the \`error\` text. The same list is published as
\`components.schemas.ErrorCode\` (and \`ErrorKind\`) in the OpenAPI document, with kind and status in
\`x-error-catalog\`.

## Wire format

- **Agent**: \`502 {error, errorCode, errorKind}\` for every error other than an empty result; 401 for
  every token failure (another typeId, expired, replayed, bad signature, EIK not covered); 426
  \`{agentVersion, error, requiredVersion}\` when the token requires a newer agent; 404/413/421/429/403
  for transport-level refusals as listed below. Never a 500.
- **Token service**: 400, 401, 402, 403 (with \`rejectedEiks\`) as interface-spec.md says; the body is
  \`{error, errorCode, errorKind, requestId}\`. Body validation errors there are 400: the HTTP column
  names the token service's status where it differs from the agent's.

## NO_DATA

\`NO_DATA\` is never an error body. A successful result (\`status: "ok"\`) whose list is empty —
\`items\` for reports, monthly files and folder-wide filings, \`files\` for portal files and local
scans — is answered with HTTP 200 and \`metadata: {"errorCode": "NO_DATA"}\`. Submission results,
result payloads and \`VatFilesParseResult\` (always three rows) never carry it. A result with
\`status: "error"\` is not NO_DATA, and an agent failure (token, session, portal) is a 401/502, so a
broken session never looks like "no data".

## Codes

| errorCode | errorKind | HTTP | meaning |
|---|---|---|---|
${rows.join("\n")}
`;
}

async function update(
  path: string,
  make: (old: string) => string,
  check: boolean,
): Promise<boolean> {
  const url = new URL(path, root);
  const old = await Deno.readTextFile(url).catch(() => "");
  const next = make(old);
  // deno fmt pads table cells and reflows text afterwards: compare the content only.
  const norm = (t: string) =>
    t.replace(/[ \t]*\|[ \t]*/g, "|").replace(/-{3,}/g, "---").replace(/\s+/g, " ");
  if (norm(old) === norm(next)) return true;
  if (check) {
    console.error(`${path} is out of date: run deno task gen`);
    return false;
  }
  await Deno.writeTextFile(url, next);
  await new Deno.Command(Deno.execPath(), { args: ["fmt", url.pathname] }).output();
  console.log(`wrote ${path}`);
  return true;
}

/**
 * Write (or, with `check`, compare) README.md's operation table and docs/errors.md.
 * @param check only compare; print what is stale
 * @returns whether both were up to date (or have been written)
 */
export async function genDocs(check: boolean): Promise<boolean> {
  const okReadme = await update("README.md", (old) =>
    old.replace(
      /<!-- operations:start -->[\s\S]*<!-- operations:end -->/,
      `<!-- operations:start -->\n${operationsTable()}\n<!-- operations:end -->`,
    ), check);
  const okErrors = await update("docs/errors.md", () => errorsDoc(), check);
  return okReadme && okErrors;
}

if (import.meta.main) {
  if (!await genDocs(Deno.args.includes("--check"))) Deno.exit(1);
}
