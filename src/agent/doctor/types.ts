/**
 * The shapes every `agent doctor` check shares: one result line ({@link DoctorCheck}), in English
 * and Bulgarian, what the checks need ({@link DoctorDeps}) and the {@link check} constructor.
 * @module
 */
import type { Bilingual } from "../../contract/mod.ts";
import type { AgentFile } from "../senders/mod.ts";
import type { OwnAgent } from "../start/mod.ts";
import type { KeyStore, ModuleCandidate } from "../../signing/mod.ts";

/**
 * One result line. `title`, `detail` and `fix` are English; `titleBg`, `detailBg` and `fixBg`
 * say the same in Bulgarian (for the accountants' console; names of files, programs, settings and
 * error messages from the OS or a library stay as they are). `fix` and `fixBg` are a concrete
 * instruction whenever `ok` is not `true`, else null.
 */
export interface DoctorCheck {
  readonly id: string;
  readonly ok: boolean | "warn";
  readonly title: string;
  readonly detail: string;
  readonly fix: string | null;
  readonly titleBg: string;
  readonly detailBg: string;
  readonly fixBg: string | null;
}

/**
 * What the doctor needs; everything but dataDir and tokenServiceUrl has a real default.
 * From inside the running agent pass `selfPort` (the port it listens on).
 */
export interface DoctorDeps {
  readonly dataDir: string;
  /** The token service of the configuration (--token-service, SVC_TOKEN_SERVICE_URL, default). */
  readonly tokenServiceUrl: string;
  /**
   * Where `tokenServiceUrl` came from. "config" (default): when this data folder's agent runs and
   * recorded the URL it was started with (agent.running.json), that URL is checked instead: it is
   * the one the agent uses (the demo's token service has a random port). "flag": given for this
   * run (`agent doctor --token-service`), checked as it is.
   */
  readonly tokenServiceSource?: "config" | "flag";
  /**
   * Set when the doctor runs inside the agent: the port this agent listens on. The port check then
   * names this port as the agent's own (it is not free because the agent holds it), no file is
   * read to find the agent, and `tokenServiceUrl` is taken as the agent's own.
   */
  readonly selfPort?: number;
  readonly fetch?: typeof fetch;
  /** Milliseconds since the epoch. */
  readonly now?: () => number;
  /** The agent's port and its fallbacks, preferred first (default 17470–17479). */
  readonly ports?: readonly number[];
  /** Whether 127.0.0.1:port can be bound now (default: try Deno.listen). */
  readonly portFree?: (port: number) => Promise<boolean>;
  /** Whether a process exists (default: processAlive of src/agent/start/). */
  readonly isAlive?: (pid: number) => Promise<boolean>;
  readonly readAgentFile?: (dataDir: string) => Promise<AgentFile>;
  readonly openPkcs11?: (modulePath: string, tokenLabel?: string) => Promise<KeyStore>;
  readonly discoverModules?: () => Promise<ModuleCandidate[]>;
  readonly os?: typeof Deno.build.os;
  readonly arch?: string;
  /** Network timeout (default 3000 ms). */
  readonly timeoutMs?: number;
}

/** {@link DoctorDeps} with every default filled in (used by the check modules). */
export type ResolvedDoctorDeps = Required<Omit<DoctorDeps, "selfPort">> & {
  readonly selfPort?: number;
};

/** This data folder's agent as the checks see it: from `selfPort` ("this-process"), else found. */
export interface SelfAgent extends Omit<OwnAgent, "from"> {
  readonly from: OwnAgent["from"] | "this-process";
}

/** One result line; `fix` only where `ok` is not `true`. */
export const check = (
  id: string,
  ok: DoctorCheck["ok"],
  title: Bilingual,
  detail: Bilingual,
  fix: Bilingual | null = null,
): DoctorCheck => ({
  id,
  ok,
  title: title.en,
  detail: detail.en,
  fix: fix?.en ?? null,
  titleBg: title.bg,
  detailBg: detail.bg,
  fixBg: fix?.bg ?? null,
});
