/**
 * A cloud qualified signature as a {@link KeyStore} (docs/signing.md § 11): the
 * certificates are the signed-in user's CSC credentials; a signature is `signatures/signHash`
 * over the SHA-256 digest of the data (for CMS, of the signed attributes), authorized by the
 * credential's `authMode`: `explicit` sends the PIN typed on the confirmation page to
 * `credentials/authorize`, `oauth2code` asks the person to approve the hashes at the provider
 * (an injected step that opens the provider's page and waits for the agent's callback). A
 * credential that also asks a one-time code has it asked by another injected step for each
 * authorization (after `credentials/sendOTP` when the code is `online`). Many
 * hashes go in one authorization ({@link CscKeyStore.signMany}), split in parts of the
 * credential's `multisign` when the provider limits it.
 * @module
 */
import { AppError } from "../../contract/mod.ts";
import { toCertificateInfo } from "../cert_info.ts";
import type { CertificateInfo, KeyStore } from "../keystore.ts";
import { type CscClient, type CscCredential, ECDSA_SHA256_OID, RSA_OID } from "./client.ts";

/** An approval of hashes at the provider (`oauth2code`): returns the credential token. */
export type CscApprove = (req: {
  readonly credentialId: string;
  /** SHA-256 digests, base64. */
  readonly hashes: readonly string[];
  /** This approval's number and how many the batch needs (split by the provider's limit). */
  readonly part: number;
  readonly parts: number;
}) => Promise<string>;

/** Asks the person for the one-time code of one authorization (after it was sent, when
 * `online`); returns the code typed (never kept). */
export type CscAskOtp = (req: {
  readonly credentialId: string;
  /** The provider sent the code (SMS, push) on `credentials/sendOTP`; else the holder's own
   * device makes it (`offline`). */
  readonly online: boolean;
  /** How many signatures this authorization covers. */
  readonly signatures: number;
  readonly part: number;
  readonly parts: number;
}) => Promise<string>;

/** Options of {@link openCscKeyStore}. */
export interface CscKeyStoreOptions {
  readonly client: CscClient;
  /** A service access token (from the kept refresh token); called once per store. */
  readonly accessToken: () => Promise<string>;
  /** Approves hashes of an `oauth2code` credential (absent: such credentials cannot sign). */
  readonly approve?: CscApprove;
  /** Asks the one-time code of `explicit` credentials that need one (absent: they cannot sign). */
  readonly askOtp?: CscAskOtp;
  /** Told before the authorizations of a {@link CscKeyStore.signMany} start: how many. */
  readonly onAuthorizations?: (parts: number, hashes: number) => void;
}

/** A CSC key store: a {@link KeyStore} that also signs many data at once. */
export interface CscKeyStore extends KeyStore {
  /**
   * Signs each of `data` (SHA-256 each) with as few authorizations as the provider allows.
   * @param certId the credential id
   * @param data the bytes to sign (for CMS: each file's signed attributes)
   * @param pin the PIN (explicit mode; used for each authorization of this call, never kept)
   * @returns one signature per item, in order
   * @throws AppError as {@link KeyStore.sign}, REMOTE_SIGN_IN_REQUIRED,
   *   REMOTE_SIGNING_TIMEOUT, SENDER_NOT_CHOSEN (declined at the provider)
   */
  signMany(certId: string, data: readonly Uint8Array[], pin?: string): Promise<Uint8Array[]>;
  /**
   * How many authorizations `n` signatures take with this credential.
   * @param certId the credential id
   * @param n signatures
   */
  authorizationsFor(certId: string, n: number): Promise<number>;
  /** The credential's `authMode`, whether it asks a PIN, and its one-time code's kind. */
  authOf(
    certId: string,
  ): Promise<{ authMode: string; pin: boolean; otp: "online" | "offline" | null }>;
}

const b64 = (b: Uint8Array) => b.toBase64();

/**
 * Open a CSC credential list as a key store.
 * @param o the client, the access token source, the approval step
 * @returns the store (nothing is called before the first use)
 * @throws never (errors come from its methods)
 */
export function openCscKeyStore(o: CscKeyStoreOptions): CscKeyStore {
  let access: Promise<string> | null = null;
  let creds: Promise<CscCredential[]> | null = null;
  const token = () => (access ??= o.accessToken());
  const list = () => (creds ??= token().then((t) => o.client.credentials(t)));
  const find = async (certId: string) => {
    const c = (await list()).find((x) => x.id === certId);
    if (!c) {
      throw new AppError("CERTIFICATE_INVALID", "The cloud signature has no such credential", {
        credentialId: certId,
      });
    }
    return c;
  };
  /** The code of one authorization: sent first when `online` (docs/signing.md § 11). */
  const askOtp = async (cred: CscCredential, signatures: number, part: number, parts: number) => {
    if (!o.askOtp) {
      throw new AppError(
        "KEYSTORE_UNAVAILABLE",
        "This credential asks a one-time code, and no page to type it is available",
      );
    }
    const online = cred.otpType === "online";
    if (online) await o.client.sendOtp(await token(), cred.id);
    return await o.askOtp({ credentialId: cred.id, online, signatures, part, parts });
  };
  const signMany = async (certId: string, data: readonly Uint8Array[], pin?: string) => {
    const cred = await find(certId);
    // non-null: the CSC client refuses a credential without certificates (csc/client.ts)
    const info = toCertificateInfo(cred.certificates[0]!, cred.id);
    const algo = info.keyAlgorithm === "RSA" ? RSA_OID : ECDSA_SHA256_OID;
    const hashes = await Promise.all(
      data.map(async (d) => b64(new Uint8Array(await crypto.subtle.digest("SHA-256", d.slice())))),
    );
    const parts: string[][] = [];
    for (let i = 0; i < hashes.length; i += cred.multisign) {
      parts.push(hashes.slice(i, i + cred.multisign));
    }
    o.onAuthorizations?.(parts.length, hashes.length);
    const out: Uint8Array[] = [];
    for (const [i, part] of parts.entries()) {
      if (cred.authMode === "oauth2code") {
        if (!o.approve) {
          throw new AppError(
            "KEYSTORE_UNAVAILABLE",
            "This credential is approved at the provider, and no approval step is available",
          );
        }
        const bearer = await o.approve({
          credentialId: cred.id,
          hashes: part,
          part: i + 1,
          parts: parts.length,
        });
        out.push(...await o.client.signHash(bearer, cred.id, part, algo));
      } else {
        const bearer = await token();
        const otp = cred.otp ? await askOtp(cred, part.length, i + 1, parts.length) : undefined;
        const sad = await o.client.authorize(
          bearer,
          cred.id,
          part,
          cred.pin ? pin : undefined,
          otp,
        );
        out.push(...await o.client.signHash(bearer, cred.id, part, algo, sad));
      }
    }
    return out;
  };
  return {
    kind: "csc",
    async listCertificates(): Promise<CertificateInfo[]> {
      return (await list()).map((c) => ({
        // non-null: the CSC client refuses a credential without certificates (csc/client.ts)
        ...toCertificateInfo(c.certificates[0]!, c.id),
        label: c.description,
      }));
    },
    // non-null: signMany answers one signature per input, and it was given one
    sign: async (certId, data, pin) => (await signMany(certId, [data], pin))[0]!,
    signMany,
    authorizationsFor: async (certId, n) => Math.ceil(n / (await find(certId)).multisign),
    authOf: async (certId) => {
      const c = await find(certId);
      return { authMode: c.authMode, pin: c.pin, otp: c.otpType };
    },
    close: () => {
      access = null;
      creds = null;
      return Promise.resolve();
    },
  };
}
