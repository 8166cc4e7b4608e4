/**
 * A local HTTPS simulator of a remote qualified signature service speaking the Cloud Signature
 * Consortium API v2 (docs/signing.md § 11): OAuth 2.0 authorization code with PKCE
 * (S256) at /oauth2/authorize and /oauth2/token (scope `service`, and scope `credential` with
 * `credentialID`, `numSignatures` and `hashes` for credentials whose `authMode` is `oauth2code`),
 * refresh tokens, `info`, `credentials/list`, `credentials/info` (certificate chain),
 * `credentials/authorize` (PIN for `explicit` credentials; SAD bound to the hashes),
 * `credentials/sendOTP` (with the `otp` option: a third credential asks the PIN and an online
 * one-time code; the "sent" code is not sent anywhere: tests read it with
 * {@link CscSimulator.sentOtp}, the standalone simulator prints it — simulator only, a real
 * provider sends it to the holder's phone) and
 * `signatures/signHash` (RSA PKCS#1 v1.5 over SHA-256 digests). Its signer certificates are
 * issued by a test CA made at start. Faults by configuration: the user declines, every answer
 * is slow, refresh tokens expired or revoked, a SAD that signHash refuses, a limit on the
 * hashes of one authorization, a signature made with another key. It is the only CSC service
 * this project was tested against. Runnable: `deno run -A scripts/csc_simulator.ts [--port N]
 * [--delay-ms N] [--max-hashes N]`.
 * @module
 */
import { Buffer } from "node:buffer";
import {
  constants,
  createHash,
  createPrivateKey,
  type KeyObject,
  privateEncrypt,
} from "node:crypto";
import { parseArgs } from "node:util";
import { makeServerTls } from "./nra_simulator.ts";
import { createCaFetch } from "../src/portal/live/ca_fetch.ts";
import { makeCert, pem, TEST_CA_SUBJECT, type TestCert } from "../tests/_helpers/pki.ts";

/** Faults the simulator serves (all off by default; change them at any time). */
export interface CscFaults {
  /** The user declines every approval (sign-in, credential authorization). */
  decline?: boolean;
  /** Every CSC call and the token endpoint wait this long before answering, ms. */
  delayMs?: number;
  /** Refresh tokens are refused (`invalid_grant`): expired or revoked. */
  expiredRefresh?: boolean;
  /** signHash refuses the SAD it was given (`invalid_request`, "SAD is invalid"). */
  wrongSad?: boolean;
  /** At most this many hashes per authorization (`multisign` in credentials/info). */
  maxHashes?: number;
  /** signHash signs with a key other than the certificate's (the agent's check must catch it). */
  wrongKey?: boolean;
}

/** Options of {@link startCscSimulator}. */
export interface CscSimulatorOptions {
  /** The registered OAuth client (default {@link CSC_CLIENT_ID}); public client, PKCE only. */
  readonly clientId?: string;
  /** The PIN of the `explicit` credential (default {@link CSC_PIN}). */
  readonly pin?: string;
  /** The holder's EGN in the certificates' subject serialNumber (default 8001010008). */
  readonly egn?: string;
  /** `oauth2code` approvals (sign-in and credential) are given without a page, as an app on a
   * phone would after the push (default false: a page with Approve / Decline buttons). */
  readonly autoApprove?: boolean;
  readonly faults?: CscFaults;
  /** Listening port (default 0). */
  readonly port?: number;
  /** Also serve a third `explicit` credential that asks the PIN and an `online` OTP
   * (credentials/sendOTP), listed last (default false). */
  readonly otp?: boolean;
  /** Told each one-time code the simulator "sends" (the standalone simulator prints it). */
  readonly onOtp?: (credentialId: string, otp: string) => void;
}

/** Counters a test or benchmark reads. */
export interface CscStats {
  signIns: number;
  refreshes: number;
  authorizations: number;
  signHashCalls: number;
  hashesSigned: number;
}

