/**
 * The sender actions shared by the CLI (`senders add|test|remove`) and the console's Senders
 * page: add a sender after the certificate checks, test its key (sign and verify), remove it,
 * make it the active one. Every change of agent.json is one atomic write (writeAgentFile) after
 * all checks passed, and the read-modify-write is serialised inside this process. Bad input is
 * an AppError with a stable code (see {@link senderErrorText} for the texts people read):
 *
 * - VALIDATION_FAILED, `details.field` = `displayName`, `id`, `ref` or `agent.json`;
 * - SENDER_NOT_FOUND (unknown id), CONFLICT (the id is taken), NO_SENDER_CONFIGURED (no key store);
 * - CERTIFICATE_INVALID with `details.failed` (a check failed and `force` is not set);
 * - the key stores' own codes: PIN_INCORRECT, PIN_LOCKED, KEYSTORE_UNAVAILABLE,
 *   PKCS11_MODULE_MISSING, PKCS11_MODULE_WRONG_ARCH, SIGNING_FAILED.
 *
 * PINs and passwords are arguments only: never stored, logged or put into an error.
 * @module
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { AppError, isAppError } from "../../contract/mod.ts";
import type { CertificateInfo, KeyStore } from "../../signing/mod.ts";
import { type AgentFile, readAgentFile, writeAgentFile } from "./agent_file.ts";
import { describeCertificate, type FoundCertificate } from "./certificate_facts.ts";
import { KeyStoreRef, openSenderKeyStore, pickCertificate } from "./sender_keys.ts";
import { certificatesDir, keepSenderCertificate } from "./kept_files.ts";
import { SenderConfig } from "./senders.ts";

const signing = () => import("../../signing/mod.ts");

/** What {@link addSender} is given. */
export interface AddSenderInput {
  /** The sender's id (1–64 of `A-Za-z0-9_.-`); derived from the display name when absent. */
  readonly id?: string | undefined;
  /** The name shown on the confirmation page (1–200 characters). */
  readonly displayName: string;
  /** Where the certificate is: a {@link FoundCertificate.ref}, or one the CLI built. */
  readonly ref: unknown;
  /** Needed only to list an encrypted PKCS#12 file's certificate (its password). */
  readonly pin?: string | undefined;
  /** Add it even when a certificate check fails (test certificates). */
  readonly force?: boolean | undefined;
}

/** What {@link addSender} added. */
export interface AddedSender {
  /** The sender as written to agent.json (active, with the reference and its `certId`). */
  readonly sender: SenderConfig;
  /** Its certificate, with the checks. */
  readonly certificate: FoundCertificate;
}

/** What {@link testSender} proved. */
export interface SenderTestResult {
  /** The subject DN of the certificate that signed, the personal id masked. */
  readonly subject: string;
  /** Size of the CMS/PKCS#7 signature, bytes. */
  readonly signatureBytes: number;
  /** The certificate, with the checks. */
  readonly certificate: FoundCertificate;
}

/** Read-modify-write of agent.json, one at a time per data directory in this process. */
const QUEUES = new Map<string, Promise<unknown>>();
function serialised<T>(dataDir: string, fn: () => Promise<T>): Promise<T> {
  const key = resolve(dataDir);
  const next = (QUEUES.get(key) ?? Promise.resolve()).then(fn);
  const tail = next.catch(() => undefined);
  QUEUES.set(key, tail);
  tail.then(() => {
    if (QUEUES.get(key) === tail) QUEUES.delete(key);
  });
  return next;
}

async function readFile(dataDir: string): Promise<AgentFile> {
  try {
    return await readAgentFile(dataDir);
  } catch (e) {
    throw new AppError(
      "VALIDATION_FAILED",
      (e as Error).message.split("\n").map((l) => l.trim()).join(" "),
      { field: "agent.json" },
    );
  }
}

const invalid = (field: string, message: string) =>
  new AppError("VALIDATION_FAILED", message, { field });

/**
 * Check a key store reference.
 * @param raw the reference (a form's or the CLI's)
 * @returns the parsed reference
 * @throws AppError VALIDATION_FAILED (`field` "ref"): malformed, or a file path that is not absolute
 */
export function checkKeyStoreRef(raw: unknown): KeyStoreRef {
  const r = KeyStoreRef.safeParse(raw);
  if (!r.success) throw invalid("ref", "The key-store reference is invalid");
  const ref = r.data;
  if (ref.type === "pkcs12" && !isAbsolute(ref.file)) {
    throw invalid("ref", "The PKCS#12 file's path must be absolute");
  }
  if (ref.type === "csc" && !isAbsolute(ref.tokenFile)) {
    throw invalid("ref", "The cloud signature's token file path must be absolute");
  }
  if (ref.certificateFile !== undefined && !isAbsolute(ref.certificateFile)) {
    throw invalid("ref", "The certificate file's path must be absolute");
  }
  return ref;
}

