/**
 * The port check of `agent doctor`: the agent's port range (this data folder's agent told apart
 * from other agents on the machine). The token service and clock checks: token_service_check.ts.
 * @module
 */
import { bi, type Bilingual } from "../../contract/mod.ts";
import { probeAgent } from "../start/mod.ts";
import {
  check,
  type DoctorCheck,
  type ResolvedDoctorDeps as Deps,
  type SelfAgent,
} from "./types.ts";

/**
 * Whether 127.0.0.1:port can be bound now.
 * @param port the port
 * @returns true when a listener could be opened (and was closed again)
 * @throws never
 */
export function listenFree(port: number): Promise<boolean> {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return Promise.resolve(true);
  } catch {
    return Promise.resolve(false);
  }
}

function whoUses(port: number, os: string): Bilingual {
  const cmd = os === "windows"
    ? `\`netstat -ano | findstr :${port}\` and \`tasklist /FI "PID eq <pid>"\``
    : `\`lsof -nP -iTCP:${port} -sTCP:LISTEN\``;
  const cmdBg = cmd.replace("` and `", "` и `");
  return bi(`намерете я с ${cmdBg}`, `find it with ${cmd}`);
}

/** What holds one port of the range. */
type PortState =
  | { readonly port: number; readonly kind: "free" | "other" | "self" }
  | { readonly port: number; readonly kind: "agent"; readonly version: string };

/** What listens on each port of the range: this folder's agent, another agent, another program. */
function scanPorts(d: Deps, self: SelfAgent | null): Promise<PortState[]> {
  return Promise.all(d.ports.map(async (port): Promise<PortState> => {
    if (self?.state === "running" && self.port === port) return { port, kind: "self" };
    if (await d.portFree(port)) return { port, kind: "free" };
    const a = await probeAgent(port, d.fetch, d.timeoutMs);
    return a ? { port, kind: "agent", version: a.version } : { port, kind: "other" };
  }));
}

/** "another agent (another user or data folder) listens on 17470 (version 1.0.0)". */
function othersNote(others: readonly PortState[]): Bilingual | null {
  const list = (v: string) =>
    others.map((o) => `${o.port} (${v} ${"version" in o ? o.version : "?"})`).join(", ");
  if (others.length === 0) return null;
  return others.length === 1
    ? bi(
      `друг агент (на друг потребител или с друга папка с данни) слуша на ${list("версия")}`,
      `another agent (another user or data folder) listens on ${list("version")}`,
    )
    : bi(
      `други агенти (на други потребители или с други папки с данни) слушат на ${list("версия")}`,
      `other agents (other users or data folders) listen on ${list("version")}`,
    );
}

const join = (parts: (Bilingual | null)[]): Bilingual => {
  const kept = parts.filter((p): p is Bilingual => p !== null);
  return bi(kept.map((p) => p.bg).join("; "), kept.map((p) => p.en).join("; "));
};
const joinFix = (parts: Bilingual[]): Bilingual | null =>
  parts.length ? bi(parts.map((p) => p.bg).join(" "), parts.map((p) => p.en).join(" ")) : null;

/**
 * Port check: which port this data folder's agent listens on (or will), and what else holds the
 * range 17470–17479 — other agents (another user's, another data folder's) are named as such and
 * never taken for this one. Pages look for the agent from the first port upward, so another agent
 * below this one's port, or a port outside the range, is a warning.
 * @param d resolved doctor deps
 * @param self this data folder's agent (from `selfPort`, its record or its lock), or null
 * @returns the `port` check
 * @throws never
 */
export async function checkPort(d: Deps, self: SelfAgent | null): Promise<DoctorCheck> {
  // non-null: AGENT_PORTS (and a test's list) is never empty
  const first = d.ports[0]!;
  const range = `${first}–${d.ports.at(-1)}`;
  const title = bi(`Порт на агента (${range})`, `Agent port (${range})`);
  const states = await scanPorts(d, self);
  const others = states.filter((s) => s.kind === "agent");
  const free = states.find((s) => s.kind === "free")?.port;
  const running = self?.state === "running" ? self.port : 0;
  const ours = running || (self ? 0 : free ?? 0); // the port this folder's agent has or will take
  const fixes: Bilingual[] = [];
  const own = ownPort(d, self, free, range);
  let level = own.level;
  if (own.fix) fixes.push(own.fix);
  const program = states[0]?.kind === "other" && ours !== first;
  const programNote = program
    ? bi(`${first} е зает от друга програма`, `${first} is used by another program`)
    : null;
  if (program) {
    fixes.push(programFix(level, first, range, whoUses(first, d.os)));
    if (level === true) level = "warn";
  }
  // Pages probe the range in order: other agents before this folder's port are found first.
  const at = (port: number) => d.ports.includes(port) ? d.ports.indexOf(port) : d.ports.length;
  const below = others.filter((o) => ours > 0 ? at(o.port) < at(ours) : o.port === first);
  const reachedFirst = below[0];
  if (reachedFirst) {
    if (level === true) level = "warn";
    fixes.push(belowFix(first, reachedFirst.port));
  }
  if (level === false && !program) {
    fixes.push(bi(
      `Затворете програмите, които заемат ${range}, и стартирайте агента отново.`,
      `Close the programs holding ${range}, then start the agent again.`,
    ));
  }
  const detail = join([own.main, programNote, othersNote(others)]);
  return check("port", level, title, detail, level === true ? null : joinFix(fixes));
}

