/**
 * The client as the npm package `@svc-filing/agent-client` (clients/ts), as an integrator gets
 * it: built by scripts/build_client.ts into a copy of the package folder installed under a
 * consumer's node_modules, and its BUILT ESM (never the sources) run against the real token
 * service and agent — nap_catalog; a vat_batch of three companies plus a report in one
 * `batch()` scope with one confirmation; refusals as the typed `errorCode` union (a bad token →
 * TOKEN_INVALID, the test portal's special EIK 999999949 → PORTAL_UNREACHABLE, a declined batch
 * → SENDER_NOT_CHOSEN). A consumer's TypeScript type-checks against the package's declarations
 * (node16 and bundler resolution). The same build runs in Node through the package's `exports`, and
 * `npm pack --dry-run` lists what the package ships. Its version is the agent's.
 */
import { deepStrictEqual, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import type * as ClientSources from "../../clients/ts/client.ts";
import { OPERATIONS } from "../../src/contract/operations.ts";
import { VERSION } from "../../src/version.ts";
import { buildClient } from "../../scripts/build_client.ts";
import ts from "typescript";
import { writeCompanyTree } from "../_helpers/company_tree.ts";
import {
  createKeyCli,
  decideNext,
  issueToken,
  type Proc,
  startAgent,
  startTokenService,
} from "../_helpers/e2e.ts";
import { skipUnless } from "../_helpers/require_tool.ts";

/** The built package has the sources' API (its .d.ts are emitted from them). */
type Pkg = typeof ClientSources;

const ROOT = new URL("../../", import.meta.url).pathname;
const PKG_JSON = JSON.parse(await Deno.readTextFile(`${ROOT}clients/ts/package.json`));
const NAME = "@svc-filing/agent-client";
const SPECIAL_UNREACHABLE = "999999949";

async function sha256Hex(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return new Uint8Array(d).toHex();
}

/** A consumer folder with the package built into node_modules/@svc-filing/agent-client. */
interface Installed {
  readonly consumer: string;
  readonly pkgDir: string;
  readonly dist: string[];
}

let installed: Promise<Installed> | null = null;
/** Build once per run, in a temporary folder (clients/ts/dist of the checkout is left alone). */
function install(): Promise<Installed> {
  return installed ??= (async () => {
    const consumer = await Deno.makeTempDir({ prefix: "svc-client-pkg-" });
    const pkgDir = join(consumer, "node_modules", ...NAME.split("/"));
    const dist = await buildClient(pkgDir).catch(async (e) => {
      await Deno.remove(consumer, { recursive: true });
      throw e;
    });
    // The package's one dependency, as npm would install it beside the package.
    await Deno.symlink(
      `${ROOT}node_modules/openapi-fetch`,
      join(consumer, "node_modules", "openapi-fetch"),
    );
    return { consumer, pkgDir, dist };
  })();
}

globalThis.addEventListener("unload", () => {
  installed?.then((i) => Deno.removeSync(i.consumer, { recursive: true }), () => {});
});

interface Env {
  ts: Proc;
  agent: Proc;
  key: string;
  dir: string;
}

async function withEnv(fn: (e: Env) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "svc-client-pkg-e2e-" });
  const ts = await startTokenService(`${dir}/ts`);
  const agent = await startAgent(`${dir}/agent`, ts.url);
  try {
    const key = await createKeyCli(`${dir}/ts`, "test");
    await fn({ ts, agent, key, dir });
  } finally {
    await agent.stop();
    await ts.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** The integrator's backend: a token for one call, bound to its exact body. */
function backend(e: Env, seen: ClientSources.TokenRequest[]): ClientSources.TokenProvider {
  return async (r) => {
    seen.push(r);
    const op = OPERATIONS.find((o) => o.typeId === r.typeId)!;
    return await issueToken(e.ts.url, e.key, {
      typeId: r.typeId,
      ...(op.scope === "eik" ? { eik: r.eik } : {}),
      ...(op.scope === "eiks" ? { eiks: r.eiks } : {}),
      bodySha256: await sha256Hex(r.bodyText),
    });
  };
}

Deno.test("[client package] package.json: the agent's version, ESM exports with types, MIT, a changelog entry", async () => {
  equal(PKG_JSON.name, NAME);
  equal(PKG_JSON.version, VERSION, "clients/ts/package.json version = src/version.ts VERSION");
  equal(PKG_JSON.type, "module");
  equal(PKG_JSON.license, "MIT");
  deepStrictEqual(Object.keys(PKG_JSON.exports), [".", "./browser", "./package.json"]);
  deepStrictEqual(PKG_JSON.exports["."], {
    types: "./dist/client.d.ts",
    default: "./dist/client.js",
  });
  deepStrictEqual(Object.keys(PKG_JSON.dependencies), ["openapi-fetch"]);
  const lockedFetch = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).imports[
    "openapi-fetch"
  ];
  ok(lockedFetch.endsWith(`@${PKG_JSON.dependencies["openapi-fetch"].replace(/^\^/, "")}`));
  const changelog = await Deno.readTextFile(`${ROOT}clients/ts/CHANGELOG.md`);
  ok(changelog.includes(`\n## ${VERSION}\n`), `CHANGELOG.md has a ## ${VERSION} entry`);
  const { dist } = await install();
  deepStrictEqual(dist, [
    "agent.d.ts",
    "batch_watch.d.ts",
    "batch_watch.js",
    "browser.d.ts",
    "browser.js",
    "client.d.ts",
    "client.js",
    "errors.d.ts",
    "errors.js",
  ]);
});

