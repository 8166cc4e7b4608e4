/**
 * A cloud sender (docs/signing.md § 11): a qualified signature held by a provider
 * that offers the Cloud Signature Consortium API v2. The accountant signs in once with OAuth 2.0
 * authorization code + PKCE in the browser (scope `service`, the agent's loopback callback,
 * `state` checked); the provider's refresh token is kept encrypted (AES-256-GCM) in the data
 * directory and never logged; each signing refreshes it into an access token.
 *
 * Its key store reference in agent.json:
 * `{ "type": "csc", "serviceUrl": "https://…/csc/v2", "clientId": "…", "certId": "<credentialID>",
 *   "tokenFile": "/abs/csc/<name>.token", "authMode": "explicit" | "oauth2code", "pin": true,
 *   "caFile"?: "/abs/ca.pem", "certificateFile": "/abs/…" }`.
 *
 * Providers known to the agent are read from `csc_providers.json` in the data directory (a list
 * of `{ "name", "serviceUrl", "clientId" }` the accountant or the installer writes); none is
 * built in.
 * @module
 */
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { AppError } from "../../contract/mod.ts";
import { writePrivateFile } from "../../private_files.ts";
import type {
  CscApprove,
  CscAskOtp,
  CscClient,
  CscCredential,
  CscKeyStore,
  PkceRequest,
} from "../../signing/mod.ts";
export type { CscCredential } from "../../signing/mod.ts";

const signing = () => import("../../signing/mod.ts");

/** The `csc` member of a sender's key store reference. */
export const CscRefFields = {
  serviceUrl: z.string().url(),
  clientId: z.string().min(1),
  tokenFile: z.string().min(1),
  authMode: z.string().default("explicit"),
  /** Whether the credential asks a PIN (explicit mode). */
  pin: z.boolean().default(true),
  /** Extra CA certificates (PEM file) to trust for the service (the simulator in tests). */
  caFile: z.string().optional(),
  /** Time limit of one call to the service, seconds (default 60: approvals on a phone). */
  timeoutSeconds: z.number().int().min(1).max(600).optional(),
};

/** What a csc reference holds (see {@link CscRefFields}). */
export interface CscRef {
  readonly serviceUrl: string;
  readonly clientId: string;
  readonly tokenFile: string;
  readonly authMode: string;
  readonly pin: boolean;
  readonly caFile?: string | undefined;
  readonly certId?: string | undefined;
  readonly timeoutSeconds?: number | undefined;
}

/** One provider of `csc_providers.json`. */
export const CscProvider = z.object({
  name: z.string().min(1),
  serviceUrl: z.string().url(),
  clientId: z.string().min(1),
  /** Extra CA certificates (PEM file) to trust for the service (a test service). */
  caFile: z.string().optional(),
});
/** A known provider. */
export type CscProvider = z.infer<typeof CscProvider>;

/** The providers' file in the data directory. */
export const CSC_PROVIDERS_FILE = "csc_providers.json";

/**
 * The providers listed in the data directory's `csc_providers.json` (absent: none).
 * @param dataDir the agent's data directory
 * @returns the providers, in the file's order
 * @throws AppError VALIDATION_FAILED (`field` "csc_providers.json") when the file is malformed
 */
export async function readCscProviders(dataDir: string): Promise<CscProvider[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(dataDir, CSC_PROVIDERS_FILE));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  try {
    return z.array(CscProvider).parse(JSON.parse(text));
  } catch {
    throw new AppError(
      "VALIDATION_FAILED",
      `${CSC_PROVIDERS_FILE} must be a JSON list of { name, serviceUrl, clientId }`,
      { field: CSC_PROVIDERS_FILE },
    );
  }
}

/** The CSC client of a reference (trusting its `caFile` when it names one). */
export async function cscClient(
  ref: Pick<CscRef, "serviceUrl" | "clientId" | "caFile">,
  timeoutMs?: number,
): Promise<CscClient> {
  let f: typeof fetch | undefined;
  if (ref.caFile) {
    let pem: string;
    try {
      pem = await Deno.readTextFile(ref.caFile);
    } catch (e) {
      throw new AppError("KEYSTORE_UNAVAILABLE", "Cannot read the cloud service's CA file", {}, e);
    }
    const client = Deno.createHttpClient({ caCerts: [pem] });
    f = (input, init) => fetch(input, { ...init, client });
  }
  const { CscClient } = await signing();
  return new CscClient({ ...ref, ...(f ? { fetch: f } : {}), ...(timeoutMs ? { timeoutMs } : {}) });
}

// --- the refresh token at rest ------------------------------------------------------------

