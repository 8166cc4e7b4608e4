/**
 * Regenerates the documentation that comes from the contract: docs/errors.md, and the lists of
 * operations in README.md and docs/*.md (the regions of scripts/gen_doc_lists.ts, each between
 * `<!-- NAME:start -->` and `<!-- NAME:end -->`). `--check` exits 1 when a file is out of date.
 * `deno task gen` runs it with the other generators (scripts/gen.ts).
 *
 *   deno run -A scripts/gen_docs.ts [--check]
 */
import { ERROR_CATALOG, type ErrorSpec } from "../src/contract/error_catalog.ts";
import { docRegions, fillRegions } from "./gen_doc_lists.ts";

export { operationsTable } from "./gen_doc_lists.ts";

const root = new URL("../", import.meta.url);

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
- **Token service**: 400, 401, 402, 403 (with \`rejectedEiks\`) as docs/tokens.md § Issuing says; the body is
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

<!-- deno-fmt-ignore-start -->
| errorCode | errorKind | HTTP | meaning |
| --- | --- | --- | --- |
${rows.join("\n")}
<!-- deno-fmt-ignore-end -->
`;
}

async function update(
  path: string,
  make: (old: string) => string,
  check: boolean,
  exact = false,
): Promise<boolean> {
  const url = new URL(path, root);
  // The tables are unpadded in deno-fmt-ignore regions: one row more is one line of diff.
  const old = await Deno.readTextFile(url).catch(() => "");
  const next = make(old);
  // deno fmt pads table cells and reflows text afterwards: compare the content only (the
  // regions, unpadded and kept so by deno-fmt-ignore, compare exactly).
  const norm = (t: string) =>
    t.replace(/[ \t]*\|[ \t]*/g, "|").replace(/-{3,}/g, "---").replace(/\s+/g, " ");
  if (exact ? old === next : norm(old) === norm(next)) return true;
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
 * Write (or, with `check`, compare) docs/errors.md and the generated regions of the docs.
 * @param check only compare; print what is stale
 * @returns whether all were up to date (or have been written)
 * @throws Error when a file lost a region's markers
 */
export async function genDocs(check: boolean): Promise<boolean> {
  let ok = await update("docs/errors.md", () => errorsDoc(), check);
  const regions = docRegions();
  for (const file of new Set(regions.map((r) => r.file))) {
    const mine = regions.filter((r) => r.file === file);
    ok = await update(file, (old) => fillRegions(old, mine, file), check, true) && ok;
  }
  return ok;
}

if (import.meta.main) {
  if (!await genDocs(Deno.args.includes("--check"))) Deno.exit(1);
}
