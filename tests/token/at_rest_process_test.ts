/**
 * Data at rest (docs/token-service.md § Signing keys at rest) through the real program (`main.ts
 * token-service` on loopback, tokens over HTTP): the SQLite deployment's folders are 0700 and its
 * database files 0600 (also for an install made before, whose modes are tightened); with
 * SVC_SIGNING_KEY_SECRET no byte of the private key reaches the file; a key stored in plain text
 * before keeps signing and `token-service encrypt-keys` encrypts it; a wrong or missing secret
 * stops the start with one clear line; on PostgreSQL the service refuses to start without a secret
 * unless SVC_ALLOW_PLAINTEXT_SIGNING_KEYS=true, and stores the keys encrypted with one.
 */
import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { createLocalJWKSet, jwtVerify } from "jose";
import { createSigningKeyCipher } from "../../src/token/issuance/key_cipher.ts";
import { openTokenStore } from "../../src/token/store/open_store.ts";
import { createKeyCli, issueToken, startTokenService } from "../_helpers/e2e.ts";
import { freshPgSchema, pgIgnored } from "../_helpers/postgres.ts";
import { MAIN, runMain } from "../cli/_run.ts";

const SECRET = "process-test-signing-key-secret-0123456789abcdef";
const OTHER = "another-signing-key-secret-for-the-wrong-start-000";
const posix = Deno.build.os !== "windows";

const mode = async (p: string) => ((await Deno.stat(p)).mode ?? 0) & 0o777;

/** Issue a token over HTTP and verify it with the service's JWKS; returns its `kid`. */
async function issueVerified(url: string, key: string): Promise<string> {
  const token = await issueToken(url, key, { typeId: "nap_catalog" });
  const jwks = await (await fetch(`${url}/.well-known/jwks.json`)).json();
  const { protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
    audience: "svc-agent",
  });
  return protectedHeader.kid!;
}

/** The stored signing-key rows of a SQLite data directory. */
function sqliteRows(dir: string): { kid: string; private_jwk: string }[] {
  const db = new DatabaseSync(join(dir, "token-service.sqlite"), { readOnly: true });
  try {
    return db.prepare("SELECT kid, private_jwk FROM signing_keys").all() as {
      kid: string;
      private_jwk: string;
    }[];
  } finally {
    db.close();
  }
}

/** Every byte of the SQLite files (database, WAL) as latin1 text, to search for key material. */
async function sqliteBytes(dir: string): Promise<string> {
  let all = "";
  for (const f of ["token-service.sqlite", "token-service.sqlite-wal"]) {
    const b = await Deno.readFile(join(dir, f)).catch(() => new Uint8Array());
    all += new TextDecoder("latin1").decode(b);
  }
  return all;
}

Deno.test({
  name:
    "[token] token-service on SQLite: folders 0700, database files 0600, no private key byte on disk with a secret",
  ignore: !posix,
  async fn() {
    const tmp = await Deno.makeTempDir();
    const dir = join(tmp, "srv", "token");
    const ts = await startTokenService(dir, { SVC_SIGNING_KEY_SECRET: SECRET });
    try {
      const key = await createKeyCli(dir, "test");
      await issueVerified(ts.url, key);
      equal(await mode(join(tmp, "srv")), 0o700);
      equal(await mode(dir), 0o700);
      for (
        const f of ["token-service.sqlite", "token-service.sqlite-wal", "token-service.sqlite-shm"]
      ) {
        equal(await mode(join(dir, f)), 0o600, f);
      }
    } finally {
      await ts.stop();
    }
    const rows = sqliteRows(dir);
    equal(rows.length, 1);
    const stored = JSON.parse(rows[0]!.private_jwk);
    ok(!("d" in stored) && stored.enc.alg === "A256GCM");
    const cipher = await createSigningKeyCipher(SECRET);
    const d = JSON.parse(await cipher.open(rows[0]!.kid, rows[0]!.private_jwk)).d as string;
    ok(!(await sqliteBytes(dir)).includes(d), "the private key is in no file");
    await Deno.remove(tmp, { recursive: true });
  },
});

