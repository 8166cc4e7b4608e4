/**
 * What the console needs from the composition ({@link ConsoleDeps}) and what every console
 * route is built with ({@link ConsoleContext}). Side effects (the data folder, autostart, the
 * doctor, certificate discovery, the OS user) are passed in, so tests drive the console with
 * real files in a temporary folder and the CLI wires the real ones.
 * @module
 */
import type { Clock } from "../../clock.ts";
import type { Logger, LogRing } from "../../log.ts";
import type { PortalAdapter } from "../../portal/mod.ts";
import type { DoctorCheck } from "../doctor/mod.ts";
import type { BatchBoard, Journal } from "../filing/mod.ts";
import type { AutostartStatus, Pickers } from "../host/mod.ts";
import type { CallerBook } from "../http/mod.ts";
import type { PortHolder } from "../start/mod.ts";
import type { DiscoverDeps, SenderConfig } from "../senders/mod.ts";
import type { ConsoleSessions } from "./session.ts";

/** Start-at-login, as the status page's toggle drives it. */
export interface AutostartControl {
  status(): Promise<AutostartStatus>;
  /** Register (true) or remove (false) the login entry. */
  set(on: boolean): Promise<AutostartStatus>;
}

/** The console's side effects, wired by `src/cli/agent_servers.ts`. */
export interface ConsoleDeps {
  /** The agent's data folder (agent.json, the journal). */
  readonly dataDir: string;
  /** The token service this agent trusts. */
  readonly tokenServiceUrl: string;
  /** The secret `agent open` presents to get a one-time link (from `console.secret`). */
  readonly linkSecret?: string;
  /** The last log lines. */
  readonly logs?: LogRing;
  readonly autostart?: AutostartControl;
  /** Runs the doctor's checks for this agent. */
  readonly doctor?: () => Promise<DoctorCheck[]>;
  /** The OS user's name (who resolved an unknown filing). */
  readonly osUser?: () => string;
  /** fetch for reachability checks (default globalThis.fetch). */
  readonly fetch?: typeof fetch;
  /** Where the live portal is, when agent.json configures it. */
  readonly livePortalUrl?: string | null;
  /** Certificate discovery's side effects (tests: the module list); default: this OS. */
  readonly discovery?: DiscoverDeps;
  /** Another agent on the usual port, when this one had to take another (start/port_holder.ts). */
  readonly portHolder?: () => PortHolder | null;
  /** Other agents on the range's other ports (this agent holds the usual one), looked for now
   * and then: each console page warns of the first (start/port_holder.ts). */
  readonly otherAgents?: () => Promise<readonly PortHolder[]>;
  /** The program's name as the person has it (`svc-filing`, `main.ts`), in commands shown. */
  readonly program?: string;
  /** Deno.build.os of this agent: how the page without a session says to open the console. */
  readonly os?: string;
  /** The command that opens the console as the person has it (default `svc-filing agent open`). */
  readonly openCommand?: string;
  /** The command that starts the agent as the person has it (default `svc-filing agent`). */
  readonly startCommand?: string;
  /** Opens a URL in this user's default browser; absent (SVC_OPEN_BROWSER=never): the page
   * without a session does not offer to open the console. */
  readonly openBrowser?: (url: string) => void;
  /** Stops this agent as SIGTERM does (filings under way finish, pending confirmations are
   * declined); absent: the console and `agent stop` say it cannot be stopped from here. */
  readonly stop?: () => void;
}

/** The agent's current senders, replaced when the console changes agent.json. */
export interface SenderBook {
  current(): readonly SenderConfig[];
  /** Read agent.json again (after a console change). */
  reload(): Promise<void>;
}

/** What the console routes are built with. */
export interface ConsoleContext {
  readonly clock: Clock;
  readonly log: Logger;
  readonly sessions: ConsoleSessions;
  readonly port: () => number;
  readonly version: string;
  readonly latestVersion: () => string | null;
  readonly senders: SenderBook;
  readonly portals: { readonly test: PortalAdapter; readonly live?: PortalAdapter };
  readonly journal?: Journal;
  /** Folder-wide filings running or finished lately (the Filings page shows them). */
  readonly batches?: BatchBoard;
  readonly callers?: CallerBook;
  readonly pickers?: Pickers;
  readonly console?: ConsoleDeps;
}
