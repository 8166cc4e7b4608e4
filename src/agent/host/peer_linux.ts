/**
 * Which OS user owns the other end of a loopback TCP connection, on Linux (docs/running.md
 * § Shared PCs). The client's socket is the one whose local end is the connection's remote
 * address (the client's port) and whose remote end is the agent's port on 127.0.0.1; the kernel
 * knows the user who opened it.
 *
 * First asked of the kernel directly, through a `NETLINK_SOCK_DIAG` socket (libc over
 * `Deno.dlopen`; what `ss` uses): one `SOCK_DIAG_BY_FAMILY` request naming the exact connection
 * (`inet_diag_req_v2` with its `inet_diag_sockid`), answered by one `inet_diag_msg` with its
 * `idiag_uid` — a hash lookup, about 0.1 ms. A dual-stack client's socket is asked as IPv6 with
 * the IPv4-mapped address (`::ffff:127.0.0.1`). Where netlink cannot be used, the socket tables
 * `/proc/net/tcp` and `/proc/net/tcp6` are read instead (Documentation/networking/
 * proc_net_tcp.rst: `sl local_address rem_address st … uid`, an address as the hex of its bytes
 * in the kernel's word order — `0100007F` for 127.0.0.1 — and the port as four hex digits); that
 * walks the kernel's whole connection table and costs milliseconds on a machine with a large one
 * (BENCHMARKS.md § One OS user per agent).
 * @module
 */
import { fn } from "../../ffi.ts";

/** The client's end of a connection, as the server saw it (Deno's `info.remoteAddr`). */
export interface PeerAddr {
  readonly hostname: string;
  readonly port: number;
}

/** Reads a socket table (`/proc/net/tcp`, `/proc/net/tcp6`), or null when it cannot. */
export type ReadTable = (path: string) => string | null;

const readProc: ReadTable = (path) => {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return null;
  }
};

const hex2 = (n: number) => n.toString(16).toUpperCase().padStart(2, "0");
const hexPort = (p: number) => p.toString(16).toUpperCase().padStart(4, "0");

/**
 * An IPv4 address as the kernel prints it (a little-endian word: 127.0.0.1 → `0100007F`).
 * @param ip dotted IPv4
 * @returns eight hex digits, or null for anything else
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(procIpv4("127.0.0.1"), "0100007F");
 * equal(procIpv4("::1"), null);
 * ```
 */
export function procIpv4(ip: string): string | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return null;
  const b = m.slice(1).map(Number);
  if (b.some((x) => x > 255)) return null;
  return b.reverse().map(hex2).join("");
}

/**
 * The uid column of the socket whose local end is `local` and remote end is `remote`, among the
 * lines of one table (addresses and ports already in the table's hex form).
 */
function uidIn(table: string, local: string, remotes: readonly string[]): number | null {
  for (let at = table.indexOf(local); at >= 0; at = table.indexOf(local, at + 1)) {
    // `local` must be the line's local_address column: preceded by "N: ".
    if (table[at - 1] !== " " || table[at - 2] !== ":") continue;
    const end = table.indexOf("\n", at);
    const cols = table.slice(at, end < 0 ? undefined : end).trim().split(/\s+/);
    // local rem st queues tr retrnsmt uid …
    if (!remotes.includes(cols[1] ?? "")) continue;
    const uid = Number(cols[6]);
    if (Number.isInteger(uid)) return uid;
  }
  return null;
}

const AF_INET = 2;
const AF_INET6 = 10;
const NLMSG_ERROR = 2;
const SOCK_DIAG_BY_FAMILY = 20;
const MSG_DONTWAIT = 0x40;
const LIBC = {
  socket: fn(["i32", "i32", "i32"], "i32"),
  send: fn(["i32", "buffer", "usize", "i32"], "isize"),
  recv: fn(["i32", "buffer", "usize", "i32"], "isize"),
  close: fn(["i32"], "i32"),
};
let libc: Deno.DynamicLibrary<typeof LIBC>["symbols"] | null = null;
/** The netlink socket, kept open (-1: none yet; null: netlink cannot be used here). */
let diagFd: number | null = -1;

/** The `SOCK_DIAG_BY_FAMILY` request for one connection (nlmsghdr + inet_diag_req_v2). */
function diagRequest(family: number, src: number[], sport: number, dst: number[], dport: number) {
  const req = new Uint8Array(72);
  const v = new DataView(req.buffer);
  v.setUint32(0, req.byteLength, true); // nlmsg_len
  v.setUint16(4, SOCK_DIAG_BY_FAMILY, true);
  v.setUint16(6, 1, true); // NLM_F_REQUEST: one socket, no dump
  v.setUint8(16, family);
  v.setUint8(17, 6); // IPPROTO_TCP
  v.setUint32(20, 0xffffffff, true); // every state
  v.setUint16(24, sport, false); // inet_diag_sockid: ports big-endian, then addresses
  v.setUint16(26, dport, false);
  req.set(src, 28);
  req.set(dst, 44);
  v.setUint32(64, 0xffffffff, true); // INET_DIAG_NOCOOKIE
  v.setUint32(68, 0xffffffff, true);
  return req;
}

