/**
 * The agent's two-phase start (docs/running.md). Phase 1 — this module, which imports
 * nothing but Deno's runtime — takes the instance lock, listens, and answers `GET /health` with
 * `status: "starting"` while phase 2 loads the operation modules (the zod contract, Hono, jose,
 * the NRA formats, the test portal) and reconciles the journal. Every other request, and a
 * `/health` from a web page (it carries `Origin`, so it needs the CORS policy of the full app),
 * waits for phase 2 and is then served by the full app: nothing is refused while the agent
 * starts. Measured in BENCHMARKS.md § Agent cold start (`deno run -A scripts/bench_agent_start.ts`).
 * @module
 */

/**
 * Whether a `Host` header names this agent: `127.0.0.1`, `localhost` or `[::1]` on one of its
 * ports (DNS-rebinding guard, src/agent/http/host_guard.ts).
 * @param host the `Host` header (any case)
 * @param ports the listening ports (HTTP, and HTTPS when enabled)
 * @returns true when the request is addressed to this agent
 */
export function isOwnHost(host: string, ports: readonly number[]): boolean {
  const h = host.toLowerCase();
  return ports.some((p) => h === `127.0.0.1:${p}` || h === `localhost:${p}` || h === `[::1]:${p}`);
}

/** What phase 1 needs before any module loads: where to listen and where the lock lives. */
export interface EarlySettings {
  /** TCP port on 127.0.0.1 (0 = any free port). */
  readonly port: number;
  /** The agent's data directory (holds the instance lock). */
  readonly dataDir: string;
}

/**
 * The port and data directory from the CLI flags and environment, when they are plainly valid;
 * `null` sends the start down the ordinary path, where the zod config (src/config.ts) reports
 * what is wrong. Precedence is the config's: flag, then variable, then default.
 * @param flags `--port` and `--data-dir` as given (or undefined)
 * @param env the environment (`SVC_AGENT_PORT`, `SVC_DATA_DIR`)
 * @param defaults the default port and the per-OS data directory
 * @returns the settings, or null
 */
export function earlySettings(
  flags: { port?: string | undefined; dataDir?: string | undefined },
  env: Record<string, string | undefined>,
  defaults: { port: number; dataDir: string },
): EarlySettings | null {
  const rawPort = flags.port ?? (env.SVC_AGENT_PORT || undefined);
  const dataDir = flags.dataDir ?? (env.SVC_DATA_DIR || undefined) ?? defaults.dataDir;
  if (!dataDir) return null;
  if (rawPort === undefined) return { port: defaults.port, dataDir };
  if (!/^\d{1,5}$/.test(rawPort) || Number(rawPort) > 65535) return null;
  return { port: Number(rawPort), dataDir };
}

/**
 * Recognises the plain `agent` command line before the CLI (commander, Node compatibility)
 * loads — loading it costs milliseconds of the first answer: only `--port`, `--data-dir` and
 * `--token-service`, each at most once, as `--flag value` or `--flag=value`. Anything else — a
 * subcommand, another flag, a repeated flag, `--` — returns null and the start takes the ordinary
 * path, where the CLI (src/cli/program.ts) reads the command line and reports what is wrong.
 * When this returns flags, the CLI still parses the same arguments and cross-checks the port and
 * data directory, so the two readings cannot drift apart unnoticed.
 * @param args the arguments after `agent`
 * @returns `--port`, `--data-dir` and `--token-service` as given (undefined when absent), or null
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(earlyAgentFlags(["--port=0", "--data-dir", "/tmp/a"]), { port: "0", dataDir: "/tmp/a" });
 * ```
 */
export function earlyAgentFlags(
  args: readonly string[],
): { port?: string; dataDir?: string; tokenService?: string } | null {
  const names: Record<string, "port" | "dataDir" | "tokenService"> = {
    "--port": "port",
    "--data-dir": "dataDir",
    "--token-service": "tokenService",
  };
  const seen: Partial<Record<"port" | "dataDir" | "tokenService", string>> = {};
  for (let i = 0; i < args.length; i++) {
    // non-null: i < args.length
    const arg = args[i]!;
    const eq = arg.indexOf("=");
    const key = eq > 0 ? arg.slice(0, eq) : arg;
    const name = Object.hasOwn(names, key) ? names[key] : undefined;
    if (!name || name in seen) return null;
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || (eq < 0 && value.startsWith("-"))) return null;
    seen[name] = value;
  }
  return {
    ...(seen.port !== undefined ? { port: seen.port } : {}),
    ...(seen.dataDir !== undefined ? { dataDir: seen.dataDir } : {}),
    ...(seen.tokenService !== undefined ? { tokenService: seen.tokenService } : {}),
  };
}

