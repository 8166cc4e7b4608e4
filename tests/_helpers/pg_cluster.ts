/**
 * A private, throw-away PostgreSQL cluster for tests that stop and start the server (the
 * outage test): `initdb` into a temporary folder and `pg_ctl` on its own port, so the shared
 * test cluster (SVC_TEST_DATABASE_URL, 55432) is never disturbed. As root the server runs as
 * the `postgres` OS user (root cannot run it), as scripts/ci_postgres.sh does. Without the
 * binaries the test is skipped with a message, and fails instead when CI=true.
 * @module
 */
import { freePort } from "./e2e.ts";

/** Where the PostgreSQL binaries are (SVC_PG_BIN, else the newest /usr/lib/postgresql/N/bin). */
export function pgBinDir(): string | null {
  const fromEnv = Deno.env.get("SVC_PG_BIN");
  const candidates = fromEnv ? [fromEnv] : [];
  try {
    const versions = [...Deno.readDirSync("/usr/lib/postgresql")].map((e) => e.name)
      .filter((n) => /^\d+$/.test(n)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  } catch { /* not Debian's layout */ }
  for (const dir of candidates) {
    try {
      if (Deno.statSync(`${dir}/initdb`).isFile && Deno.statSync(`${dir}/pg_ctl`).isFile) {
        return dir;
      }
    } catch { /* next */ }
  }
  return null;
}

let warned = false;

/**
 * Whether to register a private-cluster test as ignored (no binaries, outside CI). Prints why.
 * @returns true to ignore
 */
export function pgClusterIgnored(): boolean {
  if (pgBinDir() !== null || Deno.env.get("CI") === "true") return false;
  if (!warned) {
    console.log(
      "SKIP private PostgreSQL cluster tests: initdb/pg_ctl not found " +
        "(apt-get install postgresql, or set SVC_PG_BIN)",
    );
  }
  warned = true;
  return true;
}

/** A running private cluster. */
export interface PgCluster {
  /** `postgres://svc@127.0.0.1:<port>/svc` */
  readonly url: string;
  readonly port: number;
  /** Stop the server (fast mode: sessions are terminated). */
  stop(): Promise<void>;
  /** Start it again on the same port and data. */
  start(): Promise<void>;
  /** Stop it and delete its folder. */
  destroy(): Promise<void>;
}

async function run(cmd: string, args: string[], asUser: string | null): Promise<string> {
  const [c, a] = asUser ? ["runuser", ["-u", asUser, "--", cmd, ...args]] : [cmd, args];
  const out = await new Deno.Command(c, { args: a, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")} failed:\n${text}`);
  return text;
}

/**
 * Create and start a private cluster with role `svc` and database `svc` (trust auth, loopback).
 * @returns the cluster
 * @throws Error when the binaries are missing or a step fails
 */
export async function startPgCluster(): Promise<PgCluster> {
  const bin = pgBinDir();
  if (!bin) throw new Error("CI=true and the PostgreSQL binaries (initdb, pg_ctl) are missing");
  const asUser = Deno.uid() === 0 ? "postgres" : null;
  const dir = await Deno.makeTempDir({ prefix: "svc-pg-private-" });
  if (asUser) await run("chown", [asUser, dir], null);
  const data = `${dir}/data`;
  const port = freePort();
  await run(
    `${bin}/initdb`,
    ["-D", data, "-U", "svc", "--auth=trust", "-E", "UTF8", "--no-sync"],
    asUser,
  );
  const opts =
    `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=50`;
  const start = () =>
    run(`${bin}/pg_ctl`, ["-D", data, "-o", opts, "-l", `${dir}/server.log`, "-w", "start"], asUser)
      .then(() => {});
  const stop = () =>
    run(`${bin}/pg_ctl`, ["-D", data, "-m", "fast", "-w", "stop"], asUser).then(() => {});
  await start();
  await run(`${bin}/createdb`, ["-h", "127.0.0.1", "-p", String(port), "-U", "svc", "svc"], asUser);
  return {
    url: `postgres://svc@127.0.0.1:${port}/svc`,
    port,
    stop,
    start,
    async destroy() {
      await stop().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    },
  };
}
