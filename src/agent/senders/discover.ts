/**
 * Every signing certificate this computer offers, found without the user typing a path — the
 * backend of the console's "Senders" page:
 *
 * - each PKCS#11 module of the Bulgarian QES providers present on this OS (the same discovery as
 *   `agent doctor`: `discoverPkcs11Modules`), each token inserted in it and each certificate on
 *   it, listed WITHOUT a PIN (certificates are public objects; a token that shows none until
 *   logged in is reported as `login_required`);
 * - the Windows certificate store and the macOS Keychain through the os/ key stores, on their
 *   own OS only (elsewhere they are reported as `not_available`, with the reason);
 * - a chosen PKCS#12 (.p12/.pfx) file with its password ({@link describePkcs12}).
 *
 * Each certificate comes back as a {@link FoundCertificate}: names, the holder's personal id
 * MASKED (`80******08`), validity, the certificate checks, and the key-store reference agent.json
 * would store. No PIN is asked, stored or logged here.
 * @module
 */
import { basename, isAbsolute, resolve } from "node:path";
import { AppError, type ErrorCode, isAppError } from "../../contract/mod.ts";
import { maskPersonalId } from "../../log.ts";
import type {
  CertificateCheck,
  CertificateInfo,
  CommandRunner,
  KeyStore,
  ModuleCandidate,
  Pkcs11KeyStore,
} from "../../signing/mod.ts";
import { senderErrorText, type SenderText } from "./messages.ts";
import type { KeystoreRef } from "./sender_keys.ts";

/** The signing library loads on first use (the agent's start never pays for it). */
const signing = () => import("../../signing/mod.ts");

/** Where a certificate was found. */
export type CertificateSource = "pkcs11" | "pkcs12" | "windows" | "macos";

/** One certificate as the Senders page shows it (nothing secret, the personal id masked). */
export interface FoundCertificate {
  /** Stable opaque id for forms: the same certificate in the same place gives the same key. */
  readonly key: string;
  readonly source: CertificateSource;
  /** Where it is, human readable: middleware and token label, file name, OS store. */
  readonly sourceLabel: string;
  /** The holder's name (subject CN; else given name and surname). */
  readonly holderName: string;
  /** The subject DN with the personal id masked. */
  readonly subject: string;
  /** The holder's EGN masked (`80******08`), another personal id masked likewise, or null. */
  readonly personalIdMasked: string | null;
  /** The issuer, human readable: its CN, with its O in parentheses when that adds something. */
  readonly issuer: string;
  /** Start of validity, ISO 8601 UTC. */
  readonly notBefore: string;
  /** End of validity, ISO 8601 UTC. */
  readonly notAfter: string;
  /** Whole days until `notAfter` (negative once expired). */
  readonly expiresInDays: number;
  /** Valid now but fewer than 30 days left. */
  readonly expiringSoon: boolean;
  readonly expired: boolean;
  /** The qualified-certificate statements check passed (QcCompliance). */
  readonly qualified: boolean;
  /** validity, keyUsage, qcStatements, issuer — each with its reason (English). */
  readonly checks: readonly CertificateCheck[];
  /** What agent.json stores for a sender with this certificate (always with `certId`). */
  readonly ref: KeystoreRef;
}

/** How one place that may hold certificates answered. */
export interface ScannedSource {
  readonly source: "pkcs11" | "windows" | "macos";
  /** Human readable: middleware and module, token label, OS store. */
  readonly label: string;
  /** PKCS#11: the module path. */
  readonly modulePath?: string;
  /** PKCS#11: the token label (absent for the module's own entry: no token, load failure). */
  readonly tokenLabel?: string;
  /**
   * `ok` (certificates listed), `empty` (readable, no certificate), `no_token` (module loaded,
   * nothing inserted), `login_required` (the token lists no certificate without its PIN),
   * `error` (see `errorCode`), `not_available` (not on this OS).
   */
  readonly status: "ok" | "empty" | "no_token" | "login_required" | "error" | "not_available";
  /** How many certificates it gave. */
  readonly certificates: number;
  /** The error's stable code when `status` is `error`. */
  readonly errorCode?: ErrorCode;
  /** Why it gave nothing (Bulgarian and English), or null when it gave certificates. */
  readonly reason: SenderText | null;
}

/** A whole discovery: the certificates, and how each place answered. */
export interface CertificateScan {
  readonly certificates: FoundCertificate[];
  readonly sources: ScannedSource[];
}

