/**
 * One OS user per agent (docs/running.md § Shared PCs): on a shared computer (a terminal server)
 * every user's programs reach 127.0.0.1, so the agent answers only connections whose other end
 * runs as the OS user the agent runs as — another user's browser or program gets 403
 * `PEER_OTHER_USER` before anything is read, confirmed or filed, and the refusal is logged. Only
 * `GET /health` stays open to everyone: it tells another user's agent (or the doctor) that this
 * port is taken, and by which version (start/port_holder.ts), and nothing else.
 *
 * The check itself is the OS's (host/peer_owner.ts: `/proc/net/tcp` on Linux, the TCP table and
 * the process token on Windows); it gets the connection's remote address from Deno's serve
 * handler info (`info.remoteAddr`, Hono's `c.env`). A request without one — not served over TCP
 * — is refused too.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../contract/mod.ts";
import type { Logger } from "../../log.ts";

/** Whether the client at `peer` runs as the agent's user (host/peer_owner.ts). */
export type PeerCheck = (
  peer: { readonly hostname: string; readonly port: number },
  serverPorts: readonly number[],
) => boolean;

/**
 * The middleware.
 * @param check the OS's check
 * @param ports the agent's ports on 127.0.0.1 (HTTP, and HTTPS when enabled)
 * @param log where a refusal is said
 * @returns Hono middleware throwing PEER_OTHER_USER (403)
 */
export function peerGuard(
  check: PeerCheck,
  ports: () => readonly number[],
  log: Logger,
): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === "GET" && c.req.path === "/health") return await next();
    const remote = (c.env as { remoteAddr?: Deno.Addr } | undefined)?.remoteAddr;
    let ok = false;
    if (remote?.transport === "tcp") {
      try {
        ok = check({ hostname: remote.hostname, port: remote.port }, ports());
      } catch (e) {
        log("error", "peer owner check failed", { error: String(e) });
      }
    }
    if (!ok) {
      log("warn", "connection of another OS user refused", {
        method: c.req.method,
        path: c.req.path,
        peer: remote?.transport === "tcp" ? `${remote.hostname}:${remote.port}` : null,
      });
      throw new AppError(
        "PEER_OTHER_USER",
        "This agent answers only programs of the OS user it runs as",
      );
    }
    await next();
  };
}
