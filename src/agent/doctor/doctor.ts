/**
 * `agent doctor`: checks an accountant's machine and says what to fix — the agent's port and
 * fallback range (this data folder's agent told apart from other agents on the machine), the
 * token service and its JWKS (the one this folder's running agent uses), clock skew against it
 * (tokens live 5 s, the agent allows 2 s), the data directory, agent.json, the live portal's
 * reachability, each sender's key store (without PINs), the PKCS#11 middleware found, and the
 * Chrome/Edge Local Network Access notes. Every check in English and Bulgarian. Runs from the CLI
 * or inside the agent (`selfPort`). Every side effect (fetch, clock, port probe, process check,
 * file reads, PKCS#11) is injectable. Output never contains PINs, key material, API keys, portal
 * credentials or personal ids. See docs/running.md § Diagnostics.
 * @module
 */
import { errorMessage } from "../../error_message.ts";
import { join } from "node:path";
import { bi } from "../../contract/mod.ts";
import { type AgentFile, agentFilePath, readAgentFile } from "../senders/mod.ts";
import { AGENT_PORTS, findOwnAgent, processAlive } from "../start/mod.ts";
import { VERSION } from "../../version.ts";
import { checkPort, listenFree } from "./network.ts";
import { checkTokenService, type TokenServiceSource } from "./token_service_check.ts";
import { checkPortal } from "./portal.ts";
import { checkSender } from "./senders.ts";
import {
  check,
  type DoctorCheck,
  type DoctorDeps,
  type ResolvedDoctorDeps,
  type SelfAgent,
} from "./types.ts";

export type { DoctorCheck, DoctorDeps, ResolvedDoctorDeps };
import { discoverPkcs11Modules, openPkcs11KeyStore } from "../../signing/mod.ts";

type Deps = ResolvedDoctorDeps;

async function checkDataDir(d: Deps): Promise<DoctorCheck> {
  const title = bi("Папка с данни", "Data directory");
  const probe = join(d.dataDir, `.doctor-${crypto.randomUUID()}.tmp`);
  try {
    await Deno.mkdir(d.dataDir, { recursive: true });
    await Deno.writeTextFile(probe, "ok", { createNew: true });
    await Deno.remove(probe);
    return check(
      "data-dir",
      true,
      title,
      bi(`В ${d.dataDir} може да се записва`, `${d.dataDir} is writable`),
    );
  } catch (e) {
    return check(
      "data-dir",
      false,
      title,
      bi(
        `Не може да се записва в ${d.dataDir}: ${errorMessage(e)}`,
        `Cannot write in ${d.dataDir}: ${errorMessage(e)}`,
      ),
      bi(
        "Дайте на този потребител право на запис в нея или изберете друга папка с --data-dir " +
          "или SVC_DATA_DIR",
        "Give this user write access to it, or choose another directory with --data-dir or " +
          "SVC_DATA_DIR",
      ),
    );
  }
}

function lnaNote(file: AgentFile | null): DoctorCheck {
  const origins = file?.allowedOrigins.length ? file.allowedOrigins : ["https://app.example"];
  const policy = `LocalNetworkAccessAllowedForUrls = ${JSON.stringify(origins)}`;
  return check(
    "browser-lna",
    true,
    bi(
      "Достъп от браузъра (Chrome/Edge Local Network Access)",
      "Browser access (Chrome/Edge Local Network Access)",
    ),
    bi(
      "Chrome 142+ и Edge 143+ питат, преди https страница да достигне агента на този " +
        "компютър („loopback-network“); въпросът се появява, когато страницата извика агента " +
        "след щракване. Ако е блокирано: настройките на сайта (иконата с катинара) → Local " +
        'network access → Allow. Страници в iframe се нуждаят от allow="loopback-network". ' +
        `На управлявани компютри страниците могат да се разрешат предварително с правилото ${policy}.`,
      "Chrome 142+ and Edge 143+ ask before an https page may reach the agent on this PC " +
        '("loopback-network"); the prompt appears when the page calls the agent after a click. ' +
        "If it was blocked: the site's settings (lock icon) → Local network access → Allow. " +
        'Pages in an iframe need allow="loopback-network". Managed PCs can pre-allow pages ' +
        `with the policy ${policy}.`,
    ),
  );
}

/** This data folder's agent: the calling process with `selfPort`, else its record or lock. */
async function selfAgent(d: Deps): Promise<SelfAgent | null> {
  if (d.selfPort !== undefined) {
    return {
      pid: Deno.pid,
      port: d.selfPort,
      version: VERSION,
      state: "running",
      tokenServiceUrl: d.tokenServiceUrl,
      from: "this-process",
    };
  }
  return await findOwnAgent(d.dataDir, {
    fetch: d.fetch,
    isAlive: d.isAlive,
    now: d.now,
    timeoutMs: d.timeoutMs,
  });
}

