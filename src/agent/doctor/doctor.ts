/**
 * `agent doctor`: checks an accountant's machine and says what to fix — the agent's port and
 * fallback range, the token service and its JWKS, clock skew against it (tokens live 5 s, the
 * agent allows 2 s), the data directory, agent.json and each sender's key store (without PINs),
 * the PKCS#11 middleware found, and the Chrome/Edge Local Network Access notes. Every side
 * effect (fetch, clock, port probe, file reads, PKCS#11) is injectable. Output never contains
 * PINs, key material, API keys or personal ids. See docs/running.md § Doctor.
 * @module
 */
import { join } from "node:path";
import { type AgentFile, agentFilePath, readAgentFile } from "../senders/mod.ts";
import { AGENT_PORTS } from "../start/mod.ts";
import { checkPort, checkTokenService, listenFree } from "./network.ts";
import { checkSender } from "./senders.ts";
import { check, type DoctorCheck, type DoctorDeps, type ResolvedDoctorDeps } from "./types.ts";

export type { DoctorCheck, DoctorDeps, ResolvedDoctorDeps };
import { discoverPkcs11Modules, openPkcs11KeyStore } from "../../signing/mod.ts";

type Deps = ResolvedDoctorDeps;
const msg = (e: unknown) => (e instanceof Error ? e.message : String(e));

async function checkDataDir(d: Deps): Promise<DoctorCheck> {
  const title = "Data directory";
  const probe = join(d.dataDir, `.doctor-${crypto.randomUUID()}.tmp`);
  try {
    await Deno.mkdir(d.dataDir, { recursive: true });
    await Deno.writeTextFile(probe, "ok", { createNew: true });
    await Deno.remove(probe);
    return check("data-dir", true, title, `${d.dataDir} is writable`);
  } catch (e) {
    return check(
      "data-dir",
      false,
      title,
      `Cannot write in ${d.dataDir}: ${msg(e)}`,
      "Give this user write access to it, or choose another directory with --data-dir or SVC_DATA_DIR",
    );
  }
}

function lnaNote(file: AgentFile | null): DoctorCheck {
  const origins = file?.allowedOrigins.length ? file.allowedOrigins : ["https://app.example"];
  return check(
    "browser-lna",
    true,
    "Browser access (Chrome/Edge Local Network Access)",
    "Chrome 142+ and Edge 143+ ask before an https page may reach the agent on this PC " +
      '("loopback-network"); the prompt appears when the page calls the agent after a click. ' +
      "If it was blocked: the site's settings (lock icon) → Local network access → Allow. " +
      'Pages in an iframe need allow="loopback-network". Managed PCs can pre-allow pages ' +
      `with the policy LocalNetworkAccessAllowedForUrls = ${JSON.stringify(origins)}.`,
  );
}

/**
 * Runs every check. Never asks for a PIN; never prints secrets.
 * @param deps data directory, token service URL and injectable side effects
 * @returns the checks, in display order: port, token-service, clock, data-dir, agent-file,
 *   pkcs11-modules, one `sender:<id>` per configured sender, browser-lna
 * @throws never (a failing probe becomes a failed check)
 * @example
 * ```ts
 * const checks = await runDoctor({ dataDir, tokenServiceUrl: "http://127.0.0.1:17480" });
 * console.log(formatDoctorReport(checks));
 * Deno.exit(doctorExitCode(checks));
 * ```
 */
export async function runDoctor(deps: DoctorDeps): Promise<DoctorCheck[]> {
  const d: Deps = {
    fetch: (i, init) => fetch(i, init),
    now: Date.now,
    ports: AGENT_PORTS,
    portFree: listenFree,
    readAgentFile,
    openPkcs11: (modulePath, tokenLabel) => openPkcs11KeyStore({ modulePath, tokenLabel }),
    discoverModules: () => discoverPkcs11Modules(),
    os: Deno.build.os,
    arch: Deno.build.arch,
    timeoutMs: 3000,
    ...Object.fromEntries(Object.entries(deps).filter(([, v]) => v !== undefined)),
  } as Deps;
  const [port, token, dataDir] = await Promise.all([
    checkPort(d),
    checkTokenService(d),
    checkDataDir(d),
  ]);
  let file: AgentFile | null = null;
  let fileCheck: DoctorCheck;
  try {
    file = await d.readAgentFile(d.dataDir);
    const n = file.senders.length;
    fileCheck = check(
      "agent-file",
      true,
      "agent.json",
      n ? `${n} sender(s), ${file.allowedOrigins.length} allowed origin(s)` : "No senders " +
        "configured: test mode uses the built-in fictitious sender; live filings need a sender",
    );
  } catch (e) {
    fileCheck = check(
      "agent-file",
      false,
      "agent.json",
      msg(e),
      `Fix or remove ${agentFilePath(d.dataDir)} (README § Configuration)`,
    );
  }
  const found = await d.discoverModules().catch(() => []);
  const modules = check(
    "pkcs11-modules",
    true,
    "PKCS#11 middleware",
    found.length
      ? found.map((m) =>
        `${m.provider === m.middleware ? "" : `${m.provider}: `}${m.middleware} (${m.path})`
      ).join("; ")
      : "None of the known QES middleware libraries is installed (needed only for cards/tokens)",
  );
  const senders = [];
  for (const s of file?.senders ?? []) senders.push(await checkSender(s, d, found));
  return [port, ...token, dataDir, fileCheck, modules, ...senders, lnaNote(file)];
}

/**
 * Renders checks for the terminal: one status line each, then the detail and the fix.
 * @param checks output of {@link runDoctor}
 * @returns the report, ending with a summary line
 * @throws never
 */
export function formatDoctorReport(checks: readonly DoctorCheck[]): string {
  const tag = (
    c: DoctorCheck,
  ) => (c.ok === true ? "[ OK ]" : c.ok === "warn" ? "[WARN]" : "[FAIL]");
  const lines = checks.flatMap((c) => [
    `${tag(c)} ${c.title}`,
    `       ${c.detail}`,
    ...(c.ok !== true && c.fix ? [`       Fix: ${c.fix}`] : []),
  ]);
  const count = (v: DoctorCheck["ok"]) => checks.filter((c) => c.ok === v).length;
  lines.push("", `${count(true)} ok, ${count("warn")} warning(s), ${count(false)} failed`);
  return lines.join("\n");
}

/**
 * The CLI exit code.
 * @param checks output of {@link runDoctor}
 * @returns 1 when a check failed, else 0 (warnings do not fail)
 * @throws never
 */
export function doctorExitCode(checks: readonly DoctorCheck[]): number {
  return checks.some((c) => c.ok === false) ? 1 : 0;
}
