/**
 * Who owns the other end of a loopback connection (src/agent/host/peer_linux.ts, peer_win32.ts;
 * docs/running.md § Shared PCs): on Linux, real sockets of this process found through netlink
 * (sock_diag) and in /proc/net/tcp, and for a dual-stack client as IPv6 and in /proc/net/tcp6; tables with another user's socket; and the
 * Windows TCP table's rows read from bytes laid out as `MIB_TCPROW_OWNER_PID`.
 */
import { equal } from "node:assert/strict";
import { linuxPeerUid, procIpv4 } from "../../src/agent/host/peer_linux.ts";
import { sameUserCheck } from "../../src/agent/host/peer_owner.ts";
import { ownerPidIn } from "../../src/agent/host/peer_win32.ts";

const linux = Deno.build.os === "linux";

/** A connection to a listener of this process: the server's view of the client, and ports. */
async function connected(hostname: string) {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const client = await Deno.connect({ hostname, port: l.addr.port });
  const server = await l.accept();
  return {
    peer: server.remoteAddr as Deno.NetAddr,
    port: l.addr.port,
    close() {
      client.close();
      server.close();
      l.close();
    },
  };
}

Deno.test({
  name: "peer owner (Linux): this process's own client socket is found with this uid",
  ignore: !linux,
  fn: async () => {
    const c = await connected("127.0.0.1");
    try {
      equal(linuxPeerUid(c.peer, [c.port]), Deno.uid()); // netlink
      const proc = (p: string) => Deno.readTextFileSync(p);
      equal(linuxPeerUid(c.peer, [c.port], proc), Deno.uid()); // /proc/net/tcp
      equal(sameUserCheck("linux")!(c.peer, [c.port]), true);
      // Another uid for the agent: the same socket is not its user's.
      equal(sameUserCheck("linux", Deno.uid()! + 1)!(c.peer, [c.port]), false);
      // The right client port towards another server port is not this connection.
      equal(linuxPeerUid(c.peer, [c.port + 1]), null);
      equal(linuxPeerUid(c.peer, [c.port + 1], proc), null);
    } finally {
      c.close();
    }
  },
});

Deno.test({
  name: "peer owner (Linux): a dual-stack client (::ffff:127.0.0.1) is found in tcp6",
  ignore: !linux,
  fn: async () => {
    let c;
    try {
      c = await connected("::ffff:127.0.0.1");
    } catch (e) {
      console.error(`SKIP no IPv6 socket here: ${e}`);
      return;
    }
    try {
      equal(c.peer.hostname, "127.0.0.1");
      const tables: string[] = [];
      const uid = linuxPeerUid(c.peer, [c.port], (p) => {
        tables.push(p);
        return Deno.readTextFileSync(p);
      });
      equal(uid, Deno.uid());
      equal(tables.at(-1), "/proc/net/tcp6");
      equal(linuxPeerUid(c.peer, [c.port]), Deno.uid(), "netlink, as IPv6");
    } finally {
      c.close();
    }
  },
});

Deno.test("peer owner (Linux): another user's socket, a listener, a missing table", () => {
  const head =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n";
  const tcp = head +
    "   0: 0100007F:4446 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000\n" +
    // The agent's end of the connection: local 17478, remote the client (must not match).
    "   1: 0100007F:4446 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000\n" +
    "   2: 0100007F:C350 0100007F:4446 01 00000000:00000000 00:00000000 00000000 65534\n";
  const read = (p: string) => p.endsWith("tcp") ? tcp : null;
  equal(linuxPeerUid({ hostname: "127.0.0.1", port: 50000 }, [17478], read), 65534);
  equal(linuxPeerUid({ hostname: "127.0.0.1", port: 50001 }, [17478], read), null);
  equal(linuxPeerUid({ hostname: "::1", port: 50000 }, [17478], read), null);
  equal(linuxPeerUid({ hostname: "127.0.0.1", port: 50000 }, [17478], () => null), null);
  equal(procIpv4("10.1.2.3"), "0302010A");
  equal(procIpv4("256.0.0.1"), null);
});

Deno.test("peer owner (Windows): the client's row of MIB_TCPTABLE_OWNER_PID names its pid", () => {
  const rows = [
    // The agent's listener, its end of the connection, then the client's end.
    { local: [127, 0, 0, 1], lport: 17478, remote: [0, 0, 0, 0], rport: 0, pid: 100 },
    { local: [127, 0, 0, 1], lport: 17478, remote: [127, 0, 0, 1], rport: 50000, pid: 100 },
    { local: [127, 0, 0, 1], lport: 50000, remote: [127, 0, 0, 1], rport: 17478, pid: 4242 },
  ];
  const t = new Uint8Array(4 + 24 * rows.length);
  const v = new DataView(t.buffer);
  v.setUint32(0, rows.length, true);
  rows.forEach((r, i) => {
    const at = 4 + 24 * i;
    v.setUint32(at, 5, true);
    t.set(r.local, at + 4);
    v.setUint16(at + 8, r.lport, false);
    t.set(r.remote, at + 12);
    v.setUint16(at + 16, r.rport, false);
    v.setUint32(at + 20, r.pid, true);
  });
  equal(ownerPidIn(t, { hostname: "127.0.0.1", port: 50000 }, [17478]), 4242);
  equal(ownerPidIn(t, { hostname: "127.0.0.1", port: 50001 }, [17478]), null);
  equal(ownerPidIn(t, { hostname: "127.0.0.1", port: 50000 }, [17479]), null);
  // A count larger than the bytes is read only as far as the bytes go.
  v.setUint32(0, 99, true);
  equal(ownerPidIn(t, { hostname: "127.0.0.1", port: 50000 }, [17478]), 4242);
  equal(sameUserCheck("darwin"), null);
});
