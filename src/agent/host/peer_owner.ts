/**
 * One OS user per agent (docs/running.md § Shared PCs): whether the program at the other end of
 * a connection runs as the OS user the agent runs as. Linux reads the socket's uid from
 * `/proc/net/tcp` (peer_linux.ts); Windows asks for the owning process of the socket and its
 * token's user SID (peer_win32.ts). macOS is not enforced: its equivalent would be the owning
 * process of the socket through `proc_pidinfo(PROC_PIDFDSOCKETINFO)` over the processes
 * (`proc_listpids`, what `lsof -i` does) and that process's uid (`proc_pidinfo(PROC_PIDTBSDINFO)`,
 * `pbi_uid`), not built or run here.
 * @module
 */
import { linuxPeerUid, type PeerAddr } from "./peer_linux.ts";
import { win32SameUser } from "./peer_win32.ts";

export type { PeerAddr } from "./peer_linux.ts";

/** Whether a connection's client runs as the agent's user; its answer for one connection. */
export type SameUserCheck = (peer: PeerAddr, serverPorts: readonly number[]) => boolean;

/**
 * The check for this OS, or null where it is not enforced (macOS and others).
 * @param os Deno.build.os
 * @param ownUid the agent's uid (Linux; default Deno.uid())
 * @returns the check, or null
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(sameUserCheck("darwin"), null);
 * ```
 */
export function sameUserCheck(
  os: string,
  ownUid: number | null = os === "linux" ? Deno.uid() : null,
): SameUserCheck | null {
  if (os === "linux" && ownUid !== null) {
    return (peer, ports) => linuxPeerUid(peer, ports) === ownUid;
  }
  if (os === "windows") return win32SameUser;
  return null;
}