/** What discovery uses; every member has a real default. */
export interface DiscoverDeps {
  /** The OS (default `Deno.build.os`): which modules are candidates, which OS store exists. */
  readonly os?: typeof Deno.build.os;
  /** The PKCS#11 modules to look in (default: `discoverPkcs11Modules(os)`, as `agent doctor`). */
  readonly discoverModules?: () => Promise<readonly ModuleCandidate[]>;
  /** Opens a module (default: `openPkcs11TokenStore`). */
  readonly openPkcs11?: (modulePath: string) => Promise<Pkcs11KeyStore>;
  /** Runs PowerShell / `security` for the OS stores (default: `denoCommandRunner`). */
  readonly run?: CommandRunner;
  /** Milliseconds since the epoch (default `Date.now`). */
  readonly now?: () => number;
}

const DAY_MS = 86_400_000;
/** Fewer days left than this is "expiring soon". */
export const EXPIRING_SOON_DAYS = 30;

/**
 * Mask the personal id of a certificate subject (`serialNumber`, e.g. `PNOBG-8001010008`): an
 * EGN/LNCh becomes `80******08` (maskPersonalId in src/log.ts, the semantics prefix dropped);
 * another identifier (identity card, passport) keeps its prefix, first and last two characters.
 * @param personalId the subject serialNumber, or undefined
 * @returns the masked id, or null when there is none
 * @throws never
 * @example maskCertificatePersonalId("PNOBG-8001010008") // "80******08"
 */
export function maskCertificatePersonalId(personalId: string | undefined): string | null {
  if (!personalId) return null;
  const m = /^([A-Z]{5})-(.+)$/.exec(personalId);
  const value = m ? m[2]! : personalId;
  if (/^\d{10}$/.test(value)) return maskPersonalId(value);
  const masked = value.length > 4
    ? `${value.slice(0, 2)}${"*".repeat(value.length - 4)}${value.slice(-2)}`
    : "*".repeat(value.length);
  return m ? `${m[1]}-${masked}` : masked;
}

/** The subject DN with the personal id replaced by its masked form (semantics prefix kept). */
function maskSubject(subject: string, personalId?: string, masked?: string | null): string {
  if (!personalId || !masked) return subject;
  const prefix = /^[A-Z]{5}-/.exec(personalId)?.[0] ?? "";
  return subject.split(personalId).join(masked.startsWith(prefix) ? masked : prefix + masked);
}

async function keyOf(parts: readonly (string | undefined)[]): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(parts));
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `cert_${hash.subarray(0, 16).toHex()}`;
}

/** Where a reference points, for the key (the certificate id is added by the caller). */
function placeOf(ref: KeystoreRef): string {
  switch (ref.type) {
    case "pkcs12":
      return ref.file;
    case "pkcs11":
      return `${ref.module}|${ref.tokenLabel ?? ""}`;
    case "windows":
      return ref.thumbprint;
    case "macos":
      return "";
  }
}

/**
 * Describe one certificate of a key store for the Senders page.
 * @param cert the certificate as the store lists it
 * @param ref the reference agent.json would store (its `certId` is set to `cert.id`)
 * @param sourceLabel where it is, human readable
 * @param now epoch ms (validity, expiry, checks)
 * @returns the description
 * @throws AppError CERTIFICATE_INVALID when the certificate cannot be parsed
 */
export async function describeCertificate(
  cert: CertificateInfo,
  ref: KeystoreRef,
  sourceLabel: string,
  now: number,
): Promise<FoundCertificate> {
  const m = await signing();
  const parsed = m.parseCertificate(cert.der);
  const subject = (n: string) => m.nameValue(parsed.subject, n);
  const issuerOf = (n: string) => m.nameValue(parsed.issuer, n);
  const given = [subject("GN"), subject("SN")].filter(Boolean).join(" ");
  const holderName = subject("CN") ?? (given || cert.subject);
  const issuerCn = issuerOf("CN"), issuerO = issuerOf("O");
  const issuer = issuerCn
    ? issuerO && !issuerCn.includes(issuerO) ? `${issuerCn} (${issuerO})` : issuerCn
    : issuerO ?? cert.issuer;
  const personalIdMasked = maskCertificatePersonalId(cert.personalId);
  const checks = m.checkCertificate(cert.der, () => new Date(now));
  const left = cert.notAfter.getTime() - now;
  const expired = left < 0;
  const expiresInDays = Math.floor(left / DAY_MS);
  const fullRef = { ...ref, certId: cert.id } as KeystoreRef;
  return {
    key: await keyOf([ref.type, placeOf(ref), cert.id]),
    source: ref.type,
    sourceLabel,
    holderName,
    subject: maskSubject(cert.subject, cert.personalId, personalIdMasked),
    personalIdMasked,
    issuer,
    notBefore: cert.notBefore.toISOString(),
    notAfter: cert.notAfter.toISOString(),
    expiresInDays,
    expiringSoon: !expired && expiresInDays < EXPIRING_SOON_DAYS,
    expired,
    qualified: checks.some((c) => c.check === "qcStatements" && c.ok),
    checks,
    ref: fullRef,
  };
}