/** A running simulator. */
export interface CscSimulator {
  /** `https://127.0.0.1:<port>` (the CSC API is under `/csc/v2/`). */
  readonly url: string;
  /** The CSC service URL a sender is added with: `<url>/csc/v2`. */
  readonly serviceUrl: string;
  /** PEM of the TLS CA (trust it with createCaFetch or a sender's `caFile`). */
  readonly caPem: string;
  /** PEM of the test CA that issued the signer certificates (for `openssl cms -verify`). */
  readonly signerCaPem: string;
  /** A fetch trusting {@link caPem}. */
  readonly fetch: typeof fetch;
  readonly faults: CscFaults;
  readonly stats: CscStats;
  /** The credential ids: `explicit` (PIN) and `oauth2code` (approved in the browser or app). */
  readonly credentials: {
    readonly explicit: string;
    readonly oauth2code: string;
    /** The PIN + online OTP credential (with the `otp` option). */
    readonly otp: string;
  };
  /**
   * SIMULATOR ONLY: the last one-time code credentials/sendOTP "sent" for a credential (a real
   * provider sends it to the phone; nobody can read it back).
   * @returns the code, or null when none is waiting
   */
  sentOtp(credentialId: string): string | null;
  /** Revoke every refresh and access token issued so far. */
  revokeAll(): void;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The simulator's registered OAuth client id. */
export const CSC_CLIENT_ID = "svc-filing-agent";
/** The PIN of the simulator's `explicit` credential. */
export const CSC_PIN = "4711";
const SHA256 = "2.16.840.1.101.3.4.2.1";
const RSA = "1.2.840.113549.1.1.1";
const SHA256_RSA = "1.2.840.113549.1.1.11";
const DIGEST_INFO_SHA256 = Buffer.from("3031300d060960864801650304020105000420", "hex");

interface Credential {
  readonly id: string;
  readonly authMode: "explicit" | "oauth2code";
  /** Asks an online one-time code besides the PIN (explicit). */
  readonly otp?: boolean;
  readonly cert: TestCert;
  readonly key: KeyObject;
}
interface Grant {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly challenge: string;
  readonly scope: "service" | "credential";
  readonly credentialId?: string;
  readonly hashes?: readonly string[];
}
interface Token {
  readonly kind: "access" | "refresh" | "credential";
  revoked: boolean;
  readonly credentialId?: string | undefined;
  readonly hashes?: readonly string[] | undefined;
}
interface Sad {
  readonly credentialId: string;
  readonly hashes: ReadonlySet<string>;
  left: number;
}

const random = () => crypto.getRandomValues(new Uint8Array(24)).toBase64({ alphabet: "base64url" });
const b64url = (b: Uint8Array) => Buffer.from(b).toString("base64url");
const err = (status: number, error: string, description: string) =>
  Response.json({ error, error_description: description }, { status });
const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

async function issueCredential(
  id: string,
  authMode: Credential["authMode"],
  ca: TestCert,
  egn: string,
): Promise<Credential> {
  const cert = await makeCert({
    subject: `CN=Ivan Petrov, 2.5.4.5=PNOBG-${egn}, C=BG`,
    issuer: ca,
  });
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", cert.keys.privateKey));
  const key = createPrivateKey({ key: Buffer.from(pkcs8), format: "der", type: "pkcs8" });
  return { id, authMode, cert, key };
}

/** RSA PKCS#1 v1.5 signature over a SHA-256 digest (DigestInfo, RFC 8017 §9.2). */
function signDigest(key: KeyObject, digest: Uint8Array): string {
  const di = Buffer.concat([DIGEST_INFO_SHA256, Buffer.from(digest)]);
  return privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, di).toString("base64");
}

/** The approval page of the simulated provider (a person clicks one of its two buttons). */
function approvalPage(id: string, what: string): Response {
  const html = `<!DOCTYPE html><html lang="bg"><head><meta charset="utf-8">` +
    `<title>CSC simulator</title></head><body><h1>CSC simulator</h1><p>${esc(what)}</p>` +
    `<form method="post" action="/oauth2/decide"><input type="hidden" name="id" value="${id}">` +
    `<button id="approve" name="decision" value="approve">Approve</button> ` +
    `<button id="decline" name="decision" value="decline">Decline</button></form></body></html>`;
  return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
}

