/**
 * Settings are declared once: each field of a settings schema names its environment variable
 * (`.meta({ env })`, src/config.ts `envVariables`), and each variable is documented for the
 * person who sets it (README § Configuration or docs/*.md).
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { AgentConfig, envVariables, loadConfig, TokenServiceConfig } from "../src/config.ts";
import { TokenRunConfig } from "../src/token/mod.ts";

const SCHEMAS = { AgentConfig, TokenServiceConfig, TokenRunConfig } as const;

Deno.test("every setting is read from one SVC_ variable of its own", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    const vars = envVariables(schema);
    const unnamed = Object.keys(schema.shape).filter((f) => !Object.values(vars).includes(f));
    deepEqual([name, unnamed], [name, []], "a field without a variable");
    for (const v of Object.keys(vars)) match(v, /^SVC_[A-Z0-9_]+$/);
  }
});

Deno.test("every variable is documented in the README or docs/", async () => {
  let docs = await Deno.readTextFile("README.md");
  for await (const e of Deno.readDir("docs")) {
    if (e.name.endsWith(".md")) docs += await Deno.readTextFile(`docs/${e.name}`);
  }
  const all = Object.values(SCHEMAS).flatMap((s) => Object.keys(envVariables(s)));
  deepEqual(all.filter((v) => !new RegExp(`\\b${v}\\b`).test(docs)), []);
});

Deno.test("loadConfig reads a field from its variable and names the variable when it is wrong", () => {
  const cfg = loadConfig(AgentConfig, { SVC_AGENT_PORT: "17471", SVC_DATA_DIR: "/tmp/d" }, {});
  equal(cfg.port, 17471);
  let message = "";
  try {
    loadConfig(AgentConfig, { SVC_BATCH_CONCURRENCY: "99", SVC_DATA_DIR: "/tmp/d" }, {});
  } catch (e) {
    message = (e as Error).message;
  }
  match(message, /SVC_BATCH_CONCURRENCY/);
});
