/**
 * A sender's signing key: opens the key store its `keystore` reference names, picks the
 * certificate, and gives the portal a CMS/PKCS#7 detached signer (docs/signing.md).
 *
 * Key store references in agent.json (never sent to pages):
 * `{ "type": "pkcs12", "file": "/abs/sender.p12" }`,
 * `{ "type": "pkcs11", "module": "/path/lib.so", "tokenLabel"?: "…", "certId"?: "pkcs11:…" }`,
 * `{ "type": "windows", "thumbprint": "…" }`, `{ "type": "macos", "label"?: "…" }`, a cloud
 * signature `{ "type": "csc", … }` (csc_sender.ts); each may
 * add `"certificateFile": "/abs/cert.pem"` (PEM or DER), read without the PIN.
 * @module
 */
import { z } from "zod";
import { AppError } from "../../contract/mod.ts";
import type { CertificateInfo, CscClient, CscKeyStore, KeyStore } from "../../signing/mod.ts";
import type { PortalContext, SenderRef } from "../../portal/mod.ts";
import { type CscPersonSteps, CscRefFields, cscSigning, openCscSender } from "./csc_sender.ts";

/** The signing library (pkijs, @peculiar/x509) loads on first use: test-mode agents and the
 * agent's start never pay for it. */
const signing = () => import("../../signing/mod.ts");

/** A certificate file (PEM or DER) of the key's certificate, readable without the PIN: checked
 * before the PIN is asked, and sent by result operations, which sign nothing. */
const certificateFile = z.string().min(1).optional();

/** What every key store reference may name: the certificate (`certId`), its file. */
const refOf = <T extends string, F extends z.ZodRawShape>(type: T, fields: F) =>
  z.object({ type: z.literal(type), ...fields, certId: z.string().optional(), certificateFile });

/** The key store reference of a sender. */
export const KeyStoreRef = z.discriminatedUnion("type", [
  refOf("pkcs12", { file: z.string().min(1) }),
  refOf("pkcs11", { module: z.string().min(1), tokenLabel: z.string().optional() }),
  refOf("windows", { thumbprint: z.string().min(1) }),
  refOf("macos", { label: z.string().optional() }),
  refOf("csc", CscRefFields),
]);
/** Parsed key store reference. */
export type KeyStoreRef = z.infer<typeof KeyStoreRef>;

/**
 * Parse a sender's `keystore` field.
 * @param raw the field (may be undefined)
 * @returns the reference, or null when the sender has none
 * @throws AppError KEYSTORE_UNAVAILABLE for a malformed reference
 */
export function parseKeyStoreRef(raw: unknown): KeyStoreRef | null {
  if (raw === undefined || raw === null) return null;
  const r = KeyStoreRef.safeParse(raw);
  if (!r.success) {
    throw new AppError("KEYSTORE_UNAVAILABLE", "The sender's key store reference is invalid");
  }
  return r.data;
}

/**
 * Whether the confirmation page asks for a PIN (or a PKCS#12 password).
 * @param ref the sender's key store reference (null: no key store)
 * @param use what the operation does with the key: `sign` (submissions, batches) or read the
 *   `certificate` only (result operations, which sign nothing)
 * @param certificateKnown whether the certificate was read without the PIN (precheck.ts)
 * @returns true to sign with a PKCS#12 file or a PKCS#11 token; for the certificate only, true
 *   just for a PKCS#12 file whose certificate is itself encrypted (no `certificateFile`)
 * @throws nothing
 */
export function needsPin(
  ref: KeyStoreRef | null,
  use: "sign" | "certificate" = "sign",
  certificateKnown = false,
): boolean {
  if (ref === null) return false;
  if (use === "certificate") return ref.type === "pkcs12" && !certificateKnown;
  // A cloud signature asks its PIN on the page in explicit mode; oauth2code is approved at the
  // provider (docs/signing.md § 11).
  if (ref.type === "csc") return ref.authMode === "explicit" && ref.pin;
  return ref.type === "pkcs12" || ref.type === "pkcs11";
}

/**
 * Open the key store of a reference.
 * @param ref key store reference
 * @returns the store (close it after use)
 * @throws AppError KEYSTORE_UNAVAILABLE, PKCS11_MODULE_MISSING, PKCS11_MODULE_WRONG_ARCH
 */
export async function openSenderKeyStore(ref: KeyStoreRef): Promise<KeyStore> {
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
      return (await signing()).openPkcs12KeyStore(data, {
        name: ref.file.split(/[\\/]/).pop() ?? ref.file,
      });
    }
    case "pkcs11":
      return await (await signing()).openPkcs11KeyStore({
        modulePath: ref.module,
        tokenLabel: ref.tokenLabel,
      });
    case "windows": {
      const m = await signing();
      return m.openWindowsCertStore();
    }
    case "macos": {
      const m = await signing();
      return m.openMacKeychain({ run: m.denoCommandRunner });
    }
    case "csc":
      return await openCscSender(ref);
  }
}