/** Bulgarian Cyrillic → Latin (the Transliteration Act of 2009), for ids. */
const TRANSLIT: Record<string, string> = {
  а: "a",
  б: "b",
  в: "v",
  г: "g",
  д: "d",
  е: "e",
  ж: "zh",
  з: "z",
  и: "i",
  й: "y",
  к: "k",
  л: "l",
  м: "m",
  н: "n",
  о: "o",
  п: "p",
  р: "r",
  с: "s",
  т: "t",
  у: "u",
  ф: "f",
  х: "h",
  ц: "ts",
  ч: "ch",
  ш: "sh",
  щ: "sht",
  ъ: "a",
  ь: "y",
  ю: "yu",
  я: "ya",
};

/**
 * A safe sender id from a display name: Bulgarian transliterated, lower case, other characters
 * as `-`, at most 48 characters, `sender` when nothing is left; `-2`, `-3`… when taken.
 * @param displayName the name
 * @param taken ids already in use
 * @returns the id (matches the SenderConfig id pattern)
 * @throws never
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(deriveSenderId("Иван Петров", []), "ivan-petrov");
 * ```
 */
export function deriveSenderId(displayName: string, taken: readonly string[] = []): string {
  const latin = [...displayName.toLowerCase()].map((ch) => TRANSLIT[ch] ?? ch).join("")
    .normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  const base = latin.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 48)
    .replace(/-+$/, "") || "sender";
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2;; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}

function checkDisplayName(raw: unknown): string {
  const name = typeof raw === "string" ? raw.trim() : "";
  if (name.length === 0 || name.length > 200 || /\p{Cc}/u.test(name)) {
    throw invalid(
      "displayName",
      "The display name must be 1 to 200 characters, no control characters",
    );
  }
  return name;
}

function checkId(raw: string): string {
  if (!SenderConfig.shape.id.safeParse(raw).success) {
    throw invalid("id", "The id must be 1-64 letters, digits, _ . -");
  }
  return raw;
}

/** Open the reference's store, pick its certificate, describe it; always closes the store. */
async function withCertificate<T>(
  ref: KeyStoreRef,
  pin: string | undefined,
  now: number,
  fn: (found: FoundCertificate, use: { store: KeyStore; cert: CertificateInfo }) => Promise<T>,
): Promise<T> {
  const store = await openSenderKeyStore(ref);
  try {
    const cert = await pickCertificate(store, ref, pin);
    const found = await describeCertificate(cert, ref, sourceLabelOf(ref), now);
    return await fn(found, { store, cert });
  } finally {
    await store.close();
  }
}

function sourceLabelOf(ref: KeyStoreRef): string {
  switch (ref.type) {
    case "pkcs12":
      return `${ref.file.split(/[\\/]/).pop()} (PKCS#12)`;
    case "pkcs11":
      return `${ref.module.split(/[\\/]/).pop()}${
        ref.tokenLabel ? `, token "${ref.tokenLabel}"` : ""
      }`;
    case "windows":
      return "Windows certificate store (CurrentUser\\My)";
    case "macos":
      return "macOS Keychain";
    case "csc":
      return `${new URL(ref.serviceUrl).host} (cloud signature)`;
  }
}

/**
 * Add a sender: read its certificate from the key store (no PIN needed except for an encrypted
 * PKCS#12 file), run the certificate checks, refuse a failing one unless `force`, and append
 * the sender (active) to agent.json in one atomic write.
 * @param dataDir the agent's data directory
 * @param input id (optional), display name, reference, PIN, force
 * @param now epoch ms (the checks' clock)
 * @returns the sender written and its certificate
 * @throws AppError VALIDATION_FAILED, CONFLICT, CERTIFICATE_INVALID, key store codes
 */
export async function addSender(
  dataDir: string,
  input: AddSenderInput,
  now: number,
): Promise<AddedSender> {
  const displayName = checkDisplayName(input.displayName);
  const wanted = input.id === undefined || input.id === "" ? undefined : checkId(input.id);
  const ref = checkKeyStoreRef(input.ref);
  return await serialised(dataDir, async () => {
    const file = await readFile(dataDir);
    const ids = file.senders.map((s) => s.id);
    if (wanted !== undefined && ids.includes(wanted)) {
      throw new AppError("CONFLICT", `A sender "${wanted}" already exists; remove it first`, {
        senderId: wanted,
      });
    }
    const id = wanted ?? deriveSenderId(displayName, ids);
    return await withCertificate(ref, input.pin, now, async (found, { cert }) => {
      const failed = found.checks.filter((c) => !c.ok);
      if (failed.length > 0 && !input.force) {
        throw new AppError(
          "CERTIFICATE_INVALID",
          `The certificate cannot be used: ${failed.map((f) => f.reason).join("; ")}`,
          { failed: failed.map((f) => ({ check: f.check, reason: f.reason })) },
        );
      }
      // The certificate (public) is kept beside agent.json: pages show it without PIN or token.
      const certificateFile = found.ref.certificateFile ??
        await keepSenderCertificate(dataDir, id, cert.der);
      const sender: SenderConfig = {
        id,
        displayName,
        active: true,
        keystore: { ...found.ref, certificateFile },
        qualified: found.qualified,
      };
      await writeAgentFile(dataDir, { ...file, senders: [...file.senders, sender] });
      return { sender, certificate: found };
    });
  });
}