const KEY_FILE = "key";

async function sealKey(dir: string): Promise<CryptoKey> {
  const path = join(dir, KEY_FILE);
  let raw: Uint8Array;
  try {
    raw = await Deno.readFile(path);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
    raw = crypto.getRandomValues(new Uint8Array(32));
    await Deno.writeFile(path, raw, { mode: 0o600, createNew: true }).catch(async (w) => {
      if (!(w instanceof Deno.errors.AlreadyExists)) throw w;
      raw = await Deno.readFile(path);
    });
  }
  return await crypto.subtle.importKey("raw", raw.slice(), "AES-GCM", false, [
    "encrypt",
    "decrypt",
  ]);
}

/**
 * Keep a refresh token: AES-256-GCM with the data directory's `csc/key` (owner-only), the file's
 * name as additional data (a sealed token moved to another file does not open).
 * @param tokenFile absolute path of the sealed file (its folder is made owner-only)
 * @param token the refresh token
 */
export async function sealRefreshToken(tokenFile: string, token: string): Promise<void> {
  const dir = dirname(tokenFile);
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const key = await sealKey(dir);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(basename(tokenFile)) },
      key,
      new TextEncoder().encode(token),
    ),
  );
  const text = JSON.stringify({ v: 1, alg: "A256GCM", iv: iv.toBase64(), ct: ct.toBase64() });
  await writePrivateFile(tokenFile, text);
}

/**
 * Read a kept refresh token.
 * @param tokenFile the sealed file
 * @returns the refresh token
 * @throws AppError REMOTE_SIGN_IN_REQUIRED when the file is missing or does not open
 */
export async function openRefreshToken(tokenFile: string): Promise<string> {
  try {
    const j = JSON.parse(await Deno.readTextFile(tokenFile));
    const key = await sealKey(dirname(tokenFile));
    const plain = await crypto.subtle.decrypt(
      {
        name: "AES-GCM",
        iv: Uint8Array.fromBase64(j.iv),
        additionalData: new TextEncoder().encode(basename(tokenFile)),
      },
      key,
      Uint8Array.fromBase64(j.ct),
    );
    return new TextDecoder().decode(plain);
  } catch (e) {
    throw new AppError(
      "REMOTE_SIGN_IN_REQUIRED",
      "The cloud signature's sign-in is not kept on this computer: sign in again",
      {},
      e,
    );
  }
}

// --- the key store --------------------------------------------------------------------------

/** The steps a person takes on the agent's pages while a cloud signature signs: approve at the
 * provider (`oauth2code`), type the one-time code (`explicit` with an OTP). */
export interface CscPersonSteps {
  readonly approve?: CscApprove;
  readonly askOtp?: CscAskOtp;
}

/**
 * Open a cloud sender's key store: the kept refresh token becomes an access token on first
 * use (a rotated refresh token is kept again).
 * @param ref the sender's csc reference
 * @param stepsFor the person's steps over the sender's client: the approval of `oauth2code`
 *   credentials, the one-time code of those that ask one (absent: such credentials cannot sign)
 * @param onAuthorizations told how many approvals a signing takes
 * @returns the key store
 * @throws AppError KEYSTORE_UNAVAILABLE (unreadable CA file); sign-in and provider errors come
 *   from the store's methods (REMOTE_SIGN_IN_REQUIRED, SIGNING_FAILED, REMOTE_SIGNING_TIMEOUT)
 */
export async function openCscSender(
  ref: CscRef,
  stepsFor?: (client: CscClient) => CscPersonSteps,
  onAuthorizations?: (parts: number, hashes: number) => void,
): Promise<CscKeyStore> {
  const client = await cscClient(ref, ref.timeoutSeconds ? ref.timeoutSeconds * 1000 : undefined);
  const { openCscKeyStore } = await signing();
  return openCscKeyStore({
    client,
    accessToken: async () => {
      const t = await client.refresh(await openRefreshToken(ref.tokenFile));
      if (t.refreshToken) await sealRefreshToken(ref.tokenFile, t.refreshToken);
      return t.accessToken;
    },
    ...(stepsFor ? stepsFor(client) : {}),
    ...(onAuthorizations ? { onAuthorizations } : {}),
  });
}

// --- sign-in --------------------------------------------------------------------------------

