/**
 * A local HTTPS simulator of the NRA public API (docs/nra-api.md §11): OAuth2 client credentials
 * at /oauth/token, the submit and result routes of both environments, the Bearer check (400
 * MALFORMED_TOKEN), the validation order of §11, detached CMS verification of each file against
 * its bytes and the certificate (pkijs; tests re-check with `openssl cms -verify`), a certificate
 * allow-list, a power-of-attorney map, stored submissions and Bulgarian HTML protocols. Faults can
 * be injected (delay, status with headers such as Retry-After, malformed JSON, expired token; and
 * for docs/journal.md a submission that is filed and then answered too late or cut off, or dropped
 * unfiled after a delay). Tests use it through tests/_helpers/nra_simulator.ts (which adds a
 * PKCS#12 test sender). Runnable: `deno run -A scripts/nra_simulator.ts [--port N] [--save-dir DIR]
 * [--stub] [--latency-ms N]` (or the same with tests/_helpers/nra_simulator.ts). Codes marked
 * "designed" are not seen from the real NRA (docs/live-portal.md § The simulator).
 * @module
 */
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import * as pkijs from "pkijs";
import { Buffer } from "node:buffer";
import { parseArgs } from "node:util";
import { isValidEik } from "../src/formats/mod.ts";
import { createCaFetch } from "../src/portal/live/ca_fetch.ts";
import { pem } from "../tests/_helpers/pki.ts";

x509.cryptoProvider.set(crypto);

/**
 * A fault served instead of (or before, or after) the normal answer:
 * - `delay`: wait, then answer normally (a submission is filed after the wait);
 * - `status`: answer this status, body and headers (e.g. 429 with `Retry-After`) unprocessed;
 * - `malformed_json`: a 200 HTML page; `expired_token`: 401 EXPIRED_TOKEN;
 * - `accept_then_delay`: file the submission (stored, as the NRA would), then hold the answer
 *   for `ms` — beyond the agent's time-out, the agent cannot know it was filed;
 * - `accept_then_cut`: file it, then cut the answer's body off after its status line;
 * - `drop`: wait `ms`, then answer 504 without filing (a gateway that gave up).
 */
export type SimFault =
  | { readonly kind: "delay"; readonly ms: number }
  | {
    readonly kind: "status";
    readonly status: number;
    readonly body?: unknown;
    readonly headers?: Readonly<Record<string, string>>;
  }
  | { readonly kind: "malformed_json" }
  | { readonly kind: "expired_token" }
  | { readonly kind: "accept_then_delay"; readonly ms: number }
  | { readonly kind: "accept_then_cut" }
  | { readonly kind: "drop"; readonly ms: number };

/** Where a fault applies and how many times (default: until cleared). */
export interface SimFaultRule {
  readonly on: "token" | "submit" | "result" | "api";
  readonly fault: SimFault;
  readonly times?: number;
}

/** One file the simulator received, with its signature (for `openssl cms -verify`). */
export interface ReceivedFile {
  readonly fileName: string;
  readonly content: Uint8Array;
  readonly pkcs7: Uint8Array;
  readonly certificate: Uint8Array;
  /** pkijs verification result against content and certificate. */
  readonly verified: boolean;
}

/** A stored (accepted) submission. */
export interface StoredSubmission {
  readonly documentId: number;
  readonly entryNumber: string;
  readonly entryDate: string;
  readonly environment: "production" | "test";
  readonly body: Readonly<Record<string, unknown>>;
}

