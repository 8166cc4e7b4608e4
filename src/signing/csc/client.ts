/**
 * A client of a remote signature service that speaks the Cloud Signature Consortium API v2
 * (docs/signing.md § 11): `info`, the OAuth 2.0 token endpoint (authorization code
 * with PKCE, refresh token), `credentials/list`, `credentials/info`, `credentials/authorize`
 * and `signatures/signHash`. Every call has a time limit; the provider's `error` and
 * `error_description` become the details of a catalog code, never an unmapped failure. Tokens,
 * PINs and SADs never appear in an error or its details.
 * @module
 */
import { AppError } from "../../contract/mod.ts";

/** The OID of SHA-256 (the only digest the agent asks for). */
export const SHA256_OID = "2.16.840.1.101.3.4.2.1";
/** The OID of rsaEncryption: signHash with it and SHA-256 gives a PKCS#1 v1.5 signature. */
export const RSA_OID = "1.2.840.113549.1.1.1";
/** The OID of ecdsa-with-SHA256. */
export const ECDSA_SHA256_OID = "1.2.840.10045.4.3.2";

/** What the agent reads from `info`. */
export interface CscInfo {
  readonly name: string;
  readonly specs: string;
  /** Base URI of the OAuth 2.0 server (`<oauth2>/oauth2/authorize`, `/oauth2/token`). */
  readonly oauth2: string;
  readonly authType: readonly string[];
  readonly methods: readonly string[];
}

/** A credential as `credentials/info` describes it (the fields the agent uses). */
export interface CscCredential {
  readonly id: string;
  /** `explicit` (PIN/OTP sent to credentials/authorize), `oauth2code` (approved at the
   * provider), `implicit` (the provider asks by itself). */
  readonly authMode: string;
  /** The signer certificate first, then its chain, DER. */
  readonly certificates: readonly Uint8Array[];
  /** Whether a PIN / an OTP is asked (`explicit`). */
  readonly pin: boolean;
  readonly otp: boolean;
  /** `online` (the provider sends the code on `credentials/sendOTP`) or `offline` (the holder's
   * own device makes it); null when no OTP is asked. */
  readonly otpType: "online" | "offline" | null;
  /** The most hashes one authorization covers (`multisign`; 1 when absent). */
  readonly multisign: number;
  readonly description: string;
}

/** Tokens of the token endpoint. */
export interface CscTokens {
  readonly accessToken: string;
  readonly refreshToken?: string;
}

/** Options of {@link CscClient}. */
export interface CscClientOptions {
  /** The service's base URL, up to and including `/csc/v2`. */
  readonly serviceUrl: string;
  /** The OAuth client id the provider registered for this agent. */
  readonly clientId: string;
  /** The fetch to use (one trusting a test CA in tests). */
  readonly fetch?: typeof fetch;
  /** Time limit of one call, ms (default 60 000; an approval on a phone takes a while). */
  readonly timeoutMs?: number;
}

/** Provider error codes that mean "sign in again". */
const SIGN_IN_AGAIN = new Set(["invalid_grant", "invalid_token"]);

/**
 * The CSC API v2 client of one service and OAuth client.
 */
export class CscClient {
  readonly serviceUrl: string;
  readonly clientId: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  #info: CscInfo | null = null;

  constructor(o: CscClientOptions) {
    this.serviceUrl = o.serviceUrl.replace(/\/+$/, "");
    this.clientId = o.clientId;
    this.#fetch = o.fetch ?? fetch;
    this.#timeoutMs = o.timeoutMs ?? 60_000;
  }

