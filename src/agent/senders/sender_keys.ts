/**
 * A sender's signing key: opens the key store its `keystore` reference names, picks the
 * certificate, and gives the portal a CMS/PKCS#7 detached signer (issue #5 § 1–3).
 *
 * Key-store references in agent.json (never sent to pages):
 * `{ "type": "pkcs12", "file": "/abs/sender.p12" }`,
 * `{ "type": "pkcs11", "module": "/path/lib.so", "tokenLabel"?: "…", "certId"?: "pkcs11:…" }`,
 * `{ "type": "windows", "thumbprint": "…" }`, `{ "type": "macos", "label"?: "…" }`.
 * @module
 */
import { z } from "zod";
import { AppError } from "../../contract/mod.ts";
import type { CertificateInfo, KeyStore } from "../../signing/mod.ts";
import type { PortalContext, SenderRef } from "../../portal/mod.ts";

/** The signing library (pkijs, @peculiar/x509) loads on first use: test-mode agents and the
 * agent's start never pay for it. */
const signing = () => import("../../signing/mod.ts");

/** The key-store reference of a sender. */
export const KeystoreRef = z.discriminatedUnion("type", [
  z.object({ type: z.literal("pkcs12"), file: z.string().min(1), certId: z.string().optional() }),
  z.object({
    type: z.literal("pkcs11"),
    module: z.string().min(1),
    tokenLabel: z.string().optional(),
    certId: z.string().optional(),
  }),
  z.object({
    type: z.literal("windows"),
    thumbprint: z.string().min(1),
    certId: z.string().optional(),
  }),
  z.object({
    type: z.literal("macos"),
    label: z.string().optional(),
    certId: z.string().optional(),
  }),
]);
/** Parsed key-store reference. */
export type KeystoreRef = z.infer<typeof KeystoreRef>;

/**
 * Parse a sender's `keystore` field.
 * @param raw the field (may be undefined)
 * @returns the reference, or null when the sender has none
 * @throws AppError KEYSTORE_UNAVAILABLE for a malformed reference
 */
export function parseKeystoreRef(raw: unknown): KeystoreRef | null {
  if (raw === undefined || raw === null) return null;
  const r = KeystoreRef.safeParse(raw);
  if (!r.success) {
    throw new AppError("KEYSTORE_UNAVAILABLE", "The sender's key store reference is invalid");
  }
  return r.data;
}

/** Whether signing with this reference needs a PIN (or a PKCS#12 password). */
export function needsPin(ref: KeystoreRef | null): boolean {
  return ref !== null && (ref.type === "pkcs12" || ref.type === "pkcs11");
}

/**
 * Open the key store of a reference.
 * @param ref key-store reference
 * @returns the store (close it after use)
 * @throws AppError KEYSTORE_UNAVAILABLE, PKCS11_MODULE_MISSING, PKCS11_MODULE_WRONG_ARCH
 */
export async function openSenderKeyStore(ref: KeystoreRef): Promise<KeyStore> {
  switch (ref.type) {
    case "pkcs12": {
      let data: Uint8Array;
      try {
        data = await Deno.readFile(ref.file);
      } catch (e) {
        throw new AppError(
          "KEYSTORE_UNAVAILABLE",
          "Cannot read the sender's PKCS#12 file (see `agent doctor` on this computer)",
          undefined,
          e,
        );
      }
      return (await signing()).openPkcs12KeyStore(data, { name: ref.file.split(/[\\/]/).pop() });
    }
    case "pkcs11":
      return await (await signing()).openPkcs11KeyStore({
        modulePath: ref.module,
        tokenLabel: ref.tokenLabel,
      });
    case "windows": {
      const m = await signing();
      return m.openWindowsCertStore({ run: m.denoCommandRunner });
    }
    case "macos": {
      const m = await signing();
      return m.openMacKeychain({ run: m.denoCommandRunner });
    }
  }
}

/**
 * Pick the signing certificate of a store: the referenced one, or the only one.
 * @param store the key store
 * @param ref the reference (its certId / thumbprint)
 * @param pin needed to list certificates of an encrypted PKCS#12 file
 * @returns the certificate
 * @throws AppError KEYSTORE_UNAVAILABLE when none or several match
 */
export async function pickCertificate(
  store: KeyStore,
  ref: KeystoreRef,
  pin?: string,
): Promise<CertificateInfo> {
  const certs = await store.listCertificates(pin);
  const want = ref.certId ?? (ref.type === "windows" ? ref.thumbprint : undefined);
  const found = want
    ? certs.filter((c) => c.id === want || c.id.toLowerCase().includes(want.toLowerCase()))
    : certs;
  if (found.length === 1) return found[0]!;
  throw new AppError(
    "KEYSTORE_UNAVAILABLE",
    found.length === 0
      ? "No signing certificate found in the sender's key store"
      : "Several certificates match; set certId (see `senders add` on this computer)",
  );
}

/**
 * The portal context of a live filing: the sender, its certificate and the CMS signer.
 * @param sender the chosen sender
 * @param ref its key-store reference
 * @param pin the PIN typed on the confirmation page (never stored)
 * @returns the context and a `close` for the key store
 * @throws AppError NO_SENDER_CONFIGURED (no key store), key-store errors
 */
export async function liveContext(
  sender: SenderRef,
  ref: KeystoreRef | null,
  pin: string | null,
): Promise<{ ctx: PortalContext; close: () => void }> {
  if (!ref) {
    throw new AppError(
      "NO_SENDER_CONFIGURED",
      `Sender "${sender.id}" has no certificate for live filing`,
    );
  }
  const store = await openSenderKeyStore(ref);
  try {
    const cert = await pickCertificate(store, ref, pin ?? undefined);
    const { keyStoreSigner, signDetached } = await signing();
    const signer = keyStoreSigner(store, cert, pin ?? undefined);
    return {
      ctx: { sender, certificate: cert.der, sign: (bytes) => signDetached(bytes, signer) },
      close: () => store.close(),
    };
  } catch (e) {
    store.close();
    throw e;
  }
}
