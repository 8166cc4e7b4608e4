/**
 * Which Windows user owns the other end of a loopback TCP connection (docs/running.md § Shared
 * PCs), through the Windows API over `Deno.dlopen`:
 *
 * 1. `GetExtendedTcpTable(AF_INET, TCP_TABLE_OWNER_PID_ALL)` (iphlpapi.dll) lists the machine's
 *    IPv4 TCP connections with their owning process id (`MIB_TCPROW_OWNER_PID`: state, local
 *    address, local port, remote address, remote port, pid — six DWORDs; addresses and ports in
 *    network byte order). The client's row is the one whose local end is the connection's
 *    remote address and whose remote port is one of the agent's.
 * 2. `OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION)`, `OpenProcessToken(TOKEN_QUERY)` and
 *    `GetTokenInformation(TokenUser)` (kernel32.dll, advapi32.dll) give that process's user SID,
 *    compared byte for byte (`GetLengthSid`) with the agent's own process's.
 *
 * Another user's process usually cannot even be opened (`ERROR_ACCESS_DENIED`): that, like a
 * row not found, counts as another user — the agent answers only what it can prove is its own.
 * @module
 */
import type { PeerAddr } from "./peer_linux.ts";
import { UserError } from "../../user_error.ts";
import { fn } from "../../ffi.ts";

const AF_INET = 2;
const TCP_TABLE_OWNER_PID_ALL = 5;
const ERROR_INSUFFICIENT_BUFFER = 122;
const PROCESS_QUERY_LIMITED_INFORMATION = 0x1000;
const TOKEN_QUERY = 0x0008;
const TOKEN_USER = 1;
/** GetCurrentProcess()'s pseudo handle. */
const CURRENT_PROCESS = Deno.UnsafePointer.create(-1n);
const ROW_BYTES = 24;

const IPHLPAPI = {
  GetExtendedTcpTable: fn(["buffer", "buffer", "i32", "u32", "u32", "u32"], "u32"),
} as const;
const KERNEL32 = {
  OpenProcess: fn(["u32", "i32", "u32"], "pointer"),
  CloseHandle: fn(["pointer"], "i32"),
} as const;
const ADVAPI32 = {
  OpenProcessToken: fn(["pointer", "u32", "buffer"], "i32"),
  GetTokenInformation: fn(["pointer", "u32", "buffer", "u32", "buffer"], "i32"),
  GetLengthSid: fn(["pointer"], "u32"),
} as const;

interface Win32 {
  readonly ip: Deno.DynamicLibrary<typeof IPHLPAPI>["symbols"];
  readonly k: Deno.DynamicLibrary<typeof KERNEL32>["symbols"];
  readonly a: Deno.DynamicLibrary<typeof ADVAPI32>["symbols"];
}
let libs: Win32 | null = null;
const win32 = (): Win32 =>
  libs ??= {
    ip: Deno.dlopen("iphlpapi.dll", IPHLPAPI).symbols,
    k: Deno.dlopen("kernel32.dll", KERNEL32).symbols,
    a: Deno.dlopen("advapi32.dll", ADVAPI32).symbols,
  };

/** An IPv4 address's four bytes, or null. */
function ipBytes(ip: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  return m ? m.slice(1).map(Number) : null;
}

/** A port as a row holds it: network byte order in the DWORD's first two bytes. */
const rowPort = (v: DataView, at: number) => (v.getUint8(at) << 8) | v.getUint8(at + 1);

/**
 * The owning process id of the client's socket, from `GetExtendedTcpTable`'s answer.
 * @param table the `MIB_TCPTABLE_OWNER_PID` bytes
 * @param peer the connection's remote end (the client)
 * @param serverPorts the agent's ports
 * @returns the pid, or null when no row matches
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const t = new Uint8Array(4 + 24);
 * const v = new DataView(t.buffer);
 * v.setUint32(0, 1, true);
 * v.setUint32(4, 5, true); // ESTABLISHED
 * t.set([127, 0, 0, 1, 0xc3, 0x50, 0, 0, 127, 0, 0, 1, 0x44, 0x46, 0, 0], 8);
 * v.setUint32(24, 4242, true);
 * equal(ownerPidIn(t, { hostname: "127.0.0.1", port: 50000 }, [17478]), 4242);
 * ```
 */
