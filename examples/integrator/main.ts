/**
 * The example integrator in one command (`deno task example`): starts the token service and the
 * agent (subprocesses of main.ts on free loopback ports, the agent allowing this example's
 * origin), creates a test key, and serves the example page whose server holds the key and
 * issues a token per operation. Prints the page URL. Ctrl+C stops everything.
 *
 * Options: `--port N` (the page's port, default any free port), `--no-browser` (the agent only
 * logs confirmation page URLs instead of opening them).
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { createTestKey, type LogSink, startAgent, startTokenService } from "./programs.ts";
import { startExampleServer } from "./server.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { port: { type: "string" }, "no-browser": { type: "boolean" } },
  strict: true,
});

const dir = await Deno.makeTempDir({ prefix: "svc-example-" });
const quiet: LogSink = (l) => {
  if (l.level === "error") console.error(`[token service] ${l.msg}`);
};
const agentLog: LogSink = (l) => {
  if (l.msg === "confirmation page opened") {
    console.log(`Confirmation page: ${l.url}  (opened in your browser; open it by hand if not)`);
  } else if (l.msg === "confirmation decided") {
    console.log(`Confirmation: ${l.decision}`);
  } else if (l.level === "error" || l.level === "warn") {
    console.error(`[agent] ${l.msg}`);
  }
};

const ts = await startTokenService(join(dir, "token-service"), quiet);
const secretKey = await createTestKey(join(dir, "token-service"));
const example = await startExampleServer({
  tokenServiceUrl: ts.url,
  secretKey,
  port: Number(values.port ?? 0),
});

// The agent must allow the page's origin: agent.json before it starts.
await Deno.mkdir(join(dir, "agent"), { recursive: true });
await Deno.writeTextFile(
  join(dir, "agent", "agent.json"),
  JSON.stringify({ senders: [], allowedOrigins: [example.origin] }, null, 2),
);
const agent = await startAgent(
  join(dir, "agent"),
  ts.url,
  agentLog,
  values["no-browser"] ? "never" : "auto",
);
example.setAgentUrl(agent.url);

console.log(`Token service: ${ts.url}`);
console.log(`Agent:         ${agent.url}   (OpenAPI: ${agent.url}/api/v1/openapi.json)`);
console.log(`A test key was created; it stays in this process (the page never sees it).`);
console.log("");
console.log(`Open the example page: ${example.url}`);
console.log("Stop with Ctrl+C.");

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await example.close().catch(() => {});
  await agent.stop();
  await ts.stop();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", stop);
if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", stop);
