/**
 * What can be known about a sender's certificate before the user is asked for a PIN: the
 * certificate read without it — a `certificateFile` (PEM or DER) named in the key store
 * reference, a PKCS#11 token's public certificate objects, the OS store's list, or a PKCS#12
 * file whose certificate bag is not encrypted — and whether it is valid on the clock. A
 * certificate that cannot be read without the PIN (an encrypted PKCS#12 bag, a token not
 * inserted) is "unknown": the page still offers the sender and the key store decides after it.
 * docs/live-portal.md § Before the page ("check what can be checked before asking for a PIN").
 * @module
 */
import { AppError } from "../../contract/mod.ts";
import type { CertificateInfo } from "../../signing/mod.ts";
import type { SenderConfig } from "./senders.ts";
import {
  type KeyStoreRef,
  openSenderKeyStore,
  pickCertificate,
  readCertificateFile,
} from "./sender_keys.ts";

/** A sender as the pre-check saw it. */
export interface SenderPrecheck {
  readonly sender: SenderConfig;
  readonly ref: KeyStoreRef | null;
  /** The certificate read without a PIN, or null when it cannot be. */
  readonly certificate: CertificateInfo | null;
  /** Why the sender cannot be used (its certificate is not valid now), or null. */
  readonly problem: AppError | null;
}

/**
 * The sender's certificate as far as it can be read without a PIN.
 * @param ref the key store reference
 * @returns the certificate, or null when the store needs the PIN (or cannot be opened now)
 * @throws nothing (an unreadable `certificateFile` or store is "unknown": null)
 */
export async function certificateWithoutPin(ref: KeyStoreRef): Promise<CertificateInfo | null> {
  try {
    if (ref.certificateFile) return await readCertificateFile(ref.certificateFile);
    const store = await openSenderKeyStore(ref);
    try {
      return await pickCertificate(store, ref);
    } finally {
      await store.close();
    }
  } catch {
    return null;
  }
}

/**
 * Whether a certificate is valid at an instant.
 * @param senderId the sender (named in the error)
 * @param cert the certificate
 * @param now epoch ms
 * @returns CERTIFICATE_INVALID (details: senderId, notBefore or notAfter), or null when valid
 * @throws nothing
 */
export function certificateProblem(
  senderId: string,
  cert: CertificateInfo,
  now: number,
): AppError | null {
  const iso = (d: Date) => d.toISOString();
  if (now > cert.notAfter.getTime()) {
    return new AppError(
      "CERTIFICATE_INVALID",
      `The certificate of sender "${senderId}" expired on ${iso(cert.notAfter)}: renew it with ` +
        "your QES provider and point the sender at the new one (see `agent doctor`)",
      { senderId, notAfter: iso(cert.notAfter) },
    );
  }
  if (now < cert.notBefore.getTime()) {
    return new AppError(
      "CERTIFICATE_INVALID",
      `The certificate of sender "${senderId}" is not valid before ${iso(cert.notBefore)}`,
      { senderId, notBefore: iso(cert.notBefore) },
    );
  }
  return null;
}

/**
 * Pre-check the senders of a live operation before the confirmation page: read each one's
 * certificate without a PIN (one after another: a PKCS#11 module is opened once at a time)
 * and check its validity on the clock.
 * @param senders the usable senders with their parsed key store references
 * @param now epoch ms (the agent's clock)
 * @returns one entry per sender, in order
 * @throws nothing
 */
export async function precheckSenders(
  senders: readonly { readonly sender: SenderConfig; readonly ref: KeyStoreRef | null }[],
  now: number,
): Promise<SenderPrecheck[]> {
  const out: SenderPrecheck[] = [];
  for (const { sender, ref } of senders) {
    const certificate = ref ? await certificateWithoutPin(ref) : null;
    const problem = certificate ? certificateProblem(sender.id, certificate, now) : null;
    out.push({ sender, ref, certificate, problem });
  }
  return out;
}
