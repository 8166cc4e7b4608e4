/**
 * Sender checks of `agent doctor`: each sender's key store reference in agent.json is opened
 * the way the agent would, without a PIN — a PKCS#12 `file` is read (its certificate checked
 * when it is not encrypted), a PKCS#11 `module` is loaded and its token's certificates listed
 * (`tokenLabel`, `certId` as in sender_keys.ts), an optional `certificateFile` (PEM/DER) is
 * read — and the certificate checked with checkCertificate. A cloud sender's service and kept
 * sign-in are checked first (sender_csc.ts). Only the subject CN is shown, never the personal id.
 * @module
 */
import { errorMessage } from "../../error_message.ts";
import type { SenderConfig } from "../senders/mod.ts";
import { bi, type Bilingual } from "../../contract/mod.ts";
import { check, type DoctorCheck, type ResolvedDoctorDeps as Deps } from "./types.ts";
import { checkCscService } from "./sender_csc.ts";
import { AppError } from "../../contract/mod.ts";
import {
  type CertificateInfo,
  checkCertificate,
  type ModuleCandidate,
  openPkcs12KeyStore,
  toCertificateInfo,
} from "../../signing/mod.ts";

/** Days before a certificate's end from which the check warns (the console's Status warns
 * from the same day: console/certificate_view.ts). */
export const EXPIRY_WARN_DAYS = 30;

const cn = (dn: string) => /(?:^|,\s*)CN=([^,]+)/.exec(dn)?.[1] ?? "(no CN)";

/** The Bulgarian of a certificate check's reason (src/signing/cert_checks.ts); else as it is. */
const REASONS_BG: [RegExp, string][] = [
  [/^Not valid before (.+)$/, "Не е валиден преди $1"],
  [/^Expired on (.+)$/, "Изтекъл на $1"],
  [/^Valid until (.+) \((\d+) days left\)$/, "Валиден до $1 (остават $2 дни)"],
  [/^The certificate has no keyUsage extension$/, "Сертификатът няма разширение keyUsage"],
  [
    /^Key usage allows neither digitalSignature nor nonRepudiation$/,
    "Предназначението на ключа не позволява нито digitalSignature, нито nonRepudiation",
  ],
  [/^Key usage allows (\S+) and (\S+)$/, "Предназначението на ключа позволява $1 и $2"],
  [/^Key usage allows (\S+)$/, "Предназначението на ключа позволява $1"],
  [
    /^No QcStatements: not a qualified certificate$/,
    "Няма QcStatements: не е квалифициран сертификат",
  ],
  [/^QcStatements lack QcCompliance (.+)$/, "В QcStatements липсва QcCompliance $1"],
  [/^Qualified certificate \((.+)\)$/, "Квалифициран сертификат ($1)"],
  [/^Issued by (.+)$/, "Издаден от $1"],
  [
    /^Issuer "(.+)" is not a Bulgarian QES provider$/,
    "Издателят „$1“ не е български доставчик на КЕП",
  ],
];
const reasonBg = (reason: string) => {
  const hit = REASONS_BG.find(([re]) => re.test(reason));
  const bg = hit ? reason.replace(hit[0], hit[1]) : reason;
  return bg.replace("key on a qualified device", "ключ на квалифицирано устройство");
};

/** Certificate checks → one verdict; validity or key usage failing fails, QES doubts warn. */
function certVerdict(
  id: string,
  title: Bilingual,
  all: CertificateInfo[],
  d: Deps,
  certId?: string,
): DoctorCheck {
  // Same selection rule as the signer (sender_keys.ts pickCertificate): id equal or contained.
  const certs = certId
    ? all.filter((c) => c.id === certId || c.id.toLowerCase().includes(certId.toLowerCase()))
    : all;
  if (certId && certs.length === 0 && all.length > 0) {
    return check(
      id,
      false,
      title,
      bi(
        `Никой сертификат не отговаря на certId ${certId}`,
        `No certificate matches certId ${certId}`,
      ),
      bi(
        `Задайте в keystore.certId едно от: ${all.map((c) => c.id).join(", ")}`,
        `Set keystore.certId to one of: ${all.map((c) => c.id).join(", ")}`,
      ),
    );
  }
  if (certs.length === 0) {
    return check(
      id,
      "warn",
      title,
      bi("Не е намерен сертификат", "No certificate found"),
      bi(
        "Поставете картата или токена и пуснете проверките отново (`agent doctor`)",
        "Insert the card or token, then run the checks again (`agent doctor`)",
      ),
    );
  }
  const results = certs.map((c) => ({ c, r: checkCertificate(c.der, () => new Date(d.now())) }));
  const best = results.find((x) => x.r.every((r) => r.ok)) ??
    results.find((x) => x.r[0]?.ok && x.r[1]?.ok) ?? results[0]!; // non-null: certs is not empty (above)
  const failed = best.r.filter((r) => !r.ok);
  const name = cn(best.c.subject);
  const detail = bi(
    `${name}: ${best.r.map((r) => reasonBg(r.reason)).join("; ")}`,
    `${name}: ${best.r.map((r) => r.reason).join("; ")}`,
  );
  if (failed.length === 0) {
    // Valid, but ending within 30 days (as the console's Status and Senders warn): say it now.
    const left = best.r.find((r) => r.check === "validity")?.daysLeft;
    if (left !== undefined && left < EXPIRY_WARN_DAYS) {
      return check(
        id,
        "warn",
        title,
        detail,
        bi(
          `Сертификатът изтича след ${left} дни: подновете го при доставчика на КЕП сега и ` +
            "добавете новия като подател",
          `The certificate ends in ${left} days: renew it with your QES provider now and add ` +
            "the new one as a sender",
        ),
      );
    }
    return check(id, true, title, detail);
  }
  const hard = failed.some((r) => r.check === "validity" || r.check === "keyUsage");
  return check(
    id,
    hard ? false : "warn",
    title,
    detail,
    hard
      ? bi(
        "Подновете сертификата при доставчика на КЕП и посочете новия в подателя",
        "Renew the certificate with your QES provider and point the sender at the new one",
      )
      : bi(
        "Използвайте квалифициран сертификат от български доставчик на КЕП: НАП отхвърля другите",
        "Use a qualified certificate of a Bulgarian QES provider: the NRA rejects others",
      ),
  );
}

