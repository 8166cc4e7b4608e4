/**
 * The token service's start, step 4 of 4 (docs/architecture.md § The start): serve until SIGINT
 * or SIGTERM, gracefully (docs/token-service.md § Operations): `/ready` answers 503 and every
 * answer closes its connection until no request came for 0.5 s (at most
 * SVC_SHUTDOWN_DELAY_SECONDS), so the load balancer and keep-alive clients move on; then the
 * listener closes, the running requests finish, usage is flushed and the store closed.
 * @module
 */
import type { Logger } from "../log.ts";
import type { Cli } from "./context.ts";
import { say } from "./output.ts";
import { shutdownOnSignal } from "./process.ts";
import type { RunningTokenService } from "./token_servers.ts";

/**
 * Step 4: serve until a signal stops the service; say its public URL and where it listens.
 * @param cli the run's context (`cli.serving` is set)
 * @param running the running service
 * @param log where "shutting down" goes
 */
export function serveTokenUntilSignal(cli: Cli, running: RunningTokenService, log: Logger): void {
  const { server, service, store, drain } = running;
  shutdownOnSignal(server, log, async () => {
    await service.stop();
    await store.close();
  }, drain);
  // The public URL first (what integrators and agents use), then where it listens if elsewhere.
  const at = running.listenUrl === running.url ? "" : ` (listening on ${running.listenUrl})`;
  say(cli, `Token service: ${running.url}${at}`);
  cli.serving = true;
}
