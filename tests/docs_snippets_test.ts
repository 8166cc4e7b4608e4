/**
 * Docs whose examples run (docs/architecture.md § Examples that run): every fenced block of
 * README.md and docs/*.md is read with a Markdown parser (mdast-util-from-markdown) and, by its
 * info string, either run against the real programs, type-checked, or left alone as text.
 *
 * The convention (README § Development, "Examples in the docs run"):
 *
 * - Every block names its language. `text` (output, layouts, diagrams, synopses), `json` and
 *   `bat` (Windows commands, which cannot run here) are never run.
 * - `sh` / `bash`: a script, run with `bash -e -o pipefail` in a sandbox: the working folder is a
 *   fresh folder whose entries link to this checkout's (so `scripts/…` and `deno task …` work,
 *   and files a block writes stay there), a fresh `SVC_DATA_DIR` and `HOME`, a token service
 *   and an agent on loopback (`$TOKEN_SERVICE`, `$AGENT`, also `SVC_TOKEN_SERVICE_URL`) and a
 *   fresh test key of that token service (`$KEY`). Every confirmation page the agent opens is
 *   confirmed, as the person at the machine would. `npx -y deno@VERSION …` runs this Deno (the
 *   test fails when VERSION is not the running version).
 * - `console`: a transcript; each `$ command` line runs as above and its output (stdout and
 *   stderr) must equal the lines below it, `…` matching any text.
 * - `ts`: type-checked with the repository's deno.json (imports starting `./` are relative to
 *   the repository's root), then run with the same environment (`Deno.env.get("AGENT")` …).
 * - `ts check: reason`: type-checked only, with the DOM's types too (page code, hardware).
 * - `LANG no-run: reason`: not run (a server that runs until Ctrl+C, another OS, this suite
 *   itself); the reason is required.
 *
 * An unmarked block that fails fails the test, naming the file, the line and the output.
 * @module
 */
import { fromMarkdown } from "mdast-util-from-markdown";
import { deepStrictEqual } from "node:assert/strict";
import {
  createKeyCli,
  decideNext,
  type Proc,
  startAgent,
  startTokenService,
} from "./_helpers/e2e.ts";
import { skipUnless } from "./_helpers/require_tool.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** Languages whose blocks run, and those that are only read. */
const RUN_LANGS = new Set(["sh", "bash", "console", "ts"]);
const TEXT_LANGS = new Set(["text", "json", "bat"]);

/** One fenced block. */
interface Block {
  readonly file: string;
  readonly line: number;
  readonly lang: string | null;
  /** `run`, `check` (ts only) or `no-run`. */
  readonly mode: "run" | "check" | "no-run";
  readonly reason: string | null;
  readonly meta: string | null;
  readonly code: string;
}

interface MdNode {
  type: string;
  lang?: string | null;
  meta?: string | null;
  value?: string;
  position?: { start: { line: number } };
  children?: MdNode[];
}

/** Every fenced block of the documentation, in order. */
export function docBlocks(): Block[] {
  const files = [
    "README.md",
    ...[...Deno.readDirSync(`${ROOT}/docs`)]
      .filter((e) => e.isFile && e.name.endsWith(".md"))
      .map((e) => `docs/${e.name}`)
      .sort(),
  ];
  const out: Block[] = [];
  for (const file of files) {
    const walk = (n: MdNode) => {
      if (n.type === "code") {
        const m = /^(no-run|check)(?::\s*(.*))?$/.exec(n.meta?.trim() ?? "");
        out.push({
          file,
          line: n.position!.start.line,
          lang: n.lang ?? null,
          mode: (m?.[1] as Block["mode"] | undefined) ?? "run",
          reason: m?.[2]?.trim() || null,
          meta: n.meta ?? null,
          code: n.value ?? "",
        });
      }
      for (const c of n.children ?? []) walk(c);
    };
    walk(fromMarkdown(Deno.readTextFileSync(`${ROOT}/${file}`)) as MdNode);
  }
  return out;
}