export function ownerPidIn(
  table: Uint8Array,
  peer: PeerAddr,
  serverPorts: readonly number[],
): number | null {
  const ip = ipBytes(peer.hostname);
  if (!ip || table.byteLength < 4) return null;
  const v = new DataView(table.buffer, table.byteOffset, table.byteLength);
  const n = Math.min(v.getUint32(0, true), Math.floor((table.byteLength - 4) / ROW_BYTES));
  for (let i = 0; i < n; i++) {
    const at = 4 + i * ROW_BYTES;
    const local = [0, 1, 2, 3].map((k) => v.getUint8(at + 4 + k));
    if (local.some((b, k) => b !== ip[k]) || rowPort(v, at + 8) !== peer.port) continue;
    if (!serverPorts.includes(rowPort(v, at + 16))) continue;
    return v.getUint32(at + 20, true);
  }
  return null;
}

/** The machine's IPv4 TCP table with owning pids. */
function tcpTable(w: Win32): Uint8Array {
  const size = new Uint32Array([64 * 1024]);
  for (let tries = 0; tries < 4; tries++) {
    // non-null: a one-element array
    const buf = new Uint8Array(size[0]!);
    const rc = w.ip.GetExtendedTcpTable(buf, size, 0, AF_INET, TCP_TABLE_OWNER_PID_ALL, 0);
    if (rc === 0) return buf;
    if (rc !== ERROR_INSUFFICIENT_BUFFER) {
      throw new UserError(
        `Windows could not list the TCP connections (GetExtendedTcpTable: error ${rc})`,
      );
    }
    size[0] = size[0]! + 16 * 1024; // non-null: a one-element array; grown meanwhile: the size asked for, and some
  }
  throw new UserError(
    "Windows could not list the TCP connections (GetExtendedTcpTable: the table keeps growing)",
  );
}

/** A process's user SID (bytes), or null when it cannot be read (another user's process). */
function userSid(w: Win32, process: Deno.PointerValue): Uint8Array | null {
  const tok = new BigUint64Array(1);
  if (!w.a.OpenProcessToken(process, TOKEN_QUERY, tok)) return null;
  // non-null: a one-element array
  const token = Deno.UnsafePointer.create(tok[0]!);
  try {
    const buf = new Uint8Array(256);
    const got = new Uint32Array(1);
    if (!w.a.GetTokenInformation(token, TOKEN_USER, buf, buf.byteLength, got)) return null;
    // TOKEN_USER { SID_AND_ATTRIBUTES { PSID Sid; DWORD Attributes } }: the SID's pointer first.
    const sid = Deno.UnsafePointer.create(new DataView(buf.buffer).getBigUint64(0, true));
    if (sid === null) return null;
    const len = w.a.GetLengthSid(sid);
    return new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(sid, len)).slice();
  } finally {
    w.k.CloseHandle(token);
  }
}

let ownSid: Uint8Array | null = null;

/**
 * Whether the client of a loopback connection runs as the agent's own Windows user.
 * @param peer the connection's remote end
 * @param serverPorts the agent's ports on 127.0.0.1
 * @returns true only when its process's user SID equals the agent's
 * @throws Error when the Windows API cannot be loaded (not Windows, no --allow-ffi) or the TCP
 *   table cannot be read
 */
export function win32SameUser(peer: PeerAddr, serverPorts: readonly number[]): boolean {
  const w = win32();
  ownSid ??= userSid(w, CURRENT_PROCESS);
  if (!ownSid) {
    throw new UserError(
      "Windows did not say which user runs the agent (GetTokenInformation(TokenUser))",
    );
  }
  const pid = ownerPidIn(tcpTable(w), peer, serverPorts);
  if (pid === null || pid === 0) return false;
  const h = w.k.OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
  if (h === null) return false; // another user's process (ERROR_ACCESS_DENIED), or gone
  try {
    const sid = userSid(w, h);
    // non-null: ownSid was checked above (the closure does not see the narrowing); i < sid.length
    // === ownSid.length
    return sid !== null && sid.length === ownSid.length && sid.every((b, i) => b === ownSid![i]);
  } finally {
    w.k.CloseHandle(h);
  }
}