/** Where this data folder's agent is or will be: the check's first line, its level and fix. */
function ownPort(
  d: Deps,
  self: SelfAgent | null,
  free: number | undefined,
  range: string,
): { level: DoctorCheck["ok"]; main: Bilingual; fix: Bilingual | null } {
  // non-null: AGENT_PORTS (and a test's list) is never empty
  const first = d.ports[0]!;
  if (self?.state === "running") {
    const who = `pid ${self.pid ?? "?"}, version ${self.version}`;
    const whoBg = `процес ${self.pid ?? "?"}, версия ${self.version}`;
    const main = bi(
      `Агентът на тази папка с данни (${whoBg}) слуша на порт ${self.port}`,
      `This data folder's agent (${who}) listens on ${self.port}`,
    );
    if (d.ports.includes(self.port)) return { level: true, main, fix: null };
    return {
      level: "warn",
      main: bi(
        `${main.bg}, извън ${range}: страниците, които търсят агента там, не го намират`,
        `${main.en}, outside ${range}: pages that look for the agent there do not find it`,
      ),
      fix: bi(
        `Стартирайте агента без --port / SVC_AGENT_PORT (тогава ползва ${range}) или задайте ` +
          "този порт на страницата.",
        `Start the agent without --port / SVC_AGENT_PORT (it then uses ${range}), or give the ` +
          "page this port.",
      ),
    };
  }
  if (self) {
    return {
      level: true,
      main: bi(
        `Агентът на тази папка с данни стартира (процес ${self.pid ?? "?"})`,
        `This data folder's agent is starting (pid ${self.pid ?? "?"})`,
      ),
      fix: null,
    };
  }
  if (free === first) {
    return {
      level: true,
      main: bi(
        `Свободен: агентът на тази папка с данни ще слуша на ${first} (резервни ${range})`,
        `Free: this data folder's agent will listen on ${first} (fallback ${range})`,
      ),
      fix: null,
    };
  }
  if (free !== undefined) {
    return {
      level: "warn",
      main: bi(
        `Агентът на тази папка с данни не работи; ще слуша на резервния порт ${free}`,
        `This data folder's agent is not running; it will listen on fallback port ${free}`,
      ),
      fix: null,
    };
  }
  return {
    level: false,
    main: bi(
      `Всички портове ${range} са заети, никой от агента на тази папка с данни`,
      `All ports ${range} are in use, none by this data folder's agent`,
    ),
    fix: null,
  };
}

/** What to do about another program on the first port (all ports taken: close them all). */
function programFix(
  level: DoctorCheck["ok"],
  first: number,
  range: string,
  who: Bilingual,
): Bilingual {
  return level === false
    ? bi(
      `Затворете програмите, които заемат ${range} (${who.bg}), и стартирайте агента отново.`,
      `Close the programs holding ${range} (${who.en}), then start the agent again.`,
    )
    : bi(
      `Спрете програмата, която заема порт ${first} (${who.bg}), или я оставете: страниците ` +
        `намират агента чрез GET /health в ${range}.`,
      `Stop the program that holds port ${first} (${who.en}), or leave it: pages find the ` +
        `agent by GET /health over ${range}.`,
    );
}

/** What to do about another agent that pages reach before this folder's agent. */
function belowFix(first: number, port: number): Bilingual {
  return bi(
    `Страниците търсят агента от ${first} нагоре и първо достигат агента на ${port}. ` +
      "Ако той е ваш (с друга папка с данни), спрете го; на компютър с няколко потребители " +
      "задайте на агента на всеки потребител собствен начален порт (--port или " +
      "SVC_AGENT_PORT) и ползвайте този порт в страницата.",
    `Pages look for the agent from ${first} upward and reach the agent on ${port} ` +
      "first. If it is yours (another data folder), stop it; on a computer shared by several " +
      "users give each user's agent its own start port (--port or SVC_AGENT_PORT) and use " +
      "that port in the page.",
  );
}

/** The URL without credentials or query, for messages. */
