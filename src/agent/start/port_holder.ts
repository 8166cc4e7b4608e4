/**
 * Who holds the agent's usual port when this agent had to take another one of the range
 * (17470–17479): another agent on this computer — another user's, or an older copy — that
 * integrators' pages would talk to instead of this one. {@link whoHoldsPort} names it as far as
 * the OS lets it be seen: its version (its `GET /health`), on Linux the user who owns the
 * listening socket (`/proc/net/tcp`, readable by everyone) and, when it is this user's own
 * process, its data folder (its `--data-dir`, from `/proc/<pid>/cmdline`). Elsewhere only the
 * version is known (said in docs/running.md). {@link portHolderWords} says it and what to do.
 * @module
 */
import { probeAgent } from "./instance.ts";

/** The other agent on the usual port. */
export interface PortHolder {
  /** The usual port it holds. */
  readonly port: number;
  /** Its version, from its `/health`. */
  readonly version: string;
  /** The OS user who runs it, or null when not visible (not Linux). */
  readonly user: string | null;
  /** Its data folder, or null when not visible (another user's process, not Linux). */
  readonly dataDir: string | null;
  /** Whether it runs as this same OS user (null: not known). */
  readonly sameUser: boolean | null;
}

/** What {@link whoHoldsPort} reads; every member has a real default. */
export interface PortHolderDeps {
  readonly fetch?: typeof fetch;
  readonly os?: typeof Deno.build.os;
  /** Reads a text file (default Deno.readTextFile). */
  readonly readTextFile?: (path: string) => Promise<string>;
  /** Lists `/proc/<pid>/fd` links (default: Deno.readDir + Deno.readLink). */
  readonly socketOwnerPid?: (inode: string) => Promise<number | null>;
  /** This process's uid (default Deno.uid()). */
  readonly uid?: () => number | null;
}

/** The listening socket on 127.0.0.1:port in `/proc/net/tcp`: its owner's uid and inode. */
export function listenerOf(
  procNetTcp: string,
  port: number,
): { uid: number; inode: string } | null {
  const want = `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  for (const line of procNetTcp.split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
    // non-null: /proc/net/tcp lines have 10 or more fields (the header above names them)
    if (f[1] === want && f[3] === "0A") return { uid: Number(f[7]), inode: f[9]! };
  }
  return null;
}

async function ownerPidDefault(inode: string): Promise<number | null> {
  const target = `socket:[${inode}]`;
  for await (const p of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(p.name)) continue;
    try {
      for await (const fd of Deno.readDir(`/proc/${p.name}/fd`)) {
        if (await Deno.readLink(`/proc/${p.name}/fd/${fd.name}`).catch(() => "") === target) {
          return Number(p.name);
        }
      }
    } catch {
      // another user's process: its descriptors are not ours to read
    }
  }
  return null;
}

/**
 * Who holds `port`, when it is an agent.
 * @param port the usual port
 * @param deps fetch, OS, file reading
 * @returns the other agent, or null when no agent answers there (another program, or free)
 * @throws never
 */
export async function whoHoldsPort(
  port: number,
  deps: PortHolderDeps = {},
): Promise<PortHolder | null> {
  const agent = await probeAgent(port, deps.fetch ?? fetch);
  if (!agent) return null;
  const base = { port, version: agent.version, user: null, dataDir: null, sameUser: null };
  if ((deps.os ?? Deno.build.os) !== "linux") return base;
  const read = deps.readTextFile ?? Deno.readTextFile;
  try {
    const l = listenerOf(await read("/proc/net/tcp"), port);
    if (!l) return base;
    const passwd = await read("/etc/passwd").catch(() => "");
    const user = passwd.split("\n").map((x) => x.split(":")).find((x) => Number(x[2]) === l.uid)
      ?.[0] ?? `uid ${l.uid}`;
    const me = (deps.uid ?? (() => Deno.uid()))();
    const sameUser = me === null ? null : me === l.uid;
    let dataDir: string | null = null;
    if (sameUser) {
      const pid = await (deps.socketOwnerPid ?? ownerPidDefault)(l.inode);
      if (pid !== null) {
        const args = (await read(`/proc/${pid}/cmdline`).catch(() => "")).split("\0");
        const i = args.indexOf("--data-dir");
        dataDir = i >= 0 ? args[i + 1] ?? null : null;
      }
    }
    return { ...base, user, dataDir, sameUser };
  } catch {
    return base;
  }
}

/**
 * How to stop another agent, in words: this user's with `agent stop` (its data folder named
 * when known), another user's in that user's session (its console's "Stop the agent", or
 * `agent stop` there).
 */
function stopWords(h: PortHolder, program: string): { bg: string; en: string } {
  const cmd = `${program} agent stop${h.dataDir ? ` --data-dir ${h.dataDir}` : ""}`;
  if (h.sameUser === true) return { bg: `изпълнете ${cmd}`, en: `run ${cmd}` };
  const user = h.user ?? "";
  return h.sameUser === false
    ? {
      bg:
        `в профила на потребителя ${user}: бутонът „Спри агента“ в конзолата му или ${program} agent stop`,
      en:
        `in the session of user ${user}: "Stop the agent" in its console, or ${program} agent stop`,
    }
    : {
      bg: `бутонът „Спри агента“ в конзолата му или ${cmd}`,
      en: `"Stop the agent" in its console, or ${cmd}`,
    };
}

/**
 * Another agent of this computer on another port of the range, seen from the agent that holds
 * the usual port (integrators' pages talk to this one; the other is one too many), and how to
 * stop it — the first agent's side of the two-agents warning.
 * @param h the other agent (`port`: where it runs)
 * @param program the program's name as the person has it (`svc-filing`)
 * @returns one sentence each
 * @throws never
 */
export function otherAgentWords(h: PortHolder, program = "svc-filing"): { bg: string; en: string } {
  const how = stopWords(h, program);
  return {
    bg: `Още един агент работи на този компютър, на порт ${h.port} (${
      whoWords(h).bg
    }). Уеб страниците на счетоводната програма говорят с този агент; другият е излишен. Спрете другия агент: ${how.bg}.`,
    en: `Another agent also runs on this computer, on port ${h.port} (${
      whoWords(h).en
    }). The accounting application's pages talk to this agent; the other one is one too many. Stop the other agent: ${how.en}.`,
  };
}