/** Options of {@link startNraSimulator}. */
export interface SimulatorOptions {
  /** OAuth2 clients: id → secret and scopes (default one test client, see SIM_CLIENT). */
  readonly clients?: Readonly<Record<string, { secret: string; scopes: readonly string[] }>>;
  /** Pre-issued Bearer tokens → scopes. */
  readonly accessTokens?: Readonly<Record<string, readonly string[]>>;
  /** `expires_in` of issued tokens, seconds (default 3600). */
  readonly tokenLifetimeSeconds?: number;
  /** Recognised signer certificates (DER), or "any" non-self-signed certificate. */
  readonly recognised?: readonly Uint8Array[] | "any";
  /** Power of attorney: holder EGN → EIKs it may file for ("*" = any). */
  readonly powerOfAttorney?: Readonly<Record<string, readonly string[]>> | "any";
  /** Test environment answers like the real stub (30E000000001, today, 1). Default false. */
  readonly mimicTestStub?: boolean;
  /** Also write each received file and its .p7s here. */
  readonly saveDir?: string | undefined;
  /** Listening port (default 0: any free port). */
  readonly port?: number;
  /** Time every submit and result call takes before it is processed, ms (default 0): the
   * portal's round trip as benchmarks and progress tests see it. */
  readonly latencyMs?: number;
}

/** A running simulator. */
export interface NraSimulator {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** PEM of the simulator's throwaway CA (trust it via portal.caFile or createCaFetch). */
  readonly caPem: string;
  /** A fetch trusting {@link caPem}. */
  readonly fetch: typeof fetch;
  readonly received: ReceivedFile[];
  readonly submissions: Map<number, StoredSubmission>;
  /** Request counters: token grants issued, submit and result calls answered. */
  readonly stats: { tokenRequests: number; submitCalls: number; resultCalls: number };
  fail(rule: SimFaultRule): void;
  clearFaults(): void;
  /** Revoke every issued token (next API call: 401 EXPIRED_TOKEN). */
  expireTokens(): void;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The default OAuth2 client: both scopes. */
export const SIM_CLIENT = { id: "sim-client", secret: "sim-secret" } as const;
/** Scopes by environment (docs/nra-api.md §2, inferred). */
export const SIM_SCOPES = {
  test: "es-api-external:submit-declaration-test",
  production: "es-api-external:submit-declaration",
} as const;

const SERVICES: Record<string, readonly string[]> = {
  DEC_1_6: ["DEC_1", "DEC_6"],
  DEC_ETZ62: ["DEC_ETZ62"],
  // Not a known NRA service: the agent's assumed VAT mapping (docs/live-portal.md).
  DEC_VAT: ["DEC_VAT_DEKLAR", "DEC_VAT_POKUPKI", "DEC_VAT_PRODAGBI", "DEC_VAT_VIES"],
  DEC_HIGH_FISC_RISK: ["EU_BG", "BG_EU", "BG_BG", "IMPORT", "ANNUL", "CONFIRM"].map((s) =>
    `DEC_FISC_RISK_${s}`
  ),
};
const PIN_TYPES = ["IND_EGN", "IND_LNCH", "IND_SLNO", "IND_BULSTAT", "BUS_BULSTAT"];
const IDENTITY = [
  "taxpayerPin",
  "taxpayerPinType",
  "userPin",
  "userPinType",
  "userSignatureBase64",
];
const FILE_FIELDS = [
  "fileName",
  "fileType",
  "fileSize",
  "fileContentBase64",
  "base64EncodedPkcs7",
  "fileDocumentType",
];

/**
 * True for a 10-digit EGN with a valid check digit (weights 2,4,8,5,10,9,7,3,6; mod 11).
 * @param egn the candidate
 * @returns whether it is a well-formed EGN
 */
export function isValidEgn(egn: string): boolean {
  if (!/^\d{10}$/.test(egn)) return false;
  const w = [2, 4, 8, 5, 10, 9, 7, 3, 6];
  const s = w.reduce((a, k, i) => a + k * Number(egn[i]), 0) % 11;
  return (s === 10 ? 0 : s) === Number(egn[9]);
}

function pinMatches(pin: unknown, type: unknown): boolean {
  if (typeof pin !== "string") return false;
  if (type === "IND_EGN") return isValidEgn(pin);
  if (type === "BUS_BULSTAT") return isValidEik(pin);
  return /^\d{9,13}$/.test(pin);
}

class Answer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly raw = false,
    readonly headers: Readonly<Record<string, string>> = {},
    /** Send the status line and part of the body, then break the connection. */
    readonly cut = false,
  ) {}
}