Deno.test({
  name:
    "[token] token-service on SQLite: an earlier install is tightened; its plain-text key keeps signing, encrypt-keys encrypts it; a wrong or missing secret stops the start",
  ignore: !posix,
  async fn() {
    const tmp = await Deno.makeTempDir();
    const dir = join(tmp, "token");
    // An older install: a 0755 folder and a 0644 database with a plain-text key.
    await Deno.mkdir(dir, { mode: 0o755 });
    await Deno.chmod(dir, 0o755);
    const old = new DatabaseSync(join(dir, "token-service.sqlite"));
    old.close();
    await Deno.chmod(join(dir, "token-service.sqlite"), 0o644);
    const plain = await startTokenService(dir);
    const key = await createKeyCli(dir, "test");
    const kid = await issueVerified(plain.url, key);
    await plain.stop();
    equal(await mode(dir), 0o700);
    equal(await mode(join(dir, "token-service.sqlite")), 0o600);
    ok("d" in JSON.parse(sqliteRows(dir)[0]!.private_jwk), "written in plain text without secret");

    const withSecret = await startTokenService(dir, { SVC_SIGNING_KEY_SECRET: SECRET });
    try {
      equal(await issueVerified(withSecret.url, key), kid, "the plain-text key still signs");
      const warn = await withSecret.waitLog(
        "signing keys not yet encrypted with SVC_SIGNING_KEY_SECRET",
      );
      equal((warn.kids as string[])[0], kid);
    } finally {
      await withSecret.stop();
    }
    const enc = await runMain(["token-service", "encrypt-keys", "--data-dir", dir, "--json"], {
      SVC_SIGNING_KEY_SECRET: SECRET,
    });
    equal(enc.code, 0, enc.stderr);
    equal(enc.json().items[0].atRest, "encrypted");
    ok(!enc.stdout.includes('"d"'));
    ok(!("d" in JSON.parse(sqliteRows(dir)[0]!.private_jwk)));

    const again = await startTokenService(dir, { SVC_SIGNING_KEY_SECRET: SECRET });
    try {
      equal(await issueVerified(again.url, key), kid);
      await again.waitLog("signing keys are encrypted at rest");
    } finally {
      await again.stop();
    }
    const wrong = await startStops(["--data-dir", dir], {
      SVC_SIGNING_KEY_SECRET: OTHER,
    });
    equal(wrong.code, 1);
    match(
      wrong.stderr,
      /does not open signing key ed-\S+: it was encrypted with the secret of fingerprint [0-9a-f]{16}/,
    );
    ok(!wrong.stderr.includes(OTHER) && !wrong.stderr.includes(SECRET));
    const none = await startStops(["--data-dir", dir]);
    equal(none.code, 1);
    match(none.stderr, /is encrypted at rest: set SVC_SIGNING_KEY_SECRET/);
    const short = await startStops(["--data-dir", dir], {
      SVC_SIGNING_KEY_SECRET: "too-short",
    });
    equal(short.code, 1);
    match(short.stderr, /SVC_SIGNING_KEY_SECRET: must be at least 32 characters/);
    ok(!short.stderr.includes("too-short"));
    await Deno.remove(tmp, { recursive: true });
  },
});