Deno.test("[client package] the built ESM runs nap_catalog, a batch with one confirmation, and types refusals by errorCode", async () => {
  const { pkgDir } = await install();
  const pkg: Pkg = await import(new URL(`file://${pkgDir}/dist/client.js`).href);
  ok(!String(pkg.createAgentClient).includes(": string"), "compiled JavaScript, not sources");
  await withEnv(async (e) => {
    const seen: ClientSources.TokenRequest[] = [];
    const agent = pkg.createAgentClient(e.agent.url, { tokenProvider: backend(e, seen) });

    // One call outside a batch: a token fetched for it, the typed result.
    const catalog = await agent.call("nap_catalog", { filter: "" });
    ok(catalog.items.length > 0);
    equal(pkg.isNoData(catalog), false);
    deepStrictEqual(seen.map((r) => [r.typeId, r.batchId]), [["nap_catalog", undefined]]);

    // One user action: a VAT filing of three companies' folders and a report, one batch id,
    // one confirmation page (sent together, the two requests join it: a confirmed batch covers
    // the requests its page showed, docs/confirmation.md), a fresh token per call.
    const root = join(e.dir, "clients");
    const eiks = await writeCompanyTree(root, 3, 2026, 9);
    const batch = agent.batch();
    const filing = batch.call("vat_batch", { rootFolder: root, year: 2026, month: 9 }, { eiks });
    const report = batch.call("due_amounts", { eik: eiks[0]! });
    await decideNext(e.agent, "confirm", undefined, 2);
    const filed = await filing;
    deepStrictEqual([filed.status, filed.submitted, filed.failed], ["ok", 3, 0]);
    deepStrictEqual(filed.items.map((i) => i.eik).sort(), [...eiks].sort());
    ok(filed.items.every((i) => i.result === null || i.result.success));
    const due = await report;
    equal(due.status, "ok");
    deepStrictEqual(seen.slice(1).map((r) => [r.typeId, r.batchId, r.eik, r.eiks]), [
      ["vat_batch", batch.batchId, undefined, eiks],
      ["due_amounts", batch.batchId, eiks[0], undefined],
    ]);
    equal(e.agent.logs.filter((l) => l.msg === "confirmation page opened").length, 1);

    // A bad token: TOKEN_INVALID, narrowed by isAgentError.
    const forged = pkg.createAgentClient(e.agent.url, {
      tokenProvider: () => Promise.resolve("x.y.z"),
    });
    const bad = await forged.call("taxpayers", {}).then(() => null, (err) => err);
    ok(pkg.isAgentError(bad, "TOKEN_INVALID"), String(bad));
    deepStrictEqual([bad.status, bad.errorCode, bad.errorKind], [
      401,
      "TOKEN_INVALID",
      "PARAMETER",
    ]);
    ok(bad instanceof pkg.AgentError && bad instanceof Error);
    equal(pkg.isAgentError(bad, "PIN_INCORRECT"), false);

    // The test portal's special EIK: the portal cannot be reached (502, PORTAL).
    const other = agent.batch();
    const down = other.call("due_amounts", { eik: SPECIAL_UNREACHABLE });
    await decideNext(e.agent, "confirm");
    const err = await down.then(() => null, (x) => x);
    ok(pkg.isAgentError(err), String(err));
    switch (err.errorCode) {
      case "PORTAL_UNREACHABLE":
        deepStrictEqual([err.status, err.errorKind], [502, "PORTAL"]);
        break;
      default:
        throw new Error(`expected PORTAL_UNREACHABLE, got ${err.errorCode}: ${err.message}`);
    }

    // A declined batch: every call of it is refused with SENDER_NOT_CHOSEN.
    const declined = agent.batch();
    const first = declined.call("due_amounts", { eik: eiks[1]! });
    await decideNext(e.agent, "decline");
    await rejects(first, (x) => pkg.isAgentError(x, "SENDER_NOT_CHOSEN") && x.status === 502);
    await rejects(
      declined.call("debt_payments", { eik: eiks[1]!, year: 2025 }),
      (x) => pkg.isAgentError(x, "SENDER_NOT_CHOSEN"),
    );
  });
});