function pkcs11Fix(e: unknown, d: Deps, found: ModuleCandidate[]): Bilingual {
  const names = found.map((m) => `${m.middleware} (${m.path})`).join("; ");
  const list = found.length
    ? bi(` Намерени на този компютър: ${names}.`, ` Found on this PC: ${names}.`)
    : bi("", "");
  if (e instanceof AppError && e.code === "PKCS11_MODULE_MISSING") {
    return bi(
      "Липсва софтуерът за картата: инсталирайте софтуера за карти/токени на доставчика на КЕП " +
        `(64-битов) или поправете keystore.module в agent.json.${list.bg}`,
      "Middleware missing: install your QES provider's card/token software (64-bit) or " +
        `correct keystore.module in agent.json.${list.en}`,
    );
  }
  if (e instanceof AppError && e.code === "PKCS11_MODULE_WRONG_ARCH") {
    const mac = d.os === "darwin";
    const win = d.os === "windows";
    return bi(
      `Грешна архитектура на процесора: инсталирайте версията на софтуера за ${d.arch}` +
        (mac ? " (Apple Silicon: версията arm64 или universal)" : "") +
        (win ? " (64-битовата DLL в System32, не в SysWOW64)" : "") + `.${list.bg}`,
      `Wrong CPU architecture: install the middleware build for ${d.arch}` +
        (mac ? " (Apple Silicon: the arm64 or universal build)" : "") +
        (win ? " (the 64-bit DLL in System32, not SysWOW64)" : "") + `.${list.en}`,
    );
  }
  return bi(
    "Поставете картата или токена, инсталирайте отново софтуера за картата или проверете " +
      `keystore.module.${list.bg}`,
    `Insert the card or token, reinstall the middleware, or check keystore.module.${list.en}`,
  );
}

/**
 * Checks one sender's key store and certificate.
 * @param s the sender from agent.json
 * @param d resolved doctor deps
 * @param found PKCS#11 modules present on this machine (named in fixes)
 * @returns the `sender:<id>` check
 * @throws never
 */
export async function checkSender(
  s: SenderConfig,
  d: Deps,
  found: ModuleCandidate[],
): Promise<DoctorCheck> {
  const id = `sender:${s.id}`;
  const title = bi(`Сертификат на подател „${s.id}“`, `Sender "${s.id}" certificate`);
  const ks = s.keystore as Record<string, unknown> | undefined;
  if (!s.active) {
    return check(id, true, title, bi("Неактивен: не е проверен", "Inactive: not checked"));
  }
  if (!ks) {
    return check(
      id,
      "warn",
      title,
      bi(
        "Няма хранилище за ключове: използваем само в тестов режим",
        "No key store: usable in test mode only",
      ),
      bi(
        "Добавете keystore към този подател в agent.json (docs/signing.md)",
        "Add a keystore reference to this sender in agent.json (docs/signing.md)",
      ),
    );
  }
  const str = (...keys: string[]) =>
    keys.map((k) => ks[k]).find((v) => typeof v === "string") as string | undefined;
  const k: KeyStoreCheck = { id, title, ks, d, str };
  try {
    return await keyStoreCheck(k);
  } catch (e) {
    return failedCheck(k, e, found);
  }
}

/** One sender's key store as the doctor reads it. */
interface KeyStoreCheck {
  readonly id: string;
  readonly title: Bilingual;
  readonly ks: Record<string, unknown>;
  readonly d: Deps;
  /** The first of `keys` that holds a string in the key store's reference. */
  readonly str: (...keys: string[]) => string | undefined;
}

/** The failed check of a key store without its `keystore.<field>`, and where to set it. */
function missing(k: KeyStoreCheck, field: string, what: Bilingual): DoctorCheck {
  return check(
    k.id,
    false,
    k.title,
    bi(`Липсва keystore.${field}`, `keystore.${field} is missing`),
    bi(
      `Задайте в keystore.${field} ${what.bg} в agent.json`,
      `Set keystore.${field} to ${what.en} in agent.json`,
    ),
  );
}