/** A sign-in under way: the provider's URL to open, and its end at the callback. */
export interface CscSignIn {
  /** The provider's authorization URL (open it in the browser). */
  readonly url: string;
  /** The provider's name (from `info`). */
  readonly provider: string;
  /**
   * End the sign-in with the callback's query: `state` checked, code exchanged (PKCE), the
   * refresh token kept in `tokenFile`, the credentials listed with their chains.
   * @throws AppError SENDER_NOT_CHOSEN (declined), VALIDATION_FAILED (`field` "state": not
   *   this sign-in's callback), REMOTE_SIGN_IN_REQUIRED, SIGNING_FAILED
   */
  finish(query: URLSearchParams): Promise<CscCredential[]>;
}

/**
 * Begin a sign-in (scope `service`).
 * @param ref service URL, client id, CA file, and where to keep the refresh token
 * @param redirectUri the agent's loopback callback (`http://127.0.0.1:<port>/…`)
 * @returns the sign-in
 * @throws AppError SIGNING_FAILED (not a CSC service), REMOTE_SIGNING_TIMEOUT
 */
export async function beginCscSignIn(
  ref: Pick<CscRef, "serviceUrl" | "clientId" | "caFile" | "tokenFile">,
  redirectUri: string,
): Promise<CscSignIn> {
  const client = await cscClient(ref);
  const info = await client.info();
  const { authorizeUrl, newPkceRequest } = await signing();
  const pkce: PkceRequest = await newPkceRequest();
  let used = false;
  return {
    url: authorizeUrl(info.oauth2, ref.clientId, redirectUri, pkce, { scope: "service" }),
    provider: info.name,
    async finish(q) {
      if (used || q.get("state") !== pkce.state) {
        throw new AppError("VALIDATION_FAILED", "The sign-in answer is not this sign-in's", {
          field: "state",
        });
      }
      used = true;
      const error = q.get("error");
      if (error) {
        throw new AppError(
          error === "access_denied" ? "SENDER_NOT_CHOSEN" : "SIGNING_FAILED",
          `The provider did not sign you in: ${error}`,
          { providerError: error, providerDescription: q.get("error_description") },
        );
      }
      const t = await client.exchangeCode(q.get("code") ?? "", pkce.verifier, redirectUri);
      if (!t.refreshToken) {
        throw new AppError("SIGNING_FAILED", "The provider gave no refresh token");
      }
      await sealRefreshToken(ref.tokenFile, t.refreshToken);
      return await client.credentials(t.accessToken);
    },
  };
}

/**
 * Where a new cloud sender's refresh token is kept: `<dataDir>/csc/<random>.token`.
 * @param dataDir the agent's data directory
 */
export const newTokenFile = (dataDir: string): string =>
  join(dataDir, "csc", `${crypto.randomUUID()}.token`);

/**
 * The signing steps a cloud sender gives the portal: `prepare` signs all files of a filing or a
 * batch with as few approvals as the provider allows (one, unless it limits the hashes per
 * authorization), and `sign` returns a file's prepared signature (or signs it alone). Every
 * signature is verified with the certificate before its CMS is returned (src/signing/cms.ts).
 * @param store the cloud sender's key store
 * @param cert the credential's certificate
 * @param pin the PIN typed on the confirmation page (explicit mode; never kept past the batch)
 * @returns `sign` and `prepare`
 */
export function cscSigning(
  store: CscKeyStore,
  cert: { id: string; der: Uint8Array },
  pin: string | undefined,
): {
  sign: (bytes: Uint8Array) => Promise<Uint8Array>;
  prepare: (files: readonly Uint8Array[]) => Promise<void>;
} {
  const prepared = new Map<string, Promise<Uint8Array>>();
  const keyOf = async (b: Uint8Array) =>
    new Uint8Array(await crypto.subtle.digest("SHA-256", b.slice())).toHex();
  const prepare = async (files: readonly Uint8Array[]) => {
    const keys = await Promise.all(files.map(keyOf));
    const todo = new Map<string, Uint8Array>();
    keys.forEach((k, i) => {
      // non-null: keys has one key per file (computed from files)
      if (!prepared.has(k)) todo.set(k, files[i]!);
    });
    if (todo.size === 0) return;
    const { signDetachedMany } = await signing();
    const all = signDetachedMany(
      [...todo.values()],
      cert.der,
      (tbs) => store.signMany(cert.id, tbs, pin),
    );
    [...todo.keys()].forEach((k, i) => {
      // non-null: all answers one signature per file of todo, in its order
      const one = all.then((p) => p[i]!);
      one.catch(() => {}); // read by `sign`; a failure is reported there, once per file
      prepared.set(k, one);
    });
    await all.catch(() => {});
  };
  return {
    prepare,
    async sign(bytes) {
      const k = await keyOf(bytes);
      if (!prepared.has(k)) await prepare([bytes]);
      // non-null: prepare() on the line above stored it
      return await prepared.get(k)!;
    },
  };
}
