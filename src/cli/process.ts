/**
 * The process edge of the programs: listening on loopback, stopping on SIGINT/SIGTERM, reading a
 * line from standard input, writing all of a text. Deno APIs only (no npm package, no Node
 * compatibility): the agent's phase 1 uses it before anything else loads.
 * @module
 */
import type { Logger } from "../log.ts";

/**
 * Serve on loopback, trying `port`..`port+fallback-1` when the first is taken.
 * @param handler the request handler
 * @param port the first port (0 = any free port, tried once)
 * @param hostname the address (default 127.0.0.1)
 * @param fallback how many ports to try (default 10: 17470–17479)
 * @returns the listening server
 * @throws Deno.errors.AddrInUse when every port is taken; other listen errors as they come
 */
export function serveLoopback(
  handler: Deno.ServeHandler,
  port: number,
  hostname = "127.0.0.1",
  fallback = 10,
): Deno.HttpServer<Deno.NetAddr> {
  let last: unknown;
  for (let p = port, i = 0; i < (port === 0 ? 1 : fallback); i++, p++) {
    try {
      return Deno.serve({ hostname, port: p, onListen: () => {} }, handler);
    } catch (e) {
      if (!(e instanceof Deno.errors.AddrInUse)) throw e;
      last = e;
    }
  }
  throw last;
}

/**
 * Serve HTTPS on 127.0.0.1 (the agent's optional loopback TLS, docs/https.md).
 * @param handler the request handler
 * @param port the port (0 = any free port)
 * @param tls the certificate chain and key (PEM)
 * @returns the listening server
 * @throws Deno.errors.AddrInUse when the port is taken
 */
export function serveLoopbackTls(
  handler: Deno.ServeHandler,
  port: number,
  tls: { readonly certPem: string; readonly keyPem: string },
): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve(
    { hostname: "127.0.0.1", port, cert: tls.certPem, key: tls.keyPem, onListen: () => {} },
    handler,
  );
}

/**
 * Load one module (group) after a macrotask turn: while the agent's phase 1 serves `/health`,
 * no load blocks the event loop longer than one module group (BENCHMARKS.md § Agent cold start).
 * @param load the dynamic import
 * @returns what it loaded
 */
export const afterTurn = <T>(load: () => Promise<T>): Promise<T> =>
  new Promise<void>((r) => setTimeout(r, 0)).then(load);

/** The signals that stop the programs (SIGTERM does not exist on Windows). */
export const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * Deno.addSignalListener, where the OS has the signal.
 * @param sig the signal
 * @param fn the listener
 */
export function addSignal(sig: Deno.Signal, fn: () => void): void {
  try {
    Deno.addSignalListener(sig, fn);
  } catch { /* not available on this OS */ }
}

/**
 * Deno.removeSignalListener, where the OS has the signal.
 * @param sig the signal
 * @param fn the listener
 */
export function removeSignal(sig: Deno.Signal, fn: () => void): void {
  try {
    Deno.removeSignalListener(sig, fn);
  } catch { /* not available on this OS */ }
}

/**
 * Stop on SIGINT/SIGTERM after the running requests (filings) have finished, then exit 0.
 * @param server the server to shut down
 * @param log where "shutting down" goes
 * @param close called after the server has stopped (close stores, release the lock)
 * @param before called first (decline the pending confirmations; the token service's drain)
 * @returns the same shutdown, for a stop asked otherwise (the agent's console, `agent stop`)
 */
export function shutdownOnSignal(
  server: Deno.HttpServer,
  log: Logger,
  close: () => void | Promise<void> = () => {},
  before: () => void | Promise<void> = () => {},
): () => void {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    log("info", "shutting down: finishing running requests");
    await before();
    await server.shutdown();
    await close();
    Deno.exit(0);
  };
  for (const sig of SIGNALS) addSignal(sig, stop);
  return () => void stop();
}

/**
 * Read one line from standard input (a PIN typed or piped), without its line end.
 * @returns the line ("" at end of input)
 */
export async function readStdinLine(): Promise<string> {
  const reader = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  reader.releaseLock();
  return text.split(/\r?\n/)[0] ?? "";
}

const encoder = new TextEncoder();

/**
 * Write all of a text to a stream (one `writeSync` may write only part of it into a pipe).
 * @param file Deno.stdout or Deno.stderr
 * @param text the text, written as is
 */
export function writeAllSync(file: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
}