  /**
   * One call: JSON or form body, JSON answer; errors mapped to catalog codes.
   * @throws AppError REMOTE_SIGNING_TIMEOUT (no answer in time), REMOTE_SIGN_IN_REQUIRED
   *   (`invalid_grant`, `invalid_token`), SENDER_NOT_CHOSEN (`access_denied`: the user
   *   declined), PIN_INCORRECT (`invalid_pin`), OTP_INCORRECT (`invalid_otp`), SIGNING_FAILED
   *   (any other
   *   provider error or an unreadable answer; details `providerError`, `providerDescription`)
   */
  async #call(
    url: string,
    body: Record<string, unknown> | URLSearchParams,
    bearer?: string,
  ): Promise<Record<string, unknown>> {
    const method = url.slice(url.lastIndexOf("/", url.lastIndexOf("/") - 1) + 1);
    const form = body instanceof URLSearchParams;
    let res: Response;
    try {
      res = await this.#fetch(url, {
        method: "POST",
        headers: {
          "content-type": form ? "application/x-www-form-urlencoded" : "application/json",
          ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        },
        body: form ? body.toString() : JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (e) {
      const timeout = e instanceof DOMException && e.name === "TimeoutError";
      throw new AppError(
        timeout ? "REMOTE_SIGNING_TIMEOUT" : "SIGNING_FAILED",
        timeout
          ? `The cloud signature service did not answer ${method} within ${this.#timeoutMs} ms`
          : `The cloud signature service could not be reached (${method})`,
        { method, service: this.serviceUrl },
        e,
      );
    }
    let json: Record<string, unknown> | null = null;
    try {
      const parsed = await res.json();
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) json = parsed;
    } catch {
      json = null;
    }
    if (res.ok && json) return json;
    if (res.status === 204) return {}; // credentials/sendOTP answers with no content
    const providerError = typeof json?.error === "string" ? json.error : `http_${res.status}`;
    const providerDescription = typeof json?.error_description === "string"
      ? json.error_description.slice(0, 300)
      : null;
    const details = { method, providerError, providerDescription, httpStatus: res.status };
    if (SIGN_IN_AGAIN.has(providerError) || res.status === 401) {
      throw new AppError(
        "REMOTE_SIGN_IN_REQUIRED",
        "The cloud signature service's sign-in expired or was revoked: sign in again",
        details,
      );
    }
    if (providerError === "access_denied") {
      throw new AppError(
        "SENDER_NOT_CHOSEN",
        "The signature was declined at the provider",
        details,
      );
    }
    if (providerError === "invalid_pin") {
      throw new AppError("PIN_INCORRECT", "The cloud signature's PIN was wrong", {
        method,
        providerError,
      });
    }
    if (providerError === "invalid_otp") {
      throw new AppError("OTP_INCORRECT", "The cloud signature's one-time code was wrong", {
        method,
        providerError,
      });
    }
    throw new AppError(
      "SIGNING_FAILED",
      `The cloud signature service refused ${method}: ${providerError}` +
        (providerDescription ? ` (${providerDescription})` : ""),
      details,
    );
  }

  /**
   * The service's `info` (read once and kept).
   * @returns name, OAuth base URI, auth types, methods
   * @throws AppError SIGNING_FAILED when it is not a CSC service, REMOTE_SIGNING_TIMEOUT
   */
  async info(): Promise<CscInfo> {
    if (this.#info) return this.#info;
    const j = await this.#call(`${this.serviceUrl}/info`, { lang: "bg-BG" });
    if (typeof j.oauth2 !== "string" || !Array.isArray(j.methods)) {
      throw new AppError(
        "SIGNING_FAILED",
        "The address does not answer as a CSC API v2 service (info has no oauth2 or methods)",
        { service: this.serviceUrl },
      );
    }
    this.#info = {
      name: String(j.name ?? ""),
      specs: String(j.specs ?? ""),
      oauth2: j.oauth2.replace(/\/+$/, ""),
      authType: Array.isArray(j.authType) ? j.authType.map(String) : [],
      methods: j.methods.map(String),
    };
    return this.#info;
  }

  /**
   * Exchange an authorization code (PKCE) for tokens.
   * @param code the code the callback received
   * @param verifier the PKCE code verifier
   * @param redirectUri the same redirect URI the authorization request named
   * @returns access token and (scope `service`) refresh token
   * @throws AppError as {@link CscClient.info}, REMOTE_SIGN_IN_REQUIRED (`invalid_grant`)
   */
  async exchangeCode(code: string, verifier: string, redirectUri: string): Promise<CscTokens> {
    const { oauth2 } = await this.info();
    const j = await this.#call(
      `${oauth2}/oauth2/token`,
      new URLSearchParams({
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: this.clientId,
      }),
    );
    return tokensOf(j);
  }

  /**
   * A new access token from the kept refresh token.
   * @param refreshToken the refresh token (a secret)
   * @returns the tokens (a new refresh token when the provider rotates it)
   * @throws AppError REMOTE_SIGN_IN_REQUIRED (expired or revoked), REMOTE_SIGNING_TIMEOUT,
   *   SIGNING_FAILED
   */
  async refresh(refreshToken: string): Promise<CscTokens> {
    const { oauth2 } = await this.info();
    const j = await this.#call(
      `${oauth2}/oauth2/token`,
      new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        client_id: this.clientId,
      }),
    );
    return tokensOf(j);
  }

  /**
   * The credentials of the signed-in user, each with its certificate chain.
   * @param accessToken a service access token
   * @returns the credentials
   * @throws AppError as {@link CscClient.credential}
   */
  async credentials(accessToken: string): Promise<CscCredential[]> {
    const j = await this.#call(`${this.serviceUrl}/credentials/list`, {}, accessToken);
    const ids = Array.isArray(j.credentialIDs) ? j.credentialIDs.map(String) : [];
    return await Promise.all(ids.map((id) => this.credential(accessToken, id)));
  }

  /**
   * One credential's `credentials/info` with its certificate chain.
   * @param accessToken a service access token
   * @param id the credentialID
   * @returns the credential
   * @throws AppError SIGNING_FAILED (unknown credential, no certificate), REMOTE_SIGN_IN_REQUIRED,
   *   REMOTE_SIGNING_TIMEOUT
   */
  async credential(accessToken: string, id: string): Promise<CscCredential> {
    const j = await this.#call(
      `${this.serviceUrl}/credentials/info`,
      { credentialID: id, certificates: "chain", certInfo: true, authInfo: true },
      accessToken,
    );
    const cert = (j.cert ?? {}) as Record<string, unknown>;
    const certificates = Array.isArray(cert.certificates)
      ? cert.certificates.map((c) => Uint8Array.fromBase64(String(c)))
      : [];
    if (certificates.length === 0) {
      throw new AppError("SIGNING_FAILED", "The credential has no certificate", {
        credentialId: id,
      });
    }
    const present = (x: unknown) =>
      typeof x === "object" && x !== null &&
      ["true", "optional"].includes(String((x as { presence?: unknown }).presence));
    const multisign = Number(j.multisign);
    const otp = present(j.OTP);
    const otpType = (j.OTP as { type?: unknown } | undefined)?.type;
    return {
      id,
      authMode: String(j.authMode ?? "explicit"),
      certificates,
      pin: present(j.PIN),
      otp,
      otpType: otp ? (otpType === "offline" ? "offline" : "online") : null,
      multisign: Number.isInteger(multisign) && multisign > 0 ? multisign : 1,
      description: String(j.description ?? ""),
    };
  }

  /**
   * `credentials/sendOTP`: asks the provider to send an `online` one-time code to the holder
   * (an SMS or a push); the code is then typed on the agent's page.
   * @param accessToken a service access token
   * @param credentialId the credential
   * @throws AppError SIGNING_FAILED (the provider refused), REMOTE_SIGN_IN_REQUIRED,
   *   REMOTE_SIGNING_TIMEOUT
   */
  async sendOtp(accessToken: string, credentialId: string): Promise<void> {
    await this.#call(`${this.serviceUrl}/credentials/sendOTP`, {
      credentialID: credentialId,
    }, accessToken);
  }

  /**
   * `credentials/authorize` (explicit mode): the SAD for exactly these hashes.
   * @param accessToken a service access token
   * @param credentialId the credential
   * @param hashes SHA-256 digests, base64
   * @param pin the PIN typed on the confirmation page (sent once, never kept)
   * @param otp the one-time code, when the credential asks one
   * @returns the SAD (a secret)
   * @throws AppError PIN_INCORRECT, OTP_INCORRECT, SENDER_NOT_CHOSEN (declined), SIGNING_FAILED,
   *   REMOTE_SIGN_IN_REQUIRED, REMOTE_SIGNING_TIMEOUT
   */
  async authorize(
    accessToken: string,
    credentialId: string,
    hashes: readonly string[],
    pin?: string,
    otp?: string,
  ): Promise<string> {
    const j = await this.#call(`${this.serviceUrl}/credentials/authorize`, {
      credentialID: credentialId,
      numSignatures: hashes.length,
      hashes,
      hashAlgorithmOID: SHA256_OID,
      ...(pin !== undefined ? { PIN: pin } : {}),
      ...(otp !== undefined ? { OTP: otp } : {}),
    }, accessToken);
    if (typeof j.SAD !== "string") {
      throw new AppError("SIGNING_FAILED", "credentials/authorize answered without a SAD", {
        credentialId,
      });
    }
    return j.SAD;
  }

  /**
   * `signatures/signHash`: one signature per hash, in order.
   * @param bearer the service access token (with a SAD) or the credential token (oauth2code)
   * @param credentialId the credential
   * @param hashes SHA-256 digests, base64
   * @param signAlgo the signature algorithm's OID ({@link RSA_OID}, {@link ECDSA_SHA256_OID})
   * @param sad the SAD of {@link CscClient.authorize} (explicit mode)
   * @returns the signatures' bytes, in the hashes' order
   * @throws AppError SIGNING_FAILED (refused, or not one signature per hash),
   *   REMOTE_SIGN_IN_REQUIRED, REMOTE_SIGNING_TIMEOUT
   */
  async signHash(
    bearer: string,
    credentialId: string,
    hashes: readonly string[],
    signAlgo: string,
    sad?: string,
  ): Promise<Uint8Array[]> {
    const j = await this.#call(`${this.serviceUrl}/signatures/signHash`, {
      credentialID: credentialId,
      hashes,
      hashAlgorithmOID: SHA256_OID,
      signAlgo,
      ...(sad !== undefined ? { SAD: sad } : {}),
    }, bearer);
    const sigs = Array.isArray(j.signatures) ? j.signatures : [];
    if (sigs.length !== hashes.length) {
      throw new AppError(
        "SIGNING_FAILED",
        `signHash answered ${sigs.length} signatures for ${hashes.length} hashes`,
        { credentialId },
      );
    }
    return sigs.map((s) => Uint8Array.fromBase64(String(s)));
  }
}

function tokensOf(j: Record<string, unknown>): CscTokens {
  if (typeof j.access_token !== "string") {
    throw new AppError("SIGNING_FAILED", "The token endpoint answered without an access token");
  }
  return {
    accessToken: j.access_token,
    ...(typeof j.refresh_token === "string" ? { refreshToken: j.refresh_token } : {}),
  };
}