/** The `/health` body while phase 2 runs (HealthResponse with `status: "starting"`). */
export interface StartingHealth {
  readonly status: "starting";
  readonly service: "svc-agent";
  readonly version: string;
  readonly port: number;
  readonly latestVersion: null;
  readonly updateAvailable: false;
}

/** A request handler that serves early and hands over to the full app once it is ready. */
export interface EarlyHandler {
  /** The handler for `Deno.serve` (its info, the client's address, goes on to the app). */
  readonly fetch: (req: Request, info?: Deno.ServeHandlerInfo) => Response | Promise<Response>;
  /** Phase 2 is done: from now on every request goes to `app`. */
  ready(app: (req: Request, info?: Deno.ServeHandlerInfo) => Response | Promise<Response>): void;
  /** Phase 2 failed (the process is exiting): waiting requests get 502 AGENT_INTERNAL_ERROR. */
  failed(): void;
  /**
   * Settles when the server has taken the body of phase 1's first `/health` answer, i.e. the
   * answer is being written (see {@link phase2Start}).
   */
  readonly answered: Promise<void>;
}

/**
 * How long phase 2 waits, at most, for a first `/health` before it starts loading (ms). Loading
 * blocks the event loop in steps of 10–45 ms; a caller already polling `/health` without an
 * `Origin` (the integrator kit's discovery from its server or CLI, a second starter's instance
 * check, monitoring, the benchmark) gets its first answer before that. A web page's `/health`
 * carries `Origin` and waits for phase 2 (it needs the full app's CORS answer).
 */
export const EARLY_GRACE_MS = 20;

/**
 * When phase 2 may start: one loop turn after the server has taken the body of the first
 * `/health` answer ({@link EarlyHandler.answered}), or after {@link EARLY_GRACE_MS} when nobody
 * asked.
 * @param handler the phase-1 handler
 * @param graceMs the longest wait (ms)
 * @returns a promise that settles when phase 2 may start; never rejects
 */
export async function phase2Start(
  handler: Pick<EarlyHandler, "answered">,
  graceMs = EARLY_GRACE_MS,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    handler.answered,
    new Promise<void>((r) => timer = setTimeout(r, graceMs)),
  ]);
  clearTimeout(timer);
  await new Promise<void>((r) => setTimeout(r, 0));
}

/**
 * Build the phase-1 handler.
 * @param version the agent's version (for `/health`)
 * @param ports the listening ports, read per request (the port is known only after listening)
 * @returns the handler; answers `GET /health` (own Host, no Origin) itself with
 *   {@link StartingHealth}; any other request waits for {@link EarlyHandler.ready}
 */
export function createEarlyHandler(version: string, ports: () => readonly number[]): EarlyHandler {
  type Fetch = (req: Request, info?: Deno.ServeHandlerInfo) => Response | Promise<Response>;
  let app: Fetch | null = null;
  let settle!: (ok: boolean) => void;
  const phase2 = new Promise<boolean>((r) => settle = r);
  let answer!: () => void;
  const answered = new Promise<void>((r) => answer = r);
  const early = async (req: Request, info?: Deno.ServeHandlerInfo): Promise<Response> => {
    const url = new URL(req.url);
    if (
      req.method === "GET" && url.pathname === "/health" && !req.headers.has("origin") &&
      isOwnHost(req.headers.get("host") ?? url.host, ports())
    ) {
      const body: StartingHealth = {
        status: "starting",
        service: "svc-agent",
        version,
        // non-null: the agent's port list is never empty (the range it may take)
        port: ports()[0]!,
        latestVersion: null,
        updateAvailable: false,
      };
      // Settle `answered` once the server has taken the whole body (then it writes it): loading
      // must not block the loop before this answer is on its way.
      const bytes = new TextEncoder().encode(JSON.stringify(body));
      const stream = new ReadableStream<Uint8Array>({
        pull(c) {
          c.enqueue(bytes);
          c.close();
          answer();
        },
        cancel: () => answer(),
      });
      return new Response(stream, {
        headers: {
          "content-type": "application/json",
          "content-length": String(bytes.length),
          "cache-control": "no-store",
        },
      });
    }
    const ok = await phase2;
    if (!ok || !app) {
      // Written out here rather than through the error catalog (contract/errors.ts): phase 1
      // loads nothing of the contract; AGENT_INTERNAL_ERROR (PORTAL, 502) as the catalog says.
      return Response.json({
        error: "The agent failed to start (see its log)",
        errorCode: "AGENT_INTERNAL_ERROR",
        errorKind: "PORTAL",
      }, { status: 502 });
    }
    return app(req, info);
  };
  return {
    // Once ready, straight to the app: no extra promise on the hot path.
    fetch: (req, info) => app ? app(req, info) : early(req, info),
    ready: (full) => {
      app = full;
      settle(true);
    },
    failed: () => settle(false),
    answered,
  };
}