/**
 * The other agents on the range's ports but this agent's own, as {@link whoHoldsPort} names them.
 * @param ownPort this agent's port
 * @param ports the range (start/running.ts `agentPortRange`)
 * @param deps as {@link whoHoldsPort}
 * @returns the agents found, by port
 * @throws never
 */
export async function otherAgentsOnRange(
  ownPort: number,
  ports: readonly number[],
  deps: PortHolderDeps = {},
): Promise<PortHolder[]> {
  const found = await Promise.all(
    ports.filter((p) => p !== ownPort).map((p) => whoHoldsPort(p, deps)),
  );
  return found.filter((h): h is PortHolder => h !== null);
}

/** Who the other agent is: version, user, data folder, as far as known. */
function whoWords(h: PortHolder): { bg: string; en: string } {
  return {
    bg: [
      `версия ${h.version}`,
      h.user ? `потребител ${h.user}` : "",
      h.dataDir ? `папка с данни ${h.dataDir}` : "",
    ].filter(Boolean).join(", "),
    en: [
      `version ${h.version}`,
      h.user ? `user ${h.user}` : "",
      h.dataDir ? `data folder ${h.dataDir}` : "",
    ].filter(Boolean).join(", "),
  };
}

/**
 * The other agent and what to do, in Bulgarian and English (terminal, Status, the banner).
 * @param h the other agent
 * @param ownPort the port this agent took instead
 * @param program the program's name as the person has it, in the stop command (`svc-filing`)
 * @returns one sentence each
 * @throws never
 */
export function portHolderWords(
  h: PortHolder,
  ownPort: number,
  program = "svc-filing",
): { bg: string; en: string } {
  const how = stopWords(h, program);
  const { bg: who, en: whoEn } = whoWords(h);
  return {
    bg:
      `Друг агент на този компютър държи обичайния порт ${h.port} (${who}); този агент работи на ${ownPort} и уеб страниците на счетоводната програма говорят с другия. Спрете другия агент (${how.bg}) и стартирайте този отново; на един компютър трябва да работи един агент.`,
    en:
      `Another agent on this computer holds the usual port ${h.port} (${whoEn}); this agent runs on ${ownPort}, and the accounting application's pages talk to the other one. Stop the other agent (${how.en}) and start this one again; one agent per computer.`,
  };
}
