/**
 * Network checks of `agent doctor`: the agent's port and fallback range, the token service's
 * JWKS (OKP/Ed25519 public keys with kid) and the clock skew measured from its `Date` header.
 * @module
 */
import { discoverAgent, probeAgent } from "../start/mod.ts";
import { check, type DoctorCheck, type ResolvedDoctorDeps as Deps } from "./types.ts";

const msg = (e: unknown) => {
  if (!(e instanceof Error)) return String(e);
  const cause = (e.cause as Error | undefined)?.message;
  return cause ? `${e.message}: ${cause}` : e.message;
};

/**
 * Whether 127.0.0.1:port can be bound now.
 * @param port the port
 * @returns true when a listener could be opened (and was closed again)
 * @throws never
 */
export function listenFree(port: number): Promise<boolean> {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return Promise.resolve(true);
  } catch {
    return Promise.resolve(false);
  }
}

function whoUses(port: number, os: string): string {
  return os === "windows"
    ? `find it with \`netstat -ano | findstr :${port}\` and \`tasklist /FI "PID eq <pid>"\``
    : `find it with \`lsof -nP -iTCP:${port} -sTCP:LISTEN\``;
}

/**
 * Port check: free, our agent, or another program (then the fallback the agent uses).
 * @param d resolved doctor deps
 * @returns the `port` check
 * @throws never
 */
export async function checkPort(d: Deps): Promise<DoctorCheck> {
  const [first, ...rest] = d.ports;
  const range = `${first}–${d.ports.at(-1)}`;
  const title = `Agent port ${first}`;
  if (await d.portFree(first)) {
    return check(
      "port",
      true,
      title,
      `Free: the agent will listen on ${first} (fallback ${range})`,
    );
  }
  const own = await probeAgent(first, d.fetch, d.timeoutMs);
  if (own) return check("port", true, title, `The agent is running there (version ${own.version})`);
  const elsewhere = await discoverAgent(rest, d.fetch, d.timeoutMs);
  const free = (await Promise.all(rest.map(async (p) => (await d.portFree(p)) ? p : 0)))
    .find((p) => p > 0);
  const fix = `Stop the program that holds port ${first} (${whoUses(first, d.os)}), ` +
    "or leave it: pages find the agent by GET /health over " + range;
  if (elsewhere) {
    return check(
      "port",
      "warn",
      title,
      `Used by another program; the agent runs on fallback port ${elsewhere.port}`,
      fix,
    );
  }
  if (free) {
    return check(
      "port",
      "warn",
      title,
      `Used by another program; the agent will use fallback port ${free}`,
      fix,
    );
  }
  return check(
    "port",
    false,
    title,
    `All ports ${range} are in use and none answers as the agent`,
    `Close the programs holding ${range} (${whoUses(first, d.os)}), then start the agent again`,
  );
}

/** The URL without credentials or query, for messages. */
function shown(u: URL): string {
  return `${u.protocol}//${u.host}${u.pathname}`;
}

function jwkProblem(k: Record<string, unknown>, i: number): string | null {
  const name = typeof k.kid === "string" && k.kid ? `key "${k.kid}"` : `key #${i + 1}`;
  if ("d" in k) return `${name} contains PRIVATE key material ("d")`;
  if (k.kty !== "OKP" || k.crv !== "Ed25519") return `${name} is not OKP/Ed25519`;
  if (typeof k.kid !== "string" || !k.kid) return `${name} has no kid`;
  if (typeof k.x !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(k.x)) return `${name} has a bad x`;
  return null;
}

/**
 * Token service check (GET /.well-known/jwks.json) and the clock check from its Date header.
 * @param d resolved doctor deps
 * @returns the `token-service` and `clock` checks
 * @throws never
 */
export async function checkTokenService(d: Deps): Promise<DoctorCheck[]> {
  const title = "Token service and JWKS";
  const env = "SVC_TOKEN_SERVICE_URL or --token-service";
  const clockTitle = "Clock (against the token service)";
  const noClock = (why: string, fix = "Fix the token service check first") =>
    check("clock", "warn", clockTitle, `Not measured: ${why}`, fix);
  let url: URL;
  try {
    url = new URL("/.well-known/jwks.json", d.tokenServiceUrl);
  } catch {
    return [
      check("token-service", false, title, "The token service URL is not a URL", `Set ${env}`),
      noClock("no token service URL"),
    ];
  }
  let res: Response, t0: number, t1: number;
  try {
    t0 = d.now();
    res = await d.fetch(url, { signal: AbortSignal.timeout(d.timeoutMs) });
    t1 = d.now();
  } catch (e) {
    return [
      check(
        "token-service",
        false,
        title,
        `Cannot reach ${shown(url)}: ${msg(e).replace(/\/\/[^/@\s]+@/g, "//")}`,
        `Check ${env} (now ${url.protocol}//${url.host}), the network, a proxy or firewall; ` +
          "open that URL in a browser on this PC",
      ),
      noClock("the token service is unreachable"),
    ];
  }
  const date = Date.parse(res.headers.get("date") ?? "");
  let body: { keys?: unknown } | null = null;
  if (res.ok) body = await res.json().catch(() => null);
  else await res.body?.cancel();
  const keys = Array.isArray(body?.keys) ? body.keys as Record<string, unknown>[] : [];
  const problem = !res.ok
    ? `${shown(url)} answered HTTP ${res.status}`
    : body === null
    ? `${shown(url)} did not return JSON`
    : keys.length === 0
    ? `${shown(url)} lists no keys`
    : keys.map(jwkProblem).find((p) => p !== null) ?? null;
  const svc = problem
    ? check(
      "token-service",
      false,
      title,
      problem,
      `Check that ${env} points at the token service (it serves /.well-known/jwks.json with ` +
        "Ed25519 public keys); ask its operator if it does",
    )
    : check(
      "token-service",
      true,
      title,
      `${shown(url)}: ${keys.length} Ed25519 key(s), kid ${keys.map((k) => k.kid).join(", ")}`,
    );
  if (Number.isNaN(date)) {
    const fix = "Compare this PC's clock with an accurate clock by hand; enable automatic time";
    return [svc, noClock("the answer has no Date header", fix)];
  }
  // Date has 1 s resolution: the server's time lies in [date, date + 1000).
  const skew = (t0 + t1) / 2 - (date + 500);
  const s = Math.abs(skew) / 1000;
  const margin = 500 + (t1 - t0) / 2; // Date resolution + half the round trip
  const text =
    (Math.abs(skew) <= margin
      ? `This PC's clock matches the token service (to ±${(margin / 1000).toFixed(1)} s)`
      : `This PC's clock is about ${s.toFixed(1)} s ${skew > 0 ? "ahead of" : "behind"} ` +
        "the token service") + " (tokens live 5 s; the agent allows 2 s of skew)";
  const sync = d.os === "windows"
    ? "Settings → Time & language → Date & time → Set time automatically, then Sync now"
    : d.os === "darwin"
    ? "System Settings → General → Date & Time → Set time and date automatically"
    : "`timedatectl set-ntp true` (or enable your NTP service)";
  const level = s > 2 ? false : s > 1 ? "warn" : true;
  return [
    svc,
    check("clock", level, clockTitle, text, level === true ? null : `Sync the clock: ${sync}`),
  ];
}