/** What is wrong with a block's marking, or null. */
function markingProblem(b: Block): string | null {
  if (!b.lang) return "no language: name one (text for output, layouts and synopses)";
  if (!RUN_LANGS.has(b.lang) && !TEXT_LANGS.has(b.lang)) {
    return `unknown language "${b.lang}" (run: ${[...RUN_LANGS]}; read only: ${[...TEXT_LANGS]})`;
  }
  if (b.meta && b.mode === "run") {
    return `unknown info "${b.meta}" (no-run: reason | check: reason)`;
  }
  if (b.mode !== "run" && !b.reason) return `"${b.mode}" needs a reason: ${b.mode}: why`;
  if (b.mode === "check" && b.lang !== "ts") return `"check" is for ts blocks`;
  if (b.mode !== "run" && TEXT_LANGS.has(b.lang)) return `${b.lang} blocks are never run`;
  return null;
}

const where = (b: Block) => `${b.file}:${b.line}`;

Deno.test("docs: every fenced block names its language, and every no-run/check its reason", () => {
  const problems = docBlocks().map((b) => [where(b), markingProblem(b)]).filter(([, p]) => p);
  deepStrictEqual(problems, []);
});

/** The sandbox the blocks run in. */
interface Sandbox {
  readonly cwd: string;
  env(): Record<string, string>;
}

