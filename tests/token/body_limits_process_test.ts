/**
 * Body limits before anything is read (docs/token-service.md § Body limits), against a real
 * `token-service` process on SQLite: 50 MB sent to every group of routes — issuance, the contract
 * application, the admin API, the profile (a form, a one-time link, a passkey ceremony) and the
 * desk (a form, a link, a passkey ceremony) — once with `Content-Length` and once streamed
 * (chunked, no length) is answered 413 `BODY_TOO_LARGE`, and the process's resident memory stays
 * bounded (it would grow by the bodies' size if any were read whole). A body just under a limit
 * is still read (the limit is not a blanket refusal).
 */
import { equal, ok } from "node:assert/strict";
import { type Proc, startTokenService } from "../_helpers/e2e.ts";
import { adminKey, serviceEnv } from "../_helpers/token_procs.ts";
import { BODY_LIMITS } from "../../src/token/app.ts";

const ADMIN = serviceEnv("").SVC_ADMIN_TOKEN!;
const MB = 1024 * 1024;
const TOTAL = 50 * MB;

/** The process's resident set, bytes (Linux /proc). */
async function rss(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/**
 * Send `POST path` with a 50 MB body over a raw connection, in 64 KiB pieces, until the body is
 * sent or the service answered (or closed the connection); returns the answer's status and body.
 */
async function post(
  url: string,
  path: string,
  headers: Record<string, string>,
  chunked: boolean,
): Promise<{ status: number; body: string; sent: number }> {
  const u = new URL(url);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  const enc = new TextEncoder();
  const head = [
    `POST ${path} HTTP/1.1`,
    `Host: ${u.host}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${TOTAL}`,
    "",
    "",
  ].join("\r\n");
  let answer = "";
  let answered = false;
  const reading = (async () => {
    const buf = new Uint8Array(16 * 1024);
    const dec = new TextDecoder();
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) break;
        answer += dec.decode(buf.subarray(0, n), { stream: true });
        const cut = answer.indexOf("\r\n\r\n");
        const len = /content-length: (\d+)/i.exec(answer)?.[1];
        if (cut >= 0 && len !== undefined && answer.length >= cut + 4 + Number(len)) break;
      }
    } catch { /* a reset after the answer */ }
    answered = true;
    // A write waiting for a service that stopped reading ends here.
    try {
      conn.close();
    } catch { /* closed */ }
  })();
  let sent = 0;
  try {
    await conn.write(enc.encode(head));
    const piece = new Uint8Array(64 * 1024).fill(0x61);
    const framed = chunked
      ? new Uint8Array([...enc.encode(`${piece.length.toString(16)}\r\n`), ...piece, 13, 10])
      : piece;
    while (sent < TOTAL && !answered) {
      let off = 0;
      while (off < framed.length) off += await conn.write(framed.subarray(off));
      sent += piece.length;
    }
    if (chunked && !answered) await conn.write(enc.encode("0\r\n\r\n"));
  } catch { /* the service closed the connection after answering */ }
  await reading;
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
  return { status, body: answer.slice(answer.indexOf("\r\n\r\n") + 4), sent };
}

Deno.test({
  name: "[e2e] every route group refuses 50 MB with 413 before reading it; memory stays flat",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    const ts: Proc = await startTokenService(dir, { SVC_ADMIN_TOKEN: ADMIN });
    try {
      const key = await adminKey(ts.url, "bodies");
      const json = { "content-type": "application/json" };
      const form = { "content-type": "application/x-www-form-urlencoded" };
      const routes: [string, Record<string, string>][] = [
        ["/api/v1/tokens/issue", { ...json, authorization: `Bearer ${key}` }],
        ["/api/v1/applications", { ...json, authorization: `Bearer ${key}` }],
        ["/admin/v1/integrators", { ...json, authorization: `Bearer ${ADMIN}` }],
        ["/profile/sign-in", form],
        ["/profile/keys", form],
        ["/profile/link", form],
        ["/profile/passkey/verify", json],
        ["/admin/link", form],
        ["/admin/applications/x/approve", form],
        ["/admin/passkey/options", json],
      ];
      // Warm up: every route answered once, so that what is measured is the bodies alone.
      for (const [path, headers] of routes) {
        const r = await fetch(`${ts.url}${path}`, { method: "POST", headers, body: "{}" });
        await r.body?.cancel();
      }
      const before = await rss(ts.child.pid);
      for (const [path, headers] of routes) {
        for (const chunked of [false, true]) {
          const r = await post(ts.url, path, headers, chunked);
          equal(r.status, 413, `${path} chunked=${chunked}: ${r.body.slice(0, 200)}`);
          equal(JSON.parse(r.body).errorCode, "BODY_TOO_LARGE", path);
        }
      }
      const after = await rss(ts.child.pid);
      // 20 bodies of 50 MB: read whole, even one would add 50 MB. Counted ones hold at most
      // their route's limit (256 KiB to 1 MiB) for a moment.
      ok(
        after - before < 32 * MB,
        `RSS grew by ${((after - before) / MB).toFixed(1)} MB (${before} → ${after})`,
      );

      // Just under the limit is read: the admin API answers its own validation error.
      const under = await fetch(`${ts.url}/admin/v1/integrators`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
        body: JSON.stringify({ name: "x".repeat(BODY_LIMITS.adminApi - 100) }),
      });
      equal(under.status, 400);
      equal((await under.json()).errorCode, "VALIDATION_FAILED");
    } finally {
      await ts.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