/**
 * The bytes of a key store file (a certificate, a PKCS#12 file).
 * @param path the file's path
 * @param message the sentence of the error
 * @param details the error's details
 * @returns the bytes
 * @throws AppError KEYSTORE_UNAVAILABLE when it cannot be read
 */
export async function readKeyStoreFile(
  path: string,
  message: string,
  details?: Record<string, unknown>,
): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (e) {
    throw new AppError("KEYSTORE_UNAVAILABLE", message, details, e);
  }
}

/**
 * Read a certificate file: PEM (the first `CERTIFICATE` block) or DER.
 * @param path absolute path of the file (agent.json `keystore.certificateFile`)
 * @returns the certificate
 * @throws AppError KEYSTORE_UNAVAILABLE (unreadable), CERTIFICATE_INVALID (not a certificate)
 */
export async function readCertificateFile(path: string): Promise<CertificateInfo> {
  const bytes = await readKeyStoreFile(
    path,
    "Cannot read the sender's certificate file (keystore.certificateFile; see `agent doctor`)",
  );
  const pem = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/.exec(
    new TextDecoder().decode(bytes),
  );
  // non-null: group 1 of the pattern is not optional, so a match has it
  const der = pem ? Uint8Array.fromBase64(pem[1]!.replace(/\s+/g, "")) : bytes;
  return (await signing()).toCertificateInfo(der, `file:${path.split(/[\\/]/).pop()}`);
}

/**
 * Pick the signing certificate of a store: the referenced one, or the only one.
 * @param store the key store
 * @param ref the reference (its certId / thumbprint)
 * @param pin needed to list certificates of an encrypted PKCS#12 file
 * @returns the certificate
 * @throws AppError KEYSTORE_UNAVAILABLE when none or several match (`details.matched`: 0 or
 *   how many)
 */
export async function pickCertificate(
  store: KeyStore,
  ref: KeyStoreRef,
  pin?: string,
): Promise<CertificateInfo> {
  const certs = await store.listCertificates(pin);
  const want = ref.certId ?? (ref.type === "windows" ? ref.thumbprint : undefined);
  const found = want
    ? certs.filter((c) => c.id === want || c.id.toLowerCase().includes(want.toLowerCase()))
    : certs;
  // non-null: found.length === 1
  if (found.length === 1) return found[0]!;
  throw new AppError(
    "KEYSTORE_UNAVAILABLE",
    found.length === 0
      ? "No signing certificate found in the sender's key store"
      : "Several certificates match; set certId (see `senders add` on this computer)",
    { matched: found.length },
  );
}

/**
 * The portal context of a live operation: the sender, its certificate and (to sign) the CMS
 * signer. For the certificate only (result operations sign nothing) no PIN is used where the
 * certificate can be read without one: the `certificateFile`, else the store's list.
 * @param sender the chosen sender
 * @param ref its key store reference
 * @param pin the PIN typed on the confirmation page (never stored)
 * @param use `sign` (default) or `certificate` only (no `sign` in the context)
 * @param stepsFor a cloud sender's steps on the agent's pages (confirm/remote_approval.ts): the
 *   approval at the provider (`oauth2code`), the one-time code (`explicit` with an OTP)
 * @returns the context and a `close` for the key store
 * @throws AppError NO_SENDER_CONFIGURED (no key store), key store errors
 */
export async function liveContext(
  sender: SenderRef,
  ref: KeyStoreRef | null,
  pin: string | null,
  use: "sign" | "certificate" = "sign",
  stepsFor?: (client: CscClient) => CscPersonSteps,
): Promise<{ ctx: PortalContext; close: () => void }> {
  if (!ref) {
    throw new AppError(
      "NO_SENDER_CONFIGURED",
      `Sender "${sender.id}" has no certificate for live filing`,
    );
  }
  if (use === "certificate" && ref.certificateFile) {
    const cert = await readCertificateFile(ref.certificateFile);
    return { ctx: { sender, certificate: cert.der }, close: () => {} };
  }
  const store = ref.type === "csc"
    ? await openCscSender(ref, stepsFor)
    : await openSenderKeyStore(ref);
  try {
    const cert = await pickCertificate(store, ref, pin ?? undefined);
    if (use === "certificate") {
      store.close();
      return { ctx: { sender, certificate: cert.der }, close: () => {} };
    }
    if (ref.type === "csc") {
      // All files of a filing or a batch are approved at once (docs/signing.md § 11).
      const csc = cscSigning(store as CscKeyStore, cert, pin ?? undefined);
      return {
        ctx: { sender, certificate: cert.der, sign: csc.sign, prepareSignatures: csc.prepare },
        close: () => store.close(),
      };
    }
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