async function makeSandbox(urls: { tokenService: string; agent: string; key: string }) {
  const base = await Deno.makeTempDir({ prefix: "svc-docs-" });
  const cwd = `${base}/repo`;
  const bin = `${base}/bin`;
  await Promise.all([Deno.mkdir(cwd), Deno.mkdir(bin), Deno.mkdir(`${base}/home`)]);
  for (const e of Deno.readDirSync(ROOT)) {
    if ([".git", ".deno", ".pg", "dist"].includes(e.name)) continue;
    await Deno.symlink(`${ROOT}/${e.name}`, `${cwd}/${e.name}`);
  }
  const deno = Deno.execPath();
  await Deno.symlink(deno, `${bin}/deno`);
  const v = Deno.version.deno;
  await Deno.writeTextFile(
    `${bin}/npx`,
    `#!/bin/sh
# The docs' way to get Deno from npm, answered by the Deno running this test.
if [ "$1" = "-y" ] && [ "\${2#deno@}" != "$2" ]; then
  if [ "$2" != "deno@${v}" ]; then echo "docs test: the docs say $2, this is deno ${v}" >&2; exit 127; fi
  shift 2; exec "${deno}" "$@"
fi
echo "docs test: only 'npx -y deno@${v} …' runs here, not: npx $*" >&2; exit 127
`,
  );
  await Deno.chmod(`${bin}/npx`, 0o755);
  let n = 0;
  return {
    base,
    sandbox: {
      cwd,
      env() {
        const data = `${base}/data-${++n}`;
        return {
          PATH: `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
          HOME: `${base}/home`,
          XDG_CONFIG_HOME: `${base}/home/.config`,
          XDG_DATA_HOME: `${base}/home/.local/share`,
          SVC_DATA_DIR: data,
          SVC_TOKEN_SERVICE_URL: urls.tokenService,
          SVC_OPEN_BROWSER: "never",
          NO_COLOR: "1",
          TOKEN_SERVICE: urls.tokenService,
          AGENT: urls.agent,
          KEY: urls.key,
        };
      },
    } satisfies Sandbox,
  };
}

/**
 * Run a program with a time limit; stdout and stderr together. GNU `timeout` runs it in a
 * process group of its own and signals the whole group, so a block's children go too.
 */
async function run(
  args: string[],
  sb: Sandbox,
  env: Record<string, string>,
  timeoutSeconds = 45,
): Promise<{ ok: boolean; out: string }> {
  const r = await new Deno.Command("timeout", {
    args: ["-k", "5", String(timeoutSeconds), ...args],
    cwd: sb.cwd,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const td = new TextDecoder();
  const out = td.decode(r.stdout) + td.decode(r.stderr);
  if (r.code === 124 || r.code === 137) {
    return { ok: false, out: `timed out after ${timeoutSeconds} s\n${out}` };
  }
  return { ok: r.success, out };
}

/** Whether `actual` matches `expected`, where `…` in `expected` matches any text. */
function matchesTranscript(expected: string, actual: string): boolean {
  const norm = (s: string) => s.split("\n").map((l) => l.trimEnd()).join("\n").trim();
  const re = norm(expected).split("…").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[^]*?");
  return new RegExp(`^${re}$`).test(norm(actual));
}

/** Run one block; returns a problem or null. */
async function runBlock(b: Block, sb: Sandbox, tsFile: Map<Block, string>): Promise<string | null> {
  const env = sb.env();
  if (b.lang === "sh" || b.lang === "bash") {
    const r = await run(["bash", "-e", "-o", "pipefail", "-c", b.code], sb, env);
    return r.ok ? null : `failed:\n${b.code}\n--- output\n${r.out}`;
  }
  if (b.lang === "console") {
    const steps: { cmd: string; expected: string[] }[] = [];
    for (const line of b.code.split("\n")) {
      if (line.startsWith("$ ")) steps.push({ cmd: line.slice(2), expected: [] });
      else if (steps.length) steps.at(-1)!.expected.push(line);
      else return `a console block starts with "$ command"`;
    }
    for (const s of steps) {
      const r = await run(["bash", "-c", s.cmd], sb, env);
      if (!matchesTranscript(s.expected.join("\n"), r.out)) {
        return `$ ${s.cmd}\n--- expected\n${s.expected.join("\n")}\n--- got\n${r.out}`;
      }
    }
    return null;
  }
  if (b.lang === "ts" && b.mode === "run") {
    const r = await run([Deno.execPath(), "run", "-A", "--no-check", tsFile.get(b)!], sb, env);
    return r.ok ? null : `failed:\n${b.code}\n--- output\n${r.out}`;
  }
  return null;
}

Deno.test({
  name: "docs: the commands and TypeScript of README.md and docs/*.md run",
  // The blocks are bash scripts calling curl: without them the test is ignored, saying why
  // (outside CI; in CI it runs and fails).
  ignore: skipUnless(["bash", "curl"], "docs snippets"),
  // The agent's and token service's processes outlive single steps; they are stopped at the end.
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const blocks = docBlocks().filter((b) =>
      !markingProblem(b) && RUN_LANGS.has(b.lang!) && b.mode !== "no-run"
    );
    const dir = await Deno.makeTempDir({ prefix: "svc-docs-programs-" });
    const procs: Proc[] = [];
    let confirming = true;
    try {
      const ts = await startTokenService(`${dir}/token-service`);
      procs.push(ts);
      const agent = await startAgent(`${dir}/agent`, ts.url);
      procs.push(agent);
      const key = await createKeyCli(`${dir}/token-service`, "test");
      // The person at the machine: confirm every page the blocks' operations open.
      (async () => {
        while (confirming) await decideNext(agent, "confirm").catch(() => {});
      })();
      const { base, sandbox } = await makeSandbox({
        tokenService: ts.url,
        agent: agent.url,
        key,
      });
      try {
        // TypeScript: one `deno check` of every ts block, each its own module file.
        const tsBlocks = blocks.filter((b) => b.lang === "ts");
        const tsFile = new Map<Block, string>();
        for (const [i, b] of tsBlocks.entries()) {
          const name = `.docs-snippet-${i}-${b.file.replace(/\W+/g, "_")}-${b.line}.ts`;
          // Check-only blocks are mostly page code: they see the DOM's types too.
          const dom = b.mode === "check" ? '/// <reference lib="dom" />\n' : "";
          await Deno.writeTextFile(`${sandbox.cwd}/${name}`, `${dom}${b.code}\nexport {};\n`);
          tsFile.set(b, name);
        }
        const problems: string[] = [];
        if (tsBlocks.length) {
          const r = await run(
            [Deno.execPath(), "check", ...tsFile.values()],
            sandbox,
            sandbox.env(),
            120,
          );
          if (!r.ok) problems.push(`deno check of the ts blocks failed:\n${r.out}`);
        }
        for (const b of blocks) {
          const p = await runBlock(b, sandbox, tsFile);
          if (p) problems.push(`${where(b)} (${b.lang}) ${p}`);
        }
        const count = (f: (b: Block) => boolean) => blocks.filter(f).length;
        console.log(
          `docs: ran ${count((b) => b.lang !== "ts")} shell/console block(s) and ` +
            `${count((b) => b.lang === "ts" && b.mode === "run")} ts block(s); type-checked ` +
            `${count((b) => b.lang === "ts")} ts block(s)`,
        );
        if (problems.length) {
          throw new Error(
            `${problems.length} doc block(s) did not run; fix the block, or mark it ` +
              `"no-run: reason" (tests/docs_snippets_test.ts):\n\n${problems.join("\n\n")}`,
          );
        }
      } finally {
        await Deno.remove(base, { recursive: true }).catch(() => {});
      }
    } finally {
      confirming = false;
      for (const p of procs.reverse()) await p.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