/** The verdict of the certificate file a reference names (null: it names none). */
async function certOfFile(k: KeyStoreCheck): Promise<DoctorCheck | null> {
  const { id, title, d, str } = k;
  const certFile = str("certificateFile", "certFile");
  if (!certFile) return null;
  const bytes = await Deno.readFile(certFile);
  const pem = new TextDecoder().decode(bytes).match(
    /-----BEGIN CERTIFICATE-----([^-]+)-----END/,
  )?.[1];
  const der = pem !== undefined ? Uint8Array.fromBase64(pem.replace(/\s+/g, "")) : bytes;
  return certVerdict(id, title, [toCertificateInfo(der, certFile)], d);
}

/** The check by the key store's type (a certificate file, when named, is read instead; a
 * cloud sender's service and sign-in are checked before its certificate). */
async function keyStoreCheck(k: KeyStoreCheck): Promise<DoctorCheck> {
  const { id, title, ks, d } = k;
  if (ks.type === "csc") {
    const service = await checkCscService(ks, d.timeoutMs);
    if (!service.ok) return check(id, false, title, service.detail, service.fix);
    const v = await certOfFile(k) ??
      missing(k, "certificateFile", bi("файла на сертификата", "the certificate's file"));
    return { ...v, detail: service.note.en + v.detail, detailBg: service.note.bg + v.detailBg };
  }
  const fromFile = await certOfFile(k);
  if (fromFile) return fromFile;
  if (ks.type === "pkcs12") return await pkcs12Check(k);
  if (ks.type === "pkcs11") return await pkcs11Check(k);
  if (ks.type === "windows" || ks.type === "macos") {
    return check(
      id,
      true,
      title,
      ks.type === "windows"
        ? bi(
          "В хранилището за сертификати на Windows: проверява се при подписване " +
            "(операционната система пита за PIN)",
          "In the Windows certificate store: checked when signing (the OS asks for the PIN)",
        )
        : bi(
          "В Keychain на macOS: проверява се при подписване (операционната система пита за PIN)",
          "In the macOS Keychain: checked when signing (the OS asks for the PIN)",
        ),
    );
  }
  return check(
    id,
    false,
    title,
    bi(
      `Непознат тип keystore ${JSON.stringify(ks.type)}`,
      `Unknown keystore type ${JSON.stringify(ks.type)}`,
    ),
    bi(
      "Използвайте тип pkcs12, pkcs11, windows, macos или csc (docs/signing.md)",
      "Use type pkcs12, pkcs11, windows, macos or csc (docs/signing.md)",
    ),
  );
}

/** A .p12/.pfx file: its certificates, or readable but encrypted (checked when signing). */
async function pkcs12Check(k: KeyStoreCheck): Promise<DoctorCheck> {
  const { id, title, d, str } = k;
  const file = str("file", "path");
  if (!file) return missing(k, "file", bi("пътя до .p12/.pfx файла", "the .p12/.pfx path"));
  const store = openPkcs12KeyStore(await Deno.readFile(file), { name: file });
  try {
    return certVerdict(id, title, await store.listCertificates(), d, str("certId"));
  } catch (e) {
    if (e instanceof AppError && e.code === "PIN_INCORRECT") {
      return check(
        id,
        true,
        title,
        bi(
          `${file} може да се прочете; сертификатът в него е шифрован и се проверява при ` +
            "подписване",
          `${file} is readable; its certificate is encrypted and is checked when signing`,
        ),
      );
    }
    throw e;
  } finally {
    await store.close();
  }
}

/** A card or token through its middleware's PKCS#11 library: the certificates on it. */
async function pkcs11Check(k: KeyStoreCheck): Promise<DoctorCheck> {
  const { id, title, d, str } = k;
  const module = str("module", "modulePath");
  if (!module) {
    return missing(
      k,
      "module",
      bi("PKCS#11 библиотеката на софтуера за картата", "the middleware's PKCS#11 library"),
    );
  }
  const store = await d.openPkcs11(module, str("tokenLabel"));
  try {
    return certVerdict(id, title, await store.listCertificates(), d, str("certId"));
  } finally {
    await store.close();
  }
}

/** The failed check of a key store that could not be read, with the fix for its kind. */
function failedCheck(k: KeyStoreCheck, e: unknown, found: ModuleCandidate[]): DoctorCheck {
  const fix = k.ks.type === "pkcs11"
    ? pkcs11Fix(e, k.d, found)
    : e instanceof Deno.errors.NotFound
    ? bi(
      "Върнете файла или поправете пътя до него в agent.json",
      "Put the file back or correct its path in agent.json",
    )
    : e instanceof Deno.errors.PermissionDenied
    ? bi("Дайте на този потребител право да чете файла", "Give this user read access to the file")
    : bi(
      "Експортирайте отново сертификата с частния ключ като .p12/.pfx файл",
      "Export the certificate with its private key again as a .p12/.pfx file",
    );
  return check(k.id, false, k.title, bi(errorMessage(e), errorMessage(e)), fix);
}