Deno.test({
  name:
    "[token] token-service on PostgreSQL refuses to start without a secret unless opted out, and stores keys encrypted with one",
  ignore: pgIgnored(),
  async fn() {
    const pg = await freshPgSchema();
    const tmp = await Deno.makeTempDir();
    const env = { SVC_DATABASE_URL: pg.url };
    try {
      const refused = await startStops(["--data-dir", tmp], env);
      equal(refused.code, 1);
      match(
        refused.stderr,
        /Refusing to start: on PostgreSQL the signing keys are stored encrypted/,
      );

      // The explicit opt-out starts, warns, and writes a plain-text key.
      const optOut = await startTokenService(tmp, {
        ...env,
        SVC_ALLOW_PLAINTEXT_SIGNING_KEYS: "true",
      });
      const key = await createKeyWithPg(pg.url);
      const kid = await issueVerified(optOut.url, key);
      await optOut.waitLog(
        "SVC_ALLOW_PLAINTEXT_SIGNING_KEYS=true: the signing keys are stored in plain text in PostgreSQL; set SVC_SIGNING_KEY_SECRET for production",
      );
      await optOut.stop();
      const store = await openTokenStore({ dataDir: "", databaseUrl: pg.url });
      try {
        ok("d" in JSON.parse((await store.listSigningKeys())[0]!.privateJwk));
        const enc = await runMain(["token-service", "encrypt-keys", "--data-dir", tmp], {
          ...env,
          SVC_SIGNING_KEY_SECRET: SECRET,
        });
        equal(enc.code, 0, enc.stderr);
        match(enc.stdout, new RegExp(`^${kid}  encrypted  current$`, "m"));
        const row = JSON.parse((await store.listSigningKeys())[0]!.privateJwk);
        ok(!("d" in row) && row.enc.alg === "A256GCM");
      } finally {
        await store.close();
      }
      const admin = "process-test-admin-token-0123456789abcdefghij";
      const ts = await startTokenService(tmp, {
        ...env,
        SVC_SIGNING_KEY_SECRET: SECRET,
        SVC_ADMIN_TOKEN: admin,
      });
      try {
        equal(await issueVerified(ts.url, key), kid);
        // A rotation writes the new key encrypted too; both keys are published.
        const rot = await fetch(`${ts.url}/admin/v1/signing-keys/rotate`, {
          method: "POST",
          headers: { authorization: `Bearer ${admin}` },
        });
        equal(rot.status, 201);
        const views = (await rot.json()).items as { kid: string; atRest: string }[];
        equal(views.length, 2);
        ok(views.every((v) => v.atRest === "encrypted"));
        const newKid = await issueVerified(ts.url, key);
        ok(newKid !== kid);
        const s2 = await openTokenStore({ dataDir: "", databaseUrl: pg.url });
        try {
          for (const k of await s2.listSigningKeys()) ok(!("d" in JSON.parse(k.privateJwk)));
        } finally {
          await s2.close();
        }
      } finally {
        await ts.stop();
      }
      const wrong = await startStops(["--data-dir", tmp], {
        ...env,
        SVC_SIGNING_KEY_SECRET: OTHER,
      });
      equal(wrong.code, 1);
      match(wrong.stderr, /does not open signing key/);
    } finally {
      await pg.drop();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

/**
 * `main.ts token-service …` expected to stop at start: its exit code and stderr, or code -1 when
 * it was still serving after 20 s (and was killed).
 */
async function startStops(args: readonly string[], env: Record<string, string> = {}) {
  const keep = ["HOME", "PATH", "DENO_DIR", "TMPDIR"];
  const base = Object.fromEntries(
    keep.flatMap((k) => (Deno.env.get(k) !== undefined ? [[k, Deno.env.get(k)!]] : [])),
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "token-service", "--port", "0", ...args],
    env: { ...base, NO_COLOR: "1", SVC_LOG_LEVEL: "error", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(20_000),
  }).output();
  return { code: out.signal ? -1 : out.code, stderr: new TextDecoder().decode(out.stderr) };
}

/** `keys create` against PostgreSQL (SVC_DATABASE_URL); returns the secret. */
async function createKeyWithPg(url: string): Promise<string> {
  const r = await runMain(["keys", "create", "--mode", "test", "--json"], {
    SVC_DATABASE_URL: url,
  });
  equal(r.code, 0, r.stderr);
  return r.json().secret;
}