/** Faults that let the request be processed (filed) and spoil only the answer. */
const AFTER_FAULTS: ReadonlySet<SimFault["kind"]> = new Set([
  "accept_then_delay",
  "accept_then_cut",
]);

function envelope(status: number, errorCode: string, i18nMessage: string, errors: string[] = []) {
  const reason = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found" };
  const hex = [...crypto.getRandomValues(new Uint8Array(16))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  return new Answer(status, {
    code: status,
    reason: reason[status as keyof typeof reason] ?? "Error",
    exceptionId: hex,
    timestamp: new Date().toISOString().slice(0, 23),
    errorCode,
    i18nMessage,
    errors,
  });
}

const missingParams = (errors: string[], what = "inputDto") =>
  envelope(
    400,
    "API_MISSING_REQUIRED_PARAMETERS",
    `Липсващи задължителни параметри ${what}!`,
    errors,
  );
const wrongEnum = (name: string) =>
  envelope(400, "API_WRONG_ENUM_VALUE", `Грешна стойност на енъм тип ${name}!`);
const badPin = () =>
  envelope(
    400,
    "API_INVALID_PIN_OR_PIN_TYPE",
    "Грешно въведена комбинация идентификатор и тип на индентификатор!",
  );
const unrecognised = () =>
  envelope(400, "API_UNRECOGNIZED_CERTIFICATE_OR_USER", "Неразпознат сертификат или потребител!");

/**
 * Verify a detached CMS signature over `content` made with `certificate` (pkijs).
 * @param pkcs7 the ContentInfo(SignedData), DER
 * @param content the exact signed bytes
 * @param certificate the certificate the request names (`userSignatureBase64`), DER
 * @returns true when the signed digest matches the content and the signer is that certificate
 */
export async function verifyDetachedCms(
  pkcs7: Uint8Array,
  content: Uint8Array,
  certificate: Uint8Array,
): Promise<boolean> {
  try {
    const ci = pkijs.ContentInfo.fromBER(new Uint8Array(pkcs7));
    const sd = new pkijs.SignedData({ schema: ci.content });
    const inner = sd.certificates?.[0];
    if (!(inner instanceof pkijs.Certificate)) return false;
    if (!Buffer.from(inner.toSchema().toBER()).equals(Buffer.from(certificate))) return false;
    const r = await sd.verify({
      signer: 0,
      data: new Uint8Array(content).buffer,
      checkChain: false,
      extendedMode: true,
    });
    return r.signatureVerified === true;
  } catch {
    return false;
  }
}

function sofiaToday(): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Sofia" }).format(new Date());
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

function protocol(s: StoredSubmission): { fragment: string; page: string } {
  const files = (s.body.files as Record<string, unknown>[]) ?? [];
  const rows = s.body.serviceDocumentType === "DEC_1_6"
    ? files.map((f) => {
      const n = Number(f.numRecords ?? 0);
      return `<tr><td>${f.fileDocumentType}</td><td>Брой подадени: ${n}</td>` +
        `<td>Брой приети: ${n}</td><td>Брой отхвърлени: 0</td></tr>`;
    })
    : [`<tr><td>Общ брой вписани: ${files.length}</td><td>Общ брой невписани: 0</td></tr>`];
  const fragment = `<div class="protocol"><h2>Протокол за резултат от обработката</h2>` +
    `<p>Входящ номер ${s.entryNumber} от ${s.entryDate}, ЕИК ${s.body.taxpayerPin}</p>` +
    `<p>Подадената информация е приета.</p><table>${rows.join("")}</table></div>`;
  const page = `<!DOCTYPE html><html lang="bg"><head><meta charset="utf-8">` +
    `<title>Протокол ${s.entryNumber}</title></head><body>${fragment}</body></html>`;
  return { fragment, page };
}

/**
 * Generate a throwaway CA and a server certificate for 127.0.0.1 / localhost (ECDSA P-256).
 * @returns the CA PEM and the server certificate and key PEMs for Deno.serve
 */
export async function makeServerTls(): Promise<{ caPem: string; cert: string; key: string }> {
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const gen = () =>
    crypto.subtle.generateKey(alg, true, ["sign", "verify"]) as Promise<CryptoKeyPair>;
  const [caKeys, keys] = await Promise.all([gen(), gen()]);
  const notBefore = new Date(Date.now() - 3_600_000);
  const notAfter = new Date(Date.now() + 7 * 86_400_000);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: "CN=NRA simulator throwaway CA",
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
    ],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: "CN=127.0.0.1",
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(false),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: "ip", value: "127.0.0.1" },
        { type: "dns", value: "localhost" },
      ]),
    ],
  });
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", keys.privateKey));
  return { caPem: ca.toString("pem"), cert: leaf.toString("pem"), key: pem("PRIVATE KEY", pkcs8) };
}