const T = (bg: string, en: string): SenderText => ({ bg, en });

function failed(base: Omit<ScannedSource, "status" | "certificates" | "reason">, e: unknown) {
  const text = senderErrorText(e);
  return {
    ...base,
    status: "error",
    certificates: 0,
    errorCode: text.code,
    reason: { bg: text.bg, en: text.en },
  } satisfies ScannedSource;
}

/** The module's name for people: the provider and middleware, or just one when they agree. */
function moduleName(c: ModuleCandidate): string {
  return c.provider === c.middleware || c.middleware.startsWith(c.provider)
    ? c.middleware
    : `${c.provider} — ${c.middleware}`;
}

async function scanModule(
  c: ModuleCandidate,
  open: (modulePath: string) => Promise<Pkcs11KeyStore>,
  now: number,
  out: CertificateScan,
): Promise<void> {
  const name = `${moduleName(c)} (${basename(c.path)})`;
  const base = { source: "pkcs11", label: name, modulePath: c.path } as const;
  let store: Pkcs11KeyStore;
  try {
    store = await open(c.path);
  } catch (e) {
    out.sources.push(failed(base, e));
    return;
  }
  try {
    const tokens = await store.listTokens();
    if (tokens.length === 0) {
      out.sources.push({
        ...base,
        status: "no_token",
        certificates: 0,
        reason: T(
          "Няма поставена карта или токен.",
          "No card or token is inserted.",
        ),
      });
      return;
    }
    const certs = await store.listCertificates();
    for (const t of tokens) {
      const label = `${moduleName(c)}, token "${t.label}"`;
      // Tokens return objects in no fixed order: by id, so that the page's list is stable.
      const mine = certs.filter((x) => x.id.startsWith(`pkcs11:serial=${t.serialNumber};`))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const ref: KeystoreRef = {
        type: "pkcs11",
        module: c.path,
        ...(t.label ? { tokenLabel: t.label } : {}),
      };
      for (const cert of mine) {
        try {
          out.certificates.push(await describeCertificate(cert, ref, label, now));
        } catch {
          // an unparsable certificate object is not offered
        }
      }
      const tokenBase = { ...base, label, tokenLabel: t.label };
      if (mine.length > 0) {
        out.sources.push({ ...tokenBase, status: "ok", certificates: mine.length, reason: null });
      } else if (t.loginRequired) {
        out.sources.push({
          ...tokenBase,
          status: "login_required",
          certificates: 0,
          reason: T(
            "Токенът не показва сертификати без PIN код (или няма сертификати).",
            "The token shows no certificate without its PIN (or holds none).",
          ),
        });
      } else {
        out.sources.push({
          ...tokenBase,
          status: "empty",
          certificates: 0,
          reason: T("На токена няма сертификати.", "The token holds no certificate."),
        });
      }
    }
  } catch (e) {
    out.sources.push(failed(base, e));
  } finally {
    await store.close();
  }
}

async function scanOsStore(
  kind: "windows" | "macos",
  d: Required<DiscoverDeps>,
  now: number,
  out: CertificateScan,
): Promise<void> {
  const label = kind === "windows"
    ? "Windows certificate store (CurrentUser\\My)"
    : "macOS Keychain";
  const base = { source: kind, label } as const;
  if (d.os !== (kind === "windows" ? "windows" : "darwin")) {
    out.sources.push({
      ...base,
      status: "not_available",
      certificates: 0,
      reason: kind === "windows"
        ? T(
          "Хранилището на сертификати на Windows съществува само под Windows.",
          "The Windows certificate store exists on Windows only.",
        )
        : T(
          "Ключодържателят (Keychain) съществува само под macOS.",
          "The Keychain exists on macOS only.",
        ),
    });
    return;
  }
  const m = await signing();
  const store: KeyStore = kind === "windows"
    ? m.openWindowsCertStore({ run: d.run })
    : m.openMacKeychain({ run: d.run });
  try {
    const certs = await store.listCertificates();
    for (const cert of certs) {
      const ref: KeystoreRef = kind === "windows"
        ? { type: "windows", thumbprint: cert.id.split("/").pop() ?? cert.id }
        : { type: "macos", ...(cert.label ? { label: cert.label } : {}) };
      try {
        out.certificates.push(await describeCertificate(cert, ref, label, now));
      } catch {
        // an unparsable certificate is not offered
      }
    }
    out.sources.push(
      certs.length > 0 ? { ...base, status: "ok", certificates: certs.length, reason: null } : {
        ...base,
        status: "empty",
        certificates: 0,
        reason: T(
          "Няма сертификат с частен ключ.",
          "There is no certificate with a private key.",
        ),
      },
    );
  } catch (e) {
    out.sources.push(failed(base, e));
  } finally {
    await store.close();
  }
}