/** Ask the kernel for one socket's uid: the uid, null when there is no such socket, or
 * undefined when netlink cannot be used. */
function diagUid(req: Uint8Array): number | null | undefined {
  try {
    libc ??= Deno.dlopen("libc.so.6", LIBC).symbols;
  } catch {
    diagFd = null;
  }
  if (diagFd === null || !libc) return undefined;
  // AF_NETLINK (16), SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG (4)
  if (diagFd < 0) diagFd = libc.socket(16, 3 | 0o2000000, 4);
  if (diagFd < 0) {
    diagFd = null;
    return undefined;
  }
  if (Number(libc.send(diagFd, req, BigInt(req.byteLength), 0)) !== req.byteLength) {
    libc.close(diagFd);
    diagFd = -1;
    return undefined;
  }
  // The kernel answers in send()'s own call: the answer is there already (never block).
  const res = new Uint8Array(512);
  const n = Number(libc.recv(diagFd, res, BigInt(res.byteLength), MSG_DONTWAIT));
  if (n < 16) return undefined;
  const v = new DataView(res.buffer);
  if (v.getUint16(4, true) === NLMSG_ERROR) return null; // ENOENT: no such socket
  // nlmsghdr (16), inet_diag_msg: family, state, timer, retrans (4), id (48), expires,
  // rqueue, wqueue (12), uid.
  return n >= 84 ? v.getUint32(16 + 4 + 48 + 12, true) : undefined;
}

/** The uid through netlink (IPv4, then a dual-stack IPv6 socket), or undefined. */
function netlinkUid(ip: number[], port: number, serverPorts: readonly number[]) {
  const lo = [127, 0, 0, 1];
  const mapped = (a: number[]) => [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...a];
  for (const sp of serverPorts) {
    for (const [family, src, dst] of [[AF_INET, ip, lo], [AF_INET6, mapped(ip), mapped(lo)]]) {
      const uid = diagUid(
        diagRequest(family as number, src as number[], port, dst as number[], sp),
      );
      if (uid === undefined) return undefined;
      if (uid !== null) return uid;
    }
  }
  return null;
}

/**
 * The uid that owns the client's socket of a loopback connection to one of `serverPorts`.
 * @param peer the connection's remote end (the client: 127.0.0.1 and its port)
 * @param serverPorts the agent's ports on 127.0.0.1 (HTTP, HTTPS)
 * @param read reads a socket table instead of asking netlink (tests; default: netlink, else
 *   /proc)
 * @returns the uid, or null when there is no such socket (gone, or not IPv4 loopback)
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const tcp = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n" +
 *   "   0: 0100007F:4446 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000\n" +
 *   "   1: 0100007F:C350 0100007F:4446 01 00000000:00000000 00:00000000 00000000  1001\n";
 * equal(linuxPeerUid({ hostname: "127.0.0.1", port: 50000 }, [17478], () => tcp), 1001);
 * ```
 */
export function linuxPeerUid(
  peer: PeerAddr,
  serverPorts: readonly number[],
  read?: ReadTable,
): number | null {
  const ip = procIpv4(peer.hostname);
  if (ip === null || !Number.isInteger(peer.port)) return null;
  if (!read) {
    const bytes = peer.hostname.split(".").map(Number);
    const uid = netlinkUid(bytes, peer.port, serverPorts);
    if (uid !== undefined) return uid;
  }
  return procPeerUid(ip, peer.port, serverPorts, read ?? readProc);
}

/** {@link linuxPeerUid} from the socket tables in /proc (or `read`'s). */
function procPeerUid(
  ip: string,
  port: number,
  serverPorts: readonly number[],
  read: ReadTable,
): number | null {
  const local = `${ip}:${hexPort(port)}`;
  // The client connected to the agent on 127.0.0.1 (it listens there only).
  const remotes = serverPorts.map((p) => `0100007F:${hexPort(p)}`);
  const v4 = read("/proc/net/tcp");
  const found = v4 === null ? null : uidIn(v4, local, remotes);
  if (found !== null) return found;
  const v6 = read("/proc/net/tcp6");
  if (v6 === null) return null;
  // ::ffff:a.b.c.d: words 0000 0000, 0000 0000, FFFF 0000 (little-endian 0x0000FFFF), a.b.c.d.
  const mapped = (h: string) => `0000000000000000FFFF0000${h}`;
  return uidIn(v6, mapped(local), remotes.map(mapped));
}