Deno.test("[client package] a consumer's TypeScript checks against the declarations, narrowing by errorCode", async () => {
  const { consumer } = await install();
  const app = join(consumer, "app.ts");
  await Deno.writeTextFile(join(consumer, "package.json"), `{ "type": "module" }\n`);
  await Deno.writeTextFile(
    app,
    `import { createAgentClient, isAgentError } from "${NAME}";
const agent = createAgentClient("http://127.0.0.1:17470", { tokenProvider: async () => "t" });
export async function f(e: unknown): Promise<string | number | undefined> {
  const r = await agent.batch().call("debt_payments", { eik: "121212121", year: 2025 });
  const n: number = r.items.length;
  if (isAgentError(e, "AGENT_UPDATE_REQUIRED")) return e.requiredVersion + n;
  if (isAgentError(e) && e.errorCode === "RATE_LIMITED") return e.retryAfter;
  // @ts-expect-error not a code of the ErrorCode enum
  isAgentError(e, "NO_SUCH_CODE");
}
`,
  );
  for (
    const [module, moduleResolution] of [
      [ts.ModuleKind.Node16, ts.ModuleResolutionKind.Node16],
      [ts.ModuleKind.ESNext, ts.ModuleResolutionKind.Bundler],
    ] as const
  ) {
    const program = ts.createProgram([app], {
      strict: true,
      noEmit: true,
      module,
      moduleResolution,
      target: ts.ScriptTarget.ES2022,
      lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
      types: [],
    });
    const messages = ts.getPreEmitDiagnostics(program).map((d) =>
      ts.flattenDiagnosticMessageText(d.messageText, "\n")
    );
    deepStrictEqual(messages, [], `moduleResolution ${ts.ModuleResolutionKind[moduleResolution]}`);
  }
});

Deno.test({
  name: "[client package] Node imports the package through its exports and calls the agent",
  ignore: skipUnless(["node"], "the client package in Node"),
  fn: async () => {
    const { consumer } = await install();
    await withEnv(async (e) => {
      // Tokens as the integrator's server issues them (no Origin: a server-side caller).
      const body = JSON.stringify({ filter: "" });
      const token = await issueToken(e.ts.url, e.key, {
        typeId: "nap_catalog",
        bodySha256: await sha256Hex(body),
      });
      const script = `
        import { createAgentClient, isAgentError } from "${NAME}";
        import * as browser from "${NAME}/browser";
        const tokens = [process.env.TOKEN, "not-a-token"];
        const agent = createAgentClient(process.env.AGENT, { tokenProvider: async () => tokens.shift() });
        const catalog = await agent.call("nap_catalog", { filter: "" });
        const err = await agent.call("nap_catalog", { filter: "" }).catch((e) => e);
        console.log(JSON.stringify({
          node: process.versions.node,
          items: catalog.items.length,
          invalid: isAgentError(err, "TOKEN_INVALID") && err.status,
          browserEntry: typeof browser.createAgentClient === "function" && browser.isAgentError(err),
        }));
      `;
      await Deno.writeTextFile(join(consumer, "smoke.mjs"), script);
      const out = await new Deno.Command("node", {
        args: ["smoke.mjs"],
        cwd: consumer,
        env: { AGENT: e.agent.url, TOKEN: token },
      }).output();
      const text = new TextDecoder().decode(out.stdout);
      ok(out.success, new TextDecoder().decode(out.stderr));
      const r = JSON.parse(text);
      ok(Number(r.node.split(".")[0]) >= 18);
      ok(r.items > 0);
      equal(r.invalid, 401);
      equal(r.browserEntry, true);
    });
  },
});

Deno.test({
  name:
    "[client package] npm pack --dry-run ships dist/, the README, the changelog and the license",
  ignore: skipUnless(["npm"], "npm pack of the client package"),
  fn: async () => {
    const { pkgDir } = await install();
    const out = await new Deno.Command("npm", {
      args: ["pack", "--dry-run", "--json", "--ignore-scripts"],
      cwd: pkgDir,
      env: { npm_config_update_notifier: "false", npm_config_fund: "false" },
    }).output();
    ok(out.success, new TextDecoder().decode(out.stderr));
    const [packed] = JSON.parse(new TextDecoder().decode(out.stdout));
    equal(packed.name, NAME);
    equal(packed.version, VERSION);
    const files = (packed.files as { path: string }[]).map((f) => f.path).sort();
    const license = await Deno.stat(`${ROOT}LICENSE`).then(() => ["LICENSE"], () => []);
    deepStrictEqual(
      files,
      [
        "CHANGELOG.md",
        ...license,
        "README.md",
        "dist/agent.d.ts",
        "dist/batch_watch.d.ts",
        "dist/batch_watch.js",
        "dist/browser.d.ts",
        "dist/browser.js",
        "dist/client.d.ts",
        "dist/client.js",
        "dist/errors.d.ts",
        "dist/errors.js",
        "package.json",
      ].sort(),
    );
  },
});