/**
 * Look everywhere this computer offers certificates (PKCS#11 modules one after another, then
 * the OS store) and say how each place answered. Never asks for a PIN; never throws for a
 * place that fails (its entry in `sources` says why).
 * @param deps OS, module list, openers, command runner, clock (tests inject them)
 * @returns the certificates and the places
 * @throws never
 */
export async function scanCertificates(deps: DiscoverDeps = {}): Promise<CertificateScan> {
  const os = deps.os ?? Deno.build.os;
  const d: Required<DiscoverDeps> = {
    os,
    discoverModules: deps.discoverModules ?? (async () => {
      const m = await signing();
      return os === "windows" || os === "darwin" || os === "linux"
        ? await m.discoverPkcs11Modules(os)
        : [];
    }),
    openPkcs11: deps.openPkcs11 ??
      (async (modulePath) => (await signing()).openPkcs11TokenStore({ modulePath })),
    run: deps.run ?? (async (req) => (await signing()).denoCommandRunner(req)),
    now: deps.now ?? Date.now,
  };
  const now = d.now();
  const out: CertificateScan = { certificates: [], sources: [] };
  let modules: readonly ModuleCandidate[] = [];
  try {
    modules = await d.discoverModules();
  } catch {
    modules = [];
  }
  // One module reached by two candidate paths (a distribution's symlink) is scanned once.
  const seen = new Set<string>();
  for (const c of modules) {
    const real = await Deno.realPath(c.path).catch(() => c.path);
    if (seen.has(real)) continue;
    seen.add(real);
    await scanModule(c, d.openPkcs11, now, out);
  }
  await scanOsStore("windows", d, now, out);
  await scanOsStore("macos", d, now, out);
  return out;
}

/**
 * Every certificate this computer offers without the user typing a path (see
 * {@link scanCertificates} for why a place gave none).
 * @param deps as {@link scanCertificates}
 * @returns the certificates, PKCS#11 tokens first, then the OS store
 * @throws never
 */
export async function discoverCertificates(deps: DiscoverDeps = {}): Promise<FoundCertificate[]> {
  return (await scanCertificates(deps)).certificates;
}

/**
 * Find a discovered certificate again by its {@link FoundCertificate.key} (a form posts the key;
 * the reference is taken from this computer, never from the form).
 * @param key the key
 * @param deps as {@link scanCertificates}
 * @returns the certificate
 * @throws AppError KEYSTORE_UNAVAILABLE when it is no longer offered (token removed)
 */
export async function certificateByKey(
  key: string,
  deps: DiscoverDeps = {},
): Promise<FoundCertificate> {
  const hit = (await discoverCertificates(deps)).find((c) => c.key === key);
  if (hit) return hit;
  throw new AppError(
    "KEYSTORE_UNAVAILABLE",
    "The chosen certificate is no longer offered (card or token removed?); look again",
    { key },
  );
}

/**
 * Describe the signing certificates of a PKCS#12 (.p12/.pfx) file the user chose.
 * @param file the file's path (made absolute)
 * @param password the file's password (used once, never stored)
 * @param deps the clock
 * @returns one entry per certificate that has its private key in the file (none: empty list)
 * @throws AppError KEYSTORE_UNAVAILABLE (cannot be read, not a PKCS#12 file, unsupported
 *   encryption), PIN_INCORRECT (wrong or missing password; `details.pinRequired` when missing)
 */
export async function describePkcs12(
  file: string,
  password: string | undefined,
  deps: Pick<DiscoverDeps, "now"> = {},
): Promise<FoundCertificate[]> {
  const path = isAbsolute(file) ? file : resolve(file);
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (e) {
    throw new AppError(
      "KEYSTORE_UNAVAILABLE",
      `Cannot read the file ${basename(path)}`,
      { file: basename(path) },
      e,
    );
  }
  const m = await signing();
  const store = m.openPkcs12KeyStore(bytes, { name: basename(path) });
  try {
    const certs = await store.listCertificates(password);
    const now = (deps.now ?? Date.now)();
    const ref: KeystoreRef = { type: "pkcs12", file: path };
    const label = `${basename(path)} (PKCS#12)`;
    const out: FoundCertificate[] = [];
    for (const c of certs) out.push(await describeCertificate(c, ref, label, now));
    return out;
  } catch (e) {
    if (isAppError(e)) throw e;
    throw new AppError("KEYSTORE_UNAVAILABLE", "The PKCS#12 file cannot be read", {}, e);
  } finally {
    await store.close();
  }
}