/**
 * Start the simulator on 127.0.0.1.
 * @param options clients, tokens, allow-list, power of attorney, stub mode, save dir, port
 * @returns the running simulator (stop it, or `await using`)
 */
export async function startNraSimulator(options: SimulatorOptions = {}): Promise<NraSimulator> {
  const tls = await makeServerTls();
  const stopping = new AbortController();
  const clients = options.clients ??
    { [SIM_CLIENT.id]: { secret: SIM_CLIENT.secret, scopes: Object.values(SIM_SCOPES) } };
  const issued = new Map<string, { scopes: readonly string[]; until: number }>();
  const recognisedFp = new Set<string>();
  const fp = (der: Uint8Array) => Buffer.from(der).toString("base64");
  if (options.recognised !== "any") {
    for (const d of options.recognised ?? []) recognisedFp.add(fp(d));
  }
  let faults: { rule: SimFaultRule; left: number }[] = [];
  let nextId = 1001;
  const received: ReceivedFile[] = [];
  const submissions = new Map<number, StoredSubmission>();
  const stats = { tokenRequests: 0, submitCalls: 0, resultCalls: 0 };
  let saved = 0;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      stopping.signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
    });

  function takeFault(route: "token" | "submit" | "result"): SimFault | null {
    const hit = faults.find((f) =>
      f.left > 0 && (f.rule.on === route || (f.rule.on === "api" && route !== "token"))
    );
    if (!hit) return null;
    hit.left--;
    faults = faults.filter((f) => f.left > 0);
    return hit.rule.fault;
  }

  function tokenGrant(form: URLSearchParams, auth: string | null): Answer {
    stats.tokenRequests++;
    let id = form.get("client_id");
    let secret = form.get("client_secret");
    if (auth?.startsWith("Basic ")) {
      const [user = null, password = null] = atob(auth.slice(6)).split(":");
      [id, secret] = [user, password];
    }
    const client = id ? clients[id] : undefined;
    if (form.get("grant_type") !== "client_credentials") {
      return new Answer(400, { error: "unsupported_grant_type" });
    }
    if (!client || client.secret !== secret) return new Answer(401, { error: "invalid_client" });
    const token = `sim-${crypto.randomUUID()}`;
    const lifetime = options.tokenLifetimeSeconds ?? 3600;
    issued.set(token, { scopes: client.scopes, until: Date.now() + lifetime * 1000 });
    return new Answer(200, {
      access_token: token,
      token_type: "Bearer",
      expires_in: lifetime,
      scope: client.scopes.join(" "),
    });
  }

  function checkToken(auth: string | null, env: "production" | "test"): Answer | null {
    const token = auth?.match(/^Bearer (\S+)$/)?.[1];
    const pre = token ? options.accessTokens?.[token] : undefined;
    const grant = token ? issued.get(token) : undefined;
    if (!pre && !grant) return envelope(400, "MALFORMED_TOKEN", "Malformed token");
    if (grant && grant.until <= Date.now()) return envelope(401, "EXPIRED_TOKEN", "Expired token");
    if (!(pre ?? grant!.scopes).includes(SIM_SCOPES[env])) {
      return envelope(403, "API_INSUFFICIENT_SCOPE", `Липсва обхват ${SIM_SCOPES[env]}`);
    }
    return null;
  }

  function checkUser(body: Record<string, unknown>): Answer | null {
    let cert: x509.X509Certificate;
    try {
      cert = new x509.X509Certificate(Buffer.from(String(body.userSignatureBase64), "base64"));
    } catch {
      return unrecognised();
    }
    const egn = cert.subjectName.getField("2.5.4.5")[0]?.replace(/^PNOBG-/, "");
    const selfSigned = cert.subject === cert.issuer;
    const known = !selfSigned &&
      (options.recognised === "any" || recognisedFp.has(fp(new Uint8Array(cert.rawData))));
    if (!known || egn !== body.userPin) return unrecognised();
    const poa = options.powerOfAttorney ?? "any";
    const eiks = poa === "any" ? ["*"] : (egn === undefined ? undefined : poa[egn]) ?? [];
    if (
      body.taxpayerPin !== egn && !eiks.includes("*") && !eiks.includes(String(body.taxpayerPin))
    ) {
      // designed: the public sources show no code for a missing power of attorney
      return envelope(
        403,
        "API_NO_AUTHORIZATION",
        "Лицето няма право да подава документи от името на задълженото лице!",
      );
    }
    return null;
  }

  function checkIdentity(body: Record<string, unknown>, extra: string[]): Answer | null {
    const missing = [...IDENTITY, ...extra].filter((k) => body[k] == null || body[k] === "");
    if (missing.length) return missingParams(missing.map((k) => `${k} : must not be null`));
    return null;
  }

  async function submit(body: Record<string, unknown>, env: "production" | "test") {
    const service = String(body.serviceDocumentType ?? "");
    const period = service === "DEC_1_6"
      ? ["taxPeriodFrom", "taxPeriodTo", "year", "insuranceFund"]
      : service === "DEC_VAT"
      ? ["taxPeriodFrom", "taxPeriodTo", "year"]
      : [];
    const missing = checkIdentity(body, ["serviceDocumentType", ...period]);
    if (missing) return missing;
    const files = body.files;
    if (!Array.isArray(files)) return missingParams(["files : must not be null"]);
    if (files.length === 0) return missingParams(["files : must not be empty"]);
    for (const [i, f] of files.entries()) {
      const gap = FILE_FIELDS.find((k) => f?.[k] == null || f[k] === "");
      if (gap) return missingParams([], `files[${i}].${gap}`);
    }
    if (!SERVICES[service]) return wrongEnum("ServiceDocumentType");
    if (!PIN_TYPES.includes(String(body.taxpayerPinType))) return wrongEnum("PinType");
    if (!PIN_TYPES.includes(String(body.userPinType))) return wrongEnum("PinType");
    if (files.some((f) => !SERVICES[service]!.includes(f.fileDocumentType))) {
      return wrongEnum("FileDocumentType");
    }
    if (
      !pinMatches(body.taxpayerPin, body.taxpayerPinType) ||
      !pinMatches(body.userPin, body.userPinType)
    ) return badPin();
    if (service === "DEC_1_6" && files.some((f) => !["txt", "csv"].includes(f.fileType))) {
      return envelope(
        400,
        "API_FILE_FORMAT_ERROR",
        "Подаденият формат не се поддържа! Допустими формати txt, csv.",
      );
    }
    const certificate = new Uint8Array(Buffer.from(String(body.userSignatureBase64), "base64"));
    let allVerified = true;
    for (const f of files) {
      const content = new Uint8Array(Buffer.from(String(f.fileContentBase64), "base64"));
      const pkcs7 = new Uint8Array(Buffer.from(String(f.base64EncodedPkcs7), "base64"));
      const verified = await verifyDetachedCms(pkcs7, content, certificate);
      allVerified &&= verified;
      received.push({ fileName: String(f.fileName), content, pkcs7, certificate, verified });
      if (options.saveDir) {
        const base = `${options.saveDir}/${String(++saved).padStart(4, "0")}-${f.fileName}`;
        await Deno.writeFile(base, content);
        await Deno.writeFile(`${base}.p7s`, pkcs7);
      }
    }
    if (!allVerified) {
      return envelope(
        400,
        "API_DOCUMENT_SIGNATURE_MISMATCH",
        "Подписът не съответства на документа!",
      );
    }
    const refused = checkUser(body);
    if (refused) return refused;
    const stub = env === "test" && options.mimicTestStub;
    const documentId = stub ? 1 : nextId++;
    const entryNumber = stub ? "30E000000001" : `30E${String(documentId).padStart(9, "0")}`;
    const stored = { documentId, entryNumber, entryDate: sofiaToday(), environment: env, body };
    submissions.set(documentId, stored);
    return new Answer(200, { entryNumber, entryDate: stored.entryDate, documentId });
  }

  function result(body: Record<string, unknown>, env: "production" | "test"): Answer {
    const missing = checkIdentity(body, []);
    if (missing) return missing;
    const byId = typeof body.documentId === "number";
    if (!byId && !(body.entryNumber && body.entryDate)) {
      return missingParams(["documentId : must not be null"]);
    }
    const refused = checkUser(body);
    if (refused) return refused;
    const s = byId
      ? submissions.get(body.documentId as number)
      : [...submissions.values()].find((x) =>
        x.entryNumber === body.entryNumber && String(body.entryDate).startsWith(x.entryDate)
      );
    if (!s || s.environment !== env || s.body.taxpayerPin !== body.taxpayerPin) {
      const id = byId ? body.documentId : body.entryNumber;
      // designed: the public sources show no answer for an unknown document
      return envelope(
        404,
        "API_DOCUMENT_NOT_FOUND",
        `Документ с идентификатор ${id} не е намерен!`,
      );
    }
    const fisc = s.body.serviceDocumentType === "DEC_HIGH_FISC_RISK";
    const p = protocol(s);
    return new Answer(200, {
      entryNumber: s.entryNumber,
      entryDate: s.entryDate,
      documentId: s.documentId,
      processingStatus: "PROCESSED",
      errors: [],
      warnings: [],
      base64HtmlResult: fisc ? null : b64(p.fragment),
      base64FullHtmlResultInfo: fisc ? null : b64(p.page),
      base64Result: fisc ? b64(JSON.stringify({ success: true })) : null,
    });
  }

  async function route(req: Request): Promise<Answer> {
    const path = new URL(req.url).pathname;
    if (req.method !== "POST") return envelope(404, "NOT_FOUND", "Not found");
    if (path === "/oauth/token") {
      const fault = takeFault("token");
      const early = fault ? await applyFault(fault) : null;
      return early ?? tokenGrant(await form(req), req.headers.get("authorization"));
    }
    const m = /^\/declaration\/api-declarations(-test)?\/?(result)?$/.exec(path);
    if (!m) return envelope(404, "NOT_FOUND", "Not found");
    const env = m[1] ? "test" : "production";
    const kind = m[2] ? "result" : "submit";
    stats[kind === "submit" ? "submitCalls" : "resultCalls"]++;
    if (options.latencyMs) await sleep(options.latencyMs);
    const fault = takeFault(kind);
    const after = fault && AFTER_FAULTS.has(fault.kind) ? fault : null;
    const early = fault && !after ? await applyFault(fault) : null;
    if (early) return early;
    const tokenError = checkToken(req.headers.get("authorization"), env);
    if (tokenError) return tokenError;
    let body: unknown;
    try {
      body = await req.json();
    } catch {
      return missingParams(["inputDto : must not be null"]);
    }
    if (typeof body !== "object" || body === null) {
      return missingParams(["inputDto : must not be null"]);
    }
    const b = body as Record<string, unknown>;
    const answer = kind === "submit" ? await submit(b, env) : result(b, env);
    if (after?.kind === "accept_then_delay") await sleep(after.ms);
    if (after?.kind === "accept_then_cut") {
      return new Answer(answer.status, answer.body, false, {}, true);
    }
    return answer;
  }

  async function applyFault(f: SimFault): Promise<Answer | null> {
    switch (f.kind) {
      case "delay":
        await sleep(f.ms);
        return null;
      case "status":
        return new Answer(
          f.status,
          f.body ?? { code: f.status, reason: "Error" },
          false,
          f.headers,
        );
      case "drop":
        await sleep(f.ms);
        return new Answer(504, { code: 504, reason: "Gateway Timeout" });
      case "accept_then_delay":
      case "accept_then_cut":
        return null; // applied after the request was processed
      case "malformed_json":
        return new Answer(200, "<html><body>Service Unavailable</body></html>", true);
      case "expired_token":
        return envelope(401, "EXPIRED_TOKEN", "Expired token");
    }
  }

  const form = async (req: Request) => new URLSearchParams(await req.text());

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    cert: tls.cert,
    key: tls.key,
    onListen: () => {},
  }, async (req) => {
    let a: Answer;
    try {
      a = await route(req);
    } catch {
      a = missingParams(["inputDto : must not be null"]); // the body could not be read
    }
    if (a.raw) {
      return new Response(String(a.body), {
        status: a.status,
        headers: { "content-type": "text/html", ...a.headers },
      });
    }
    if (a.cut) {
      const half = new TextEncoder().encode(JSON.stringify(a.body).slice(0, 10));
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(half);
          // After the status line and the first bytes went out: the connection breaks.
          setTimeout(
            () =>
              c.error(
                new Error("NRA simulator fault accept_then_cut: the answer is cut off on purpose"),
              ),
            50,
          );
        },
      });
      return new Response(body, {
        status: a.status,
        headers: { "content-type": "application/json" },
      });
    }
    return Response.json(a.body, { status: a.status, headers: a.headers });
  });
  const ca = createCaFetch(tls.caPem);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    stopping.abort();
    await server.shutdown();
    ca.close();
  };
  return {
    url: `https://127.0.0.1:${server.addr.port}`,
    caPem: tls.caPem,
    fetch: ca.fetch,
    received,
    submissions,
    stats,
    fail: (rule) => faults.push({ rule, left: rule.times ?? Infinity }),
    clearFaults: () => (faults = []),
    expireTokens: () => issued.forEach((g) => (g.until = 0)),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Usage of the standalone simulator. */
export const USAGE =
  `Usage: deno run -A scripts/nra_simulator.ts [--port N] [--save-dir DIR] [--stub] [--latency-ms N]
  --port N        listen on 127.0.0.1:N (default: a free port)
  --save-dir DIR  write every received file and its .p7s signature into DIR
  --stub          answer test submissions like the real stub (30E000000001, documentId 1)
  --latency-ms N  every submit and result call takes N ms (the portal's round trip)
Every non-self-signed certificate is recognised and may file for any EIK.`;

/**
 * Run the simulator until Ctrl-C, printing its URL, CA file and credentials.
 * @param args command-line arguments
 */
export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string" },
      "save-dir": { type: "string" },
      stub: { type: "boolean" },
      "latency-ms": { type: "string" },
      help: { type: "boolean" },
    },
  });
  if (values.help) return console.log(USAGE);
  const token = `sim-preissued-${crypto.randomUUID()}`;
  const sim = await startNraSimulator({
    port: values.port ? Number(values.port) : 0,
    saveDir: values["save-dir"],
    mimicTestStub: values.stub ?? false,
    latencyMs: values["latency-ms"] ? Number(values["latency-ms"]) : 0,
    recognised: "any",
    powerOfAttorney: "any",
    accessTokens: { [token]: Object.values(SIM_SCOPES) },
  });
  const caFile = await Deno.makeTempFile({ prefix: "nra-sim-ca-", suffix: ".pem" });
  await Deno.writeTextFile(caFile, sim.caPem);
  const portal = {
    baseUrl: sim.url,
    environment: "test",
    clientId: SIM_CLIENT.id,
    clientSecret: SIM_CLIENT.secret,
    caFile,
  };
  console.log(`NRA simulator listening on ${sim.url}`);
  console.log(`CA certificate: ${caFile}`);
  console.log(`Pre-issued access token: ${token}`);
  console.log(`agent.json "portal": ${JSON.stringify(portal, null, 2)}`);
  await new Promise<void>((resolve) => Deno.addSignalListener("SIGINT", resolve));
  await sim.stop();
  await Deno.remove(caFile);
}

if (import.meta.main) await main(Deno.args);