/**
 * Runs every check. Never asks for a PIN; never prints secrets. Works from the CLI and inside
 * the running agent: pass `selfPort` there (the port it listens on), so that the agent's own port
 * counts as its own, not as taken.
 * @param deps data directory, token service URL (and where it came from), the agent's own port
 *   when run inside it, and injectable side effects
 * @returns the checks, in display order: port, token-service, clock, data-dir, agent-file,
 *   portal, pkcs11-modules, one `sender:<id>` per configured sender, browser-lna
 * @throws never (a failing probe becomes a failed check)
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * // CLI: `agent doctor` on a data folder (here a new one, with no token service answering).
 * // Inside the agent (the console), pass its own port too: `selfPort`.
 * const dataDir = await Deno.makeTempDir();
 * const checks = await runDoctor({ dataDir, tokenServiceUrl: "http://127.0.0.1:9" });
 * console.log(formatDoctorReport(checks, "bg"));
 * equal(checks.find((c) => c.id === "token-service")?.ok, false);
 * equal(doctorExitCode(checks), 1);
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 */
export async function runDoctor(deps: DoctorDeps): Promise<DoctorCheck[]> {
  const d: Deps = {
    dataDir: deps.dataDir,
    tokenServiceUrl: deps.tokenServiceUrl,
    fetch: (i, init) => fetch(i, init),
    now: Date.now,
    ports: AGENT_PORTS,
    portFree: listenFree,
    isAlive: processAlive,
    readAgentFile,
    openPkcs11: (modulePath, tokenLabel) => openPkcs11KeyStore({ modulePath, tokenLabel }),
    discoverModules: () => discoverPkcs11Modules(),
    os: Deno.build.os,
    arch: Deno.build.arch,
    timeoutMs: 3000,
    tokenServiceSource: "config",
    ...Object.fromEntries(Object.entries(deps).filter(([, v]) => v !== undefined)),
  } as Deps;
  const self = await selfAgent(d).catch(() => null);
  const [tokenUrl, source]: [string, TokenServiceSource] = self?.from === "this-process"
    ? [d.tokenServiceUrl, "this-agent"]
    : d.tokenServiceSource !== "flag" && self?.tokenServiceUrl
    ? [
      self.tokenServiceUrl,
      self.tokenServiceUrl === d.tokenServiceUrl ? "config" : "running-agent",
    ]
    : [d.tokenServiceUrl, d.tokenServiceSource === "flag" ? "flag" : "config"];
  const [port, token, dataDir] = await Promise.all([
    checkPort(d, self),
    checkTokenService(d, tokenUrl, source),
    checkDataDir(d),
  ]);
  const { file, check: fileCheck } = await agentFileCheck(d);
  const [portal, found] = await Promise.all([
    checkPortal(d, file),
    d.discoverModules().catch(() => []),
  ]);
  const modules = modulesCheck(found);
  const senders = [];
  for (const s of file?.senders ?? []) senders.push(await checkSender(s, d, found));
  return [port, ...token, dataDir, fileCheck, portal, modules, ...senders, lnaNote(file)];
}

/** The `agent-file` check: agent.json read (senders, allowed origins), or why not. */
async function agentFileCheck(
  d: Deps,
): Promise<{ file: AgentFile | null; check: DoctorCheck }> {
  let file: AgentFile | null = null;
  let fileCheck: DoctorCheck;
  const fileTitle = bi("agent.json", "agent.json");
  try {
    file = await d.readAgentFile(d.dataDir);
    const n = file.senders.length;
    const o = file.allowedOrigins.length;
    fileCheck = check(
      "agent-file",
      true,
      fileTitle,
      n
        ? bi(
          `податели: ${n}, разрешени страници (origins): ${o}`,
          `${n} sender(s), ${o} allowed origin(s)`,
        )
        : bi(
          "Няма настроени податели: тестовият режим ползва вградения измислен подател; за " +
            "реални подавания е нужен подател",
          "No senders configured: test mode uses the built-in fictitious sender; live filings " +
            "need a sender",
        ),
    );
  } catch (e) {
    const path = agentFilePath(d.dataDir);
    fileCheck = check(
      "agent-file",
      false,
      fileTitle,
      bi(errorMessage(e), errorMessage(e)),
      bi(
        `Поправете или изтрийте ${path} (README § Configuration)`,
        `Fix or remove ${path} (README § Configuration)`,
      ),
    );
  }
  return { file, check: fileCheck };
}

/** The `pkcs11-modules` check: the QES middleware found on this machine. */
function modulesCheck(found: Awaited<ReturnType<Deps["discoverModules"]>>): DoctorCheck {
  const list = found.map((m) =>
    `${m.provider === m.middleware ? "" : `${m.provider}: `}${m.middleware} (${m.path})`
  ).join("; ");
  return check(
    "pkcs11-modules",
    true,
    bi("Софтуер за карти и токени (PKCS#11)", "PKCS#11 middleware"),
    found.length ? bi(list, list) : bi(
      "Не е инсталирана нито една от познатите библиотеки за КЕП (нужни са само за карти и " +
        "токени)",
      "None of the known QES middleware libraries is installed (needed only for cards/tokens)",
    ),
  );
}

/** The language of {@link formatDoctorReport}. */
export type DoctorLanguage = "en" | "bg";

/**
 * Renders checks for the terminal: one status line each, then the detail and the fix.
 * @param checks output of {@link runDoctor}
 * @param language "en" (default) or "bg" (the `titleBg`, `detailBg` and `fixBg` texts)
 * @returns the report, ending with a summary line
 * @throws never
 */
export function formatDoctorReport(
  checks: readonly DoctorCheck[],
  language: DoctorLanguage = "en",
): string {
  const bg = language === "bg";
  const tag = (
    c: DoctorCheck,
  ) => (c.ok === true ? "[ OK ]" : c.ok === "warn" ? "[WARN]" : "[FAIL]");
  const lines = checks.flatMap((c) => {
    const fix = bg ? c.fixBg : c.fix;
    return [
      `${tag(c)} ${bg ? c.titleBg : c.title}`,
      `       ${bg ? c.detailBg : c.detail}`,
      ...(c.ok !== true && fix ? [`       ${bg ? "Решение" : "Fix"}: ${fix}`] : []),
    ];
  });
  const count = (v: DoctorCheck["ok"]) => checks.filter((c) => c.ok === v).length;
  lines.push(
    "",
    bg
      ? `${count(true)} наред, ${count("warn")} с предупреждение, ${count(false)} неуспешни`
      : `${count(true)} ok, ${count("warn")} warning(s), ${count(false)} failed`,
  );
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