/**
 * Test a key: make a CMS signature over a small test document with the key and VERIFY it
 * (messageDigest and signature, with the certificate carried inside), as the NRA would.
 * @param ref the key store reference
 * @param pin the PIN or file password (one attempt; never stored or logged); omitted for OS
 *   stores and PIN-pad readers, which ask themselves
 * @param now epoch ms (signingTime, checks)
 * @returns the masked subject, the signature's size and the certificate
 * @throws AppError VALIDATION_FAILED (`ref`), PIN_INCORRECT, PIN_LOCKED, KEYSTORE_UNAVAILABLE,
 *   PKCS11_MODULE_MISSING, PKCS11_MODULE_WRONG_ARCH, CERTIFICATE_INVALID, SIGNING_FAILED
 */
export async function testSender(
  ref: unknown,
  pin: string | null | undefined,
  now: number,
): Promise<SenderTestResult> {
  const checked = checkKeyStoreRef(ref);
  const p = pin ?? undefined;
  return await withCertificate(checked, p, now, async (found, { store, cert }) => {
    const m = await signing();
    const when = new Date(now);
    const data = new TextEncoder().encode(`svc-filing sender test ${when.toISOString()}`);
    const cms = await m.signDetached(data, m.keyStoreSigner(store, cert, p), {
      clock: () => when,
    });
    const verified = await m.verifyDetached(cms, data);
    if (verified.certificate.toHex() !== cert.der.toHex()) {
      throw new AppError("SIGNING_FAILED", "The signature carries another certificate");
    }
    return { subject: found.subject, signatureBytes: cms.length, certificate: found };
  });
}

/**
 * A sender's key store reference from agent.json.
 * @param dataDir the data directory
 * @param id the sender's id
 * @returns the sender and its reference
 * @throws AppError SENDER_NOT_FOUND, NO_SENDER_CONFIGURED (no key store), VALIDATION_FAILED
 *   (`ref`: a malformed reference; `agent.json`)
 */
export async function senderKeyStore(
  dataDir: string,
  id: string,
): Promise<{ sender: SenderConfig; ref: KeyStoreRef }> {
  const file = await readFile(dataDir);
  const sender = file.senders.find((s) => s.id === id);
  if (!sender) throw notFound(id);
  if (!sender.keystore) {
    throw new AppError("NO_SENDER_CONFIGURED", `Sender "${id}" has no key store`, {
      senderId: id,
    });
  }
  try {
    return { sender, ref: checkKeyStoreRef(sender.keystore) };
  } catch (e) {
    if (isAppError(e)) throw invalid("ref", `Sender "${id}": ${e.message}`);
    throw e;
  }
}

const notFound = (id: string) =>
  new AppError("SENDER_NOT_FOUND", `No sender "${id}".`, { senderId: id });

/**
 * Remove a sender from agent.json (its key store is not touched).
 * @param dataDir the data directory
 * @param id the sender's id
 * @returns the removed sender
 * @throws AppError SENDER_NOT_FOUND, VALIDATION_FAILED (`agent.json`)
 */
export function removeSender(dataDir: string, id: string): Promise<SenderConfig> {
  return serialised(dataDir, async () => {
    const file = await readFile(dataDir);
    const gone = file.senders.find((s) => s.id === id);
    if (!gone) throw notFound(id);
    const senders = file.senders.filter((s) => s.id !== id);
    await writeAgentFile(dataDir, { ...file, senders });
    // The files the agent kept for it (never the accountant's own files elsewhere).
    const kept = certificatesDir(dataDir);
    const used = new Set(senders.flatMap((s) => Object.values(s.keystore ?? {})));
    for (const f of Object.values(gone.keystore ?? {})) {
      if (typeof f === "string" && dirname(f) === kept && !used.has(f)) {
        await Deno.remove(f).catch(() => {});
      }
    }
    return gone;
  });
}

/**
 * "Make active": this sender becomes THE active one and every other sender inactive, so that
 * the confirmation page preselects it (`publicSenders` preselects exactly when one sender is
 * active). Inactive senders stay in agent.json and can be made active again.
 * @param dataDir the data directory
 * @param id the sender's id
 * @returns all senders after the change
 * @throws AppError SENDER_NOT_FOUND, VALIDATION_FAILED (`agent.json`)
 */
export function setActiveSender(dataDir: string, id: string): Promise<SenderConfig[]> {
  return serialised(dataDir, async () => {
    const file = await readFile(dataDir);
    if (!file.senders.some((s) => s.id === id)) throw notFound(id);
    const senders = file.senders.map((s) => ({ ...s, active: s.id === id }));
    await writeAgentFile(dataDir, { ...file, senders });
    return senders;
  });
}
