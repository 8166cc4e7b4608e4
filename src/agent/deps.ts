/**
 * What the agent's app is built from ({@link AgentDeps}): every side effect (clock, log,
 * portals, browser opener, key stores through the senders, local files, pickers, journal) is
 * passed in, so tests build the app in-process and `src/cli/` wires the real ones.
 * @module
 */
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { PortalAdapter } from "../portal/mod.ts";
import type {
  CallerBook,
  OriginPolicy,
  PeerCheck,
  RateLimitSettings,
  TokenVerifier,
} from "./http/mod.ts";
import type { SenderConfig } from "./senders/mod.ts";
import type { LocalOps } from "./local/mod.ts";
import type { Pickers } from "./host/mod.ts";
import type { HoldPoint, Journal } from "./filing/mod.ts";
import type { ConsoleDeps } from "./console/mod.ts";

/** Dependencies of `createAgentApp`. */
export interface AgentDeps {
  readonly clock: Clock;
  readonly log: Logger;
  /** JWKS key lookup and expected issuer/audience. */
  readonly verifier: Omit<TokenVerifier, "clock" | "jtis" | "agentVersion">;
  readonly senders: readonly SenderConfig[];
  readonly portals: { readonly test: PortalAdapter; readonly live?: PortalAdapter };
  /** Opens a URL in the user's default browser. */
  readonly openBrowser: (url: string) => void;
  /** The port the agent listens on (for the Host check and the page URL). */
  readonly port: () => number;
  /** Newest agent version the token service knows (for /health), or null. */
  readonly latestVersion?: () => string | null;
  /** The HTTPS port when loopback TLS is on (see tls.ts), else null. */
  readonly tlsPort?: () => number | null;
  readonly confirmTimeoutMs?: number;
  readonly maxPendingConfirmations?: number;
  /** Local file operations (scans, parse, reading submission files). */
  readonly localOps?: LocalOps;
  readonly pickers?: Pickers;
  /** Body limit of operation requests, bytes (default 64 MiB). */
  readonly maxBodyBytes?: number;
  readonly agentVersion?: string;
  /** Which page origins may call (CORS); default: none but the agent's own. */
  readonly originPolicy?: OriginPolicy;
  readonly rateLimits?: Partial<RateLimitSettings>;
  /** The submission journal (absent: filings are not journaled). */
  readonly journal?: Journal;
  /** Crash-test instrumentation (SVC_TEST_HOLD_AT). */
  readonly hold?: (point: HoldPoint, filingId: string) => Promise<void>;
  /** Swagger UI's files for `/docs` (the portable package's copy); default: node_modules. */
  readonly docsAssetsDir?: URL;
  /** Who called in the last 30 days (the console's status page); absent: not recorded. */
  readonly callers?: CallerBook;
  /** The console's side effects (data folder, autostart, doctor, log lines); absent: the
   * console only explains how to open it. */
  readonly console?: ConsoleDeps;
  /** Filings of a folder-wide batch in flight to the portal at once (default 4; agent.json
   * `batch.concurrency`). */
  readonly batchConcurrency?: number;
  /** Whether a connection's client runs as the agent's OS user (host/peer_owner.ts); absent:
   * not checked (macOS, in-process tests). docs/running.md § Shared PCs. */
  readonly sameUser?: PeerCheck;
  /** A new unique id (request ids, journal rows); default `crypto.randomUUID`. */
  readonly randomId?: () => string;
}
