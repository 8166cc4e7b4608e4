/**
 * The shapes every `agent doctor` check shares: one result line ({@link DoctorCheck}), what the
 * checks need ({@link DoctorDeps}) and the {@link check} constructor.
 * @module
 */
import type { AgentFile } from "../senders/mod.ts";
import type { KeyStore, ModuleCandidate } from "../../signing/mod.ts";

/** One result line. `fix` is a concrete instruction whenever `ok` is not `true`. */
export interface DoctorCheck {
  readonly id: string;
  readonly ok: boolean | "warn";
  readonly title: string;
  readonly detail: string;
  readonly fix: string | null;
}

/** What the doctor needs; everything but dataDir and tokenServiceUrl has a real default. */
export interface DoctorDeps {
  readonly dataDir: string;
  readonly tokenServiceUrl: string;
  readonly fetch?: typeof fetch;
  /** Milliseconds since the epoch. */
  readonly now?: () => number;
  /** The agent's port and its fallbacks, preferred first (default 17470–17479). */
  readonly ports?: readonly number[];
  /** Whether 127.0.0.1:port can be bound now (default: try Deno.listen). */
  readonly portFree?: (port: number) => Promise<boolean>;
  readonly readAgentFile?: (dataDir: string) => Promise<AgentFile>;
  readonly openPkcs11?: (modulePath: string, tokenLabel?: string) => Promise<KeyStore>;
  readonly discoverModules?: () => Promise<ModuleCandidate[]>;
  readonly os?: typeof Deno.build.os;
  readonly arch?: string;
  /** Network timeout (default 3000 ms). */
  readonly timeoutMs?: number;
}

/** {@link DoctorDeps} with every default filled in (used by the check modules). */
export type ResolvedDoctorDeps = Required<DoctorDeps>;
/** One result line; `fix` only where `ok` is not `true`. */
export const check = (
  id: string,
  ok: DoctorCheck["ok"],
  title: string,
  detail: string,
  fix: string | null = null,
): DoctorCheck => ({ id, ok, title, detail, fix });
