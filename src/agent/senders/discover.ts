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
 * - a chosen PKCS#12 (.p12/.pfx) file with its password (`describePkcs12`,
 *   certificate_facts.ts).
 *
 * Each certificate comes back as a `FoundCertificate` (certificate_facts.ts): names, the holder's personal id
 * MASKED (`80******08`), validity, the certificate checks, and the key store reference agent.json
 * would store. No PIN is asked, stored or logged here.
 * @module
 */
import { AppError, bi, type Bilingual, type ErrorCode } from "../../contract/mod.ts";
import { basename } from "node:path";
import type {
  CommandRunner,
  KeyStore,
  ModuleCandidate,
  Pkcs11KeyStore,
  WinCryptOps,
} from "../../signing/mod.ts";
import { describeCertificate, type FoundCertificate } from "./certificate_facts.ts";
import { senderErrorText } from "./messages.ts";
import type { KeyStoreRef } from "./sender_keys.ts";

/** The signing library loads on first use (the agent's start never pays for it). */
const signing = () => import("../../signing/mod.ts");

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
  readonly reason: Bilingual | null;
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
  /** Opens a module (default: `openPkcs11KeyStore`). */
  readonly openPkcs11?: (modulePath: string) => Promise<Pkcs11KeyStore>;
  /** Runs `security` for the macOS Keychain (default: `denoCommandRunner`). */
  readonly run?: CommandRunner;
  /** The Windows API calls of the Windows certificate store (default: the real ones). */
  readonly windowsOps?: WinCryptOps;
  /** Milliseconds since the epoch (default `Date.now`). */
  readonly now?: () => number;
}

const T = (bg: string, en: string): Bilingual => ({ bg, en });

function failed(base: Omit<ScannedSource, "status" | "certificates" | "reason">, e: unknown) {
  const text = senderErrorText(e);
  return {
    ...base,
    status: "error",
    certificates: 0,
    errorCode: text.code,
    reason: bi(text.bg, text.en),
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
      const ref: KeyStoreRef = {
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
  d: Required<Omit<DiscoverDeps, "windowsOps">> & Pick<DiscoverDeps, "windowsOps">,
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
    ? m.openWindowsCertStore(d.windowsOps ? { ops: d.windowsOps } : {})
    : m.openMacKeychain({ run: d.run });
  try {
    const certs = await store.listCertificates();
    for (const cert of certs) {
      const ref: KeyStoreRef = kind === "windows"
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
  const d: Required<Omit<DiscoverDeps, "windowsOps">> & Pick<DiscoverDeps, "windowsOps"> = {
    os,
    discoverModules: deps.discoverModules ?? (async () => {
      const m = await signing();
      return os === "windows" || os === "darwin" || os === "linux"
        ? await m.discoverPkcs11Modules(os)
        : [];
    }),
    openPkcs11: deps.openPkcs11 ??
      (async (modulePath) => (await signing()).openPkcs11KeyStore({ modulePath })),
    run: deps.run ?? (async (req) => (await signing()).denoCommandRunner(req)),
    now: deps.now ?? Date.now,
    ...(deps.windowsOps === undefined ? {} : { windowsOps: deps.windowsOps }),
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