/**
 * Start the simulator on 127.0.0.1.
 * @param options client id, PIN, holder EGN, approval without a page, faults, port
 * @returns the running simulator (stop it, or `await using`)
 */
export async function startCscSimulator(
  options: CscSimulatorOptions = {},
): Promise<CscSimulator> {
  const tls = await makeServerTls();
  const ca = await makeCert({ subject: TEST_CA_SUBJECT, ca: true });
  const egn = options.egn ?? "8001010008";
  const creds = [
    await issueCredential("cred-explicit-1", "explicit", ca, egn),
    await issueCredential("cred-app-1", "oauth2code", ca, egn),
  ];
  if (options.otp) {
    creds.push({ ...await issueCredential("cred-otp-1", "explicit", ca, egn), otp: true });
  }
  const other = await issueCredential("other", "explicit", ca, egn);
  const sentOtps = new Map<string, string>();
  const clientId = options.clientId ?? CSC_CLIENT_ID;
  const pin = options.pin ?? CSC_PIN;
  const faults: CscFaults = { ...options.faults };
  const stats: CscStats = {
    signIns: 0,
    refreshes: 0,
    authorizations: 0,
    signHashCalls: 0,
    hashesSigned: 0,
  };
  const pending = new Map<string, { grant: Grant; state: string | null }>();
  const codes = new Map<string, Grant>();
  const tokens = new Map<string, Token>();
  const sads = new Map<string, Sad>();
  const byId = (id: unknown) => creds.find((c) => c.id === id);
  const limit = () => faults.maxHashes ?? 1000;

  const redirect = (grant: Grant, state: string | null, q: Record<string, string>) => {
    const u = new URL(grant.redirectUri);
    for (const [k, v] of Object.entries(q)) u.searchParams.set(k, v);
    if (state !== null) u.searchParams.set("state", state);
    return new Response(null, { status: 302, headers: { location: u.href } });
  };
  const decide = (id: string, approve: boolean) => {
    const p = pending.get(id);
    if (!p) return err(400, "invalid_request", "Unknown or used approval");
    pending.delete(id);
    if (!approve || faults.decline) {
      return redirect(p.grant, p.state, {
        error: "access_denied",
        error_description: "The user declined",
      });
    }
    const code = random();
    codes.set(code, p.grant);
    return redirect(p.grant, p.state, { code });
  };

  function authorizeGet(q: URLSearchParams): Response {
    const redirectUri = q.get("redirect_uri") ?? "";
    if (q.get("client_id") !== clientId) return err(400, "invalid_client", "Unknown client_id");
    if (!/^http:\/\/(127\.0\.0\.1|localhost):\d+\//.test(redirectUri)) {
      return err(400, "invalid_request", "redirect_uri must be a loopback address");
    }
    if (q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256") {
      return err(400, "invalid_request", "response_type=code with PKCE S256 is required");
    }
    const challenge = q.get("code_challenge") ?? "";
    const scope = q.get("scope");
    let grant: Grant;
    if (scope === "service") grant = { clientId, redirectUri, challenge, scope };
    else if (scope === "credential") {
      const cred = byId(q.get("credentialID"));
      const hashes = (q.get("hashes") ?? "").split(",").filter(Boolean);
      const n = Number(q.get("numSignatures"));
      if (!cred || cred.authMode !== "oauth2code") {
        return err(400, "invalid_request", "Unknown credentialID");
      }
      if (hashes.length === 0 || n !== hashes.length) {
        return err(400, "invalid_request", "numSignatures must equal the number of hashes");
      }
      if (hashes.length > limit()) {
        return err(400, "invalid_request", `At most ${limit()} hashes per authorization`);
      }
      grant = { clientId, redirectUri, challenge, scope, credentialId: cred.id, hashes };
    } else return err(400, "invalid_scope", "scope must be service or credential");
    const id = random();
    pending.set(id, { grant, state: q.get("state") });
    if (options.autoApprove) return decide(id, true);
    const what = scope === "service"
      ? "Sign in to the CSC simulator"
      : `Approve ${grant.hashes!.length} signature(s)`;
    return approvalPage(id, what);
  }

  function tokenPost(f: URLSearchParams): Response {
    if (f.get("client_id") !== clientId) return err(400, "invalid_client", "Unknown client_id");
    if (f.get("grant_type") === "refresh_token") {
      const t = tokens.get(f.get("refresh_token") ?? "");
      if (!t || t.kind !== "refresh" || t.revoked || faults.expiredRefresh) {
        return err(400, "invalid_grant", "The refresh token is expired or revoked");
      }
      stats.refreshes++;
      const access = random();
      tokens.set(access, { kind: "access", revoked: false });
      return Response.json({ access_token: access, token_type: "Bearer", expires_in: 3600 });
    }
    if (f.get("grant_type") !== "authorization_code") {
      return err(400, "unsupported_grant_type", "grant_type");
    }
    const grant = codes.get(f.get("code") ?? "");
    codes.delete(f.get("code") ?? "");
    const verifier = f.get("code_verifier") ?? "";
    const challenge = b64url(createHash("sha256").update(verifier).digest());
    if (!grant || grant.redirectUri !== f.get("redirect_uri") || grant.challenge !== challenge) {
      return err(400, "invalid_grant", "The code, redirect_uri or code_verifier is wrong");
    }
    const access = random();
    if (grant.scope === "credential") {
      tokens.set(access, {
        kind: "credential",
        revoked: false,
        credentialId: grant.credentialId,
        hashes: grant.hashes,
      });
      return Response.json({ access_token: access, token_type: "Bearer", expires_in: 300 });
    }
    stats.signIns++;
    const refresh = random();
    tokens.set(access, { kind: "access", revoked: false });
    tokens.set(refresh, { kind: "refresh", revoked: false });
    return Response.json({
      access_token: access,
      refresh_token: refresh,
      token_type: "Bearer",
      expires_in: 3600,
    });
  }

  const credentialInfo = (c: Credential, chain: boolean) => ({
    description: `Simulated cloud QES (${c.authMode})`,
    key: { status: "enabled", algo: [RSA, SHA256_RSA], len: 2048 },
    cert: {
      status: "valid",
      certificates: (chain ? [c.cert.der, ca.der] : [c.cert.der]).map((d) =>
        Buffer.from(d).toString("base64")
      ),
      issuerDN: c.cert.cert.issuer,
      subjectDN: c.cert.cert.subject,
      serialNumber: c.cert.cert.serialNumber,
      validFrom: c.cert.cert.notBefore.toISOString(),
      validTo: c.cert.cert.notAfter.toISOString(),
    },
    authMode: c.authMode,
    ...(c.authMode === "explicit"
      ? {
        PIN: { presence: "true", format: "N", label: "PIN" },
        OTP: c.otp
          ? {
            presence: "true",
            type: "online",
            format: "N",
            label: "SMS code",
            ID: "sim-sms",
            provider: "CSC simulator",
          }
          : { presence: "false" },
      }
      : {}),
    SCAL: "2",
    multisign: limit(),
    lang: "bg-BG",
  });

  function signHash(body: Record<string, unknown>, bearer: Token): Response {
    stats.signHashCalls++;
    const cred = byId(body.credentialID);
    const hashes = Array.isArray(body.hashes) ? body.hashes.map(String) : [];
    if (!cred) return err(400, "invalid_request", "Unknown credentialID");
    if (body.signAlgo !== RSA && body.signAlgo !== SHA256_RSA) {
      return err(400, "invalid_request", "signAlgo is not supported");
    }
    if (body.signAlgo === RSA && body.hashAlgorithmOID !== SHA256) {
      return err(400, "invalid_request", "hashAlgorithmOID must be SHA-256");
    }
    let allowed: ReadonlySet<string>;
    if (bearer.kind === "credential") {
      if (bearer.credentialId !== cred.id) return err(400, "invalid_request", "Wrong credential");
      allowed = new Set(bearer.hashes);
      bearer.revoked = true;
    } else {
      const sad = sads.get(String(body.SAD ?? ""));
      if (!sad || faults.wrongSad || sad.credentialId !== cred.id || sad.left < hashes.length) {
        return err(400, "invalid_request", "SAD is invalid or expired");
      }
      sad.left -= hashes.length;
      allowed = sad.hashes;
    }
    if (hashes.length === 0 || hashes.some((h) => !allowed.has(h))) {
      return err(400, "invalid_request", "A hash was not authorized");
    }
    stats.hashesSigned += hashes.length;
    const key = faults.wrongKey ? other.key : cred.key;
    return Response.json({
      signatures: hashes.map((h) => signDigest(key, Buffer.from(h, "base64"))),
    });
  }

  function authorize(body: Record<string, unknown>): Response {
    stats.authorizations++;
    const cred = byId(body.credentialID);
    const hashes = Array.isArray(body.hashes) ? body.hashes.map(String) : [];
    if (!cred || cred.authMode !== "explicit") {
      return err(400, "invalid_request", "Unknown credentialID or not authorized explicitly");
    }
    if (faults.decline) return err(400, "access_denied", "The user declined the signature");
    if (body.PIN !== pin) return err(400, "invalid_pin", "The PIN is invalid");
    if (cred.otp) {
      const sent = sentOtps.get(cred.id);
      sentOtps.delete(cred.id); // one try per code
      if (!sent || body.OTP !== sent) return err(400, "invalid_otp", "The OTP is invalid");
    }
    if (hashes.length === 0 || Number(body.numSignatures) !== hashes.length) {
      return err(400, "invalid_request", "numSignatures must equal the number of hashes");
    }
    if (hashes.length > limit()) {
      return err(400, "invalid_request", `At most ${limit()} hashes per authorization`);
    }
    const sad = random();
    sads.set(sad, { credentialId: cred.id, hashes: new Set(hashes), left: hashes.length });
    return Response.json({ SAD: sad, expiresIn: 300 });
  }

  async function api(path: string, req: Request): Promise<Response> {
    if (faults.delayMs) await new Promise((r) => setTimeout(r, faults.delayMs));
    if (path === "info") {
      return Response.json({
        specs: "2.0.0.2",
        name: "CSC simulator",
        logo: "",
        region: "BG",
        lang: "bg-BG",
        description: "A test service of this project; no real signature",
        authType: ["oauth2code"],
        oauth2: new URL(req.url).origin,
        methods: [
          "credentials/list",
          "credentials/info",
          "credentials/authorize",
          ...(options.otp ? ["credentials/sendOTP"] : []),
          "signatures/signHash",
        ],
      });
    }
    const bearer = tokens.get((req.headers.get("authorization") ?? "").replace(/^Bearer /, ""));
    if (!bearer || bearer.revoked || bearer.kind === "refresh") {
      return err(401, "invalid_token", "The access token is missing, expired or revoked");
    }
    let body: Record<string, unknown>;
    try {
      body = await req.json();
    } catch {
      return err(400, "invalid_request", "The body is not JSON");
    }
    if (path === "signatures/signHash") return signHash(body, bearer);
    if (bearer.kind !== "access") return err(401, "invalid_token", "A service token is needed");
    if (path === "credentials/list") {
      return Response.json({
        credentialIDs: creds.map((c) => c.id),
        ...(body.credentialInfo
          ? { credentialInfos: creds.map((c) => credentialInfo(c, body.certificates === "chain")) }
          : {}),
      });
    }
    if (path === "credentials/info") {
      const cred = byId(body.credentialID);
      if (!cred) return err(400, "invalid_request", "Unknown credentialID");
      return Response.json(credentialInfo(cred, body.certificates === "chain"));
    }
    if (path === "credentials/authorize") return authorize(body);
    if (path === "credentials/sendOTP") {
      const cred = byId(body.credentialID);
      if (!cred?.otp) return err(400, "invalid_request", "The credential asks no online OTP");
      const otp = String(crypto.getRandomValues(new Uint32Array(1))[0]! % 1_000_000)
        .padStart(6, "0");
      sentOtps.set(cred.id, otp);
      options.onOtp?.(cred.id, otp);
      return new Response(null, { status: 204 });
    }
    return err(404, "invalid_request", "Unknown method");
  }

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    cert: tls.cert,
    key: tls.key,
    onListen: () => {},
  }, async (req) => {
    const u = new URL(req.url);
    if (u.pathname.startsWith("/csc/v2/") && req.method === "POST") {
      return await api(u.pathname.slice("/csc/v2/".length), req);
    }
    if (u.pathname === "/oauth2/authorize" && req.method === "GET") {
      return authorizeGet(u.searchParams);
    }
    if (u.pathname === "/oauth2/decide" && req.method === "POST") {
      const f = new URLSearchParams(await req.text());
      return decide(f.get("id") ?? "", f.get("decision") === "approve");
    }
    if (u.pathname === "/oauth2/token" && req.method === "POST") {
      if (faults.delayMs) await new Promise((r) => setTimeout(r, faults.delayMs));
      return tokenPost(new URLSearchParams(await req.text()));
    }
    return err(404, "invalid_request", "Not found");
  });
  const caFetch = createCaFetch(tls.caPem);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.shutdown();
    caFetch.close();
  };
  const url = `https://127.0.0.1:${server.addr.port}`;
  return {
    url,
    serviceUrl: `${url}/csc/v2`,
    caPem: tls.caPem,
    signerCaPem: pem("CERTIFICATE", ca.der),
    fetch: caFetch.fetch,
    faults,
    stats,
    credentials: { explicit: creds[0]!.id, oauth2code: creds[1]!.id, otp: "cred-otp-1" },
    sentOtp: (id) => sentOtps.get(id) ?? null,
    revokeAll: () => tokens.forEach((t) => (t.revoked = true)),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Usage of the standalone simulator. */
export const USAGE =
  `Usage: deno run -A scripts/csc_simulator.ts [--port N] [--delay-ms N] [--max-hashes N] [--otp]
  --port N        listen on 127.0.0.1:N (default: a free port)
  --otp           also a credential asking the PIN and an SMS code (printed here, not sent)
  --delay-ms N    every CSC call takes N ms
  --max-hashes N  at most N hashes per authorization`;

/**
 * Run the simulator until Ctrl-C, printing its service URL, TLS CA file, client id and PIN.
 * @param args command-line arguments
 */
export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string" },
      "delay-ms": { type: "string" },
      "max-hashes": { type: "string" },
      otp: { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  if (values.help) return console.log(USAGE);
  const sim = await startCscSimulator({
    port: values.port ? Number(values.port) : 0,
    otp: values.otp === true,
    onOtp: (id, otp) => console.log(`(simulator only) one-time code "sent" for ${id}: ${otp}`),
    faults: {
      ...(values["delay-ms"] ? { delayMs: Number(values["delay-ms"]) } : {}),
      ...(values["max-hashes"] ? { maxHashes: Number(values["max-hashes"]) } : {}),
    },
  });
  const caFile = await Deno.makeTempFile({ prefix: "csc-sim-ca-", suffix: ".pem" });
  await Deno.writeTextFile(caFile, sim.caPem);
  console.log(`CSC simulator: ${sim.serviceUrl}`);
  console.log(`TLS CA certificate: ${caFile}`);
  console.log(`Client id: ${CSC_CLIENT_ID}; PIN of ${sim.credentials.explicit}: ${CSC_PIN}`);
  await new Promise<void>((resolve) => Deno.addSignalListener("SIGINT", resolve));
  await sim.stop();
  await Deno.remove(caFile);
}

if (import.meta.main) await main(Deno.args);
