/**
 * The lists of operations the docs show, made from the registry and the tables the code runs
 * on, so no doc keeps one by hand: each goes between `<!-- NAME:start -->` and
 * `<!-- NAME:end -->` in its file (the rest of the file stays hand-written), inside
 * `deno-fmt-ignore`: tables are written unpadded, so one row more is one line of diff. scripts/gen_docs.ts
 * writes and checks them with the rest (`deno task gen [--check]`).
 *
 * | region                | file                | made from                                   |
 * | --------------------- | ------------------- | ------------------------------------------- |
 * | `operations`          | README.md           | the registry and the agent's OpenAPI        |
 * | `special-eiks`        | docs/test-portal.md | `SPECIAL_EIKS`, the registry's reports      |
 * | `income-prefixes`     | docs/test-portal.md | `INCOME_PREFIX` (one row per kind)          |
 * | `live-unsupported`    | docs/live-portal.md | `checkLiveOperation` over the registry      |
 * | `scans`               | docs/local-input.md | the registry's folder scans                 |
 * @module
 */
import { OPERATIONS, REPORT_OPERATIONS } from "../src/contract/operations.ts";
import { buildAgentOpenApi } from "../src/contract/openapi/mod.ts";
import { INCOME_PREFIX, SPECIAL_EIKS } from "../src/mock/mod.ts";
import { checkLiveOperation } from "../src/portal/live/mod.ts";
import { VERSION } from "../src/version.ts";

/** One generated region: the file, its name, its markdown. */
export interface DocRegion {
  readonly file: string;
  readonly name: string;
  readonly body: string;
}

const code = (s: string) => `\`${s}\``;

/** A markdown table, unpadded (its region is kept so from `deno fmt`: one row, one line of diff). */
function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
}

/** README.md's operation table. */
export function operationsTable(): string {
  // deno-lint-ignore no-explicit-any
  const paths = buildAgentOpenApi(VERSION).paths as any;
  const ref = (s: { $ref?: string } | undefined) => s?.$ref?.split("/").at(-1) ?? "";
  return table(
    [
      "typeId",
      "family",
      "request",
      "result",
      "token scope",
      "local input",
      "sender confirmation",
      "what it does",
    ],
    OPERATIONS.map((o) => {
      const post = paths[`/api/v1/operations/${o.typeId}`].post;
      return [
        code(o.typeId),
        o.family,
        ref(post.requestBody.content["application/json"].schema),
        ref(post.responses["200"].content["application/json"].schema),
        o.scope,
        o.localInput,
        o.needsSender ? "yes" : o.family === "local" ? "disk reads" : "no",
        o.summary,
      ];
    }),
  );
}

/** docs/test-portal.md § Special EIKs: the table, and the reports that name an EIK. */
function specialEiks(): string {
  const eikReports = REPORT_OPERATIONS.filter((o) => "eik" in o.sample).map((o) => code(o.typeId));
  return [
    table(
      ["EIK", "behaviour", "what you get"],
      SPECIAL_EIKS.map((s) => [code(s.eik), s.behaviour, s.description]),
    ),
    "",
    `Reports that name an EIK: ${eikReports.join(", ")}.`,
  ].join("\n");
}

/** docs/test-portal.md § Submissions and results: the incoming number's prefix of each kind. */
function incomePrefixes(): string {
  return table(
    ["kind", "prefix"],
    Object.entries(INCOME_PREFIX).map(([kind, prefix]) => [kind, prefix]),
  );
}

/** Why the live portal refuses an entry with the default settings, or null when it runs it. */
function liveRefusal(op: (typeof OPERATIONS)[number], coverage = {}): string | null {
  try {
    checkLiveOperation(op, coverage);
    return null;
  } catch (e) {
    return (e as Error).message.replace(/^[^:]*: /, "");
  }
}

/** docs/live-portal.md § What the public API does not cover: refused entries, by reason. */
function liveUnsupported(): string {
  const byReason = new Map<string, string[]>();
  const runs: string[] = [];
  for (const op of OPERATIONS) {
    if (op.family === "local") continue;
    const why = liveRefusal(op);
    if (why === null) {
      runs.push(code(op.typeId));
      continue;
    }
    const unless = liveRefusal(op, { experimentalVatService: true }) === null
      ? " (unless `experimentalVatService`)"
      : "";
    const key = `${unless}\n${why}`;
    byReason.set(key, [...byReason.get(key) ?? [], code(op.typeId)]);
  }
  const rows = [...byReason].map(([key, ops]) => {
    const [unless = "", why = ""] = key.split("\n");
    return [ops.join(", ") + unless, why];
  });
  return [
    table(["operation", "why"], rows),
    "",
    `Filed and fetched through the public API: ${runs.join(", ")}.`,
  ].join("\n");
}

/** docs/local-input.md § Scans: the folder scans. */
function scans(): string {
  return OPERATIONS.filter((o) => o.family === "local" && o.local.run === "scan")
    .map((o) => `- ${code(o.typeId)}: ${o.summary}`)
    .join("\n");
}

/**
 * Every generated region of the docs.
 * @returns the regions, in file order
 */
export function docRegions(): readonly DocRegion[] {
  return [
    { file: "README.md", name: "operations", body: operationsTable() },
    { file: "docs/test-portal.md", name: "income-prefixes", body: incomePrefixes() },
    { file: "docs/test-portal.md", name: "special-eiks", body: specialEiks() },
    { file: "docs/live-portal.md", name: "live-unsupported", body: liveUnsupported() },
    { file: "docs/local-input.md", name: "scans", body: scans() },
  ];
}

/**
 * A file with its regions replaced.
 * @param text the file's text
 * @param regions its regions
 * @param file its path (for the message)
 * @returns the new text
 * @throws Error when a region's markers are missing (someone removed them: put them back)
 */
export function fillRegions(text: string, regions: readonly DocRegion[], file: string): string {
  let out = text;
  for (const { name, body } of regions) {
    const re = new RegExp(`<!-- ${name}:start -->[\\s\\S]*?<!-- ${name}:end -->`);
    if (!re.test(out)) {
      throw new Error(`${file}: no <!-- ${name}:start --> … <!-- ${name}:end --> region`);
    }
    out = out.replace(
      re,
      () =>
        `<!-- ${name}:start -->\n<!-- deno-fmt-ignore-start -->\n${body}\n` +
        `<!-- deno-fmt-ignore-end -->\n<!-- ${name}:end -->`,
    );
  }
  return out;
}
