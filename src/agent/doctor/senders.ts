/**
 * Sender checks of `agent doctor`: each sender's key store reference in agent.json is opened
 * the way the agent would, without a PIN — a PKCS#12 `file` is read (its certificate checked
 * when it is not encrypted), a PKCS#11 `module` is loaded and its token's certificates listed
 * (`tokenLabel`, `certId` as in sender_keys.ts), an optional `certificateFile` (PEM/DER) is
 * read — and the certificate checked with checkCertificate. Only the subject CN is shown,
 * never the personal id.
 * @module
 */
import type { SenderConfig } from "../senders/mod.ts";
import { check, type DoctorCheck, type ResolvedDoctorDeps as Deps } from "./types.ts";
import { AppError } from "../../contract/mod.ts";
import {
  type CertificateInfo,
  checkCertificate,
  type ModuleCandidate,
  openPkcs12KeyStore,
  toCertificateInfo,
} from "../../signing/mod.ts";

const msg = (e: unknown) => (e instanceof Error ? e.message : String(e));

const cn = (dn: string) => /(?:^|,\s*)CN=([^,]+)/.exec(dn)?.[1] ?? "(no CN)";

/** Certificate checks → one verdict; validity or key usage failing fails, QES doubts warn. */
function certVerdict(
  id: string,
  title: string,
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
      `No certificate matches certId ${certId}`,
      `Set keystore.certId to one of: ${all.map((c) => c.id).join(", ")}`,
    );
  }
  if (certs.length === 0) {
    return check(
      id,
      "warn",
      title,
      "No certificate found",
      "Insert the card or token, then run `agent doctor` again",
    );
  }
  const results = certs.map((c) => ({ c, r: checkCertificate(c.der, () => new Date(d.now())) }));
  const best = results.find((x) => x.r.every((r) => r.ok)) ??
    results.find((x) => x.r[0].ok && x.r[1].ok) ?? results[0];
  const failed = best.r.filter((r) => !r.ok);
  const detail = `${cn(best.c.subject)}: ${best.r.map((r) => r.reason).join("; ")}`;
  if (failed.length === 0) return check(id, true, title, detail);
  const hard = failed.some((r) => r.check === "validity" || r.check === "keyUsage");
  return check(
    id,
    hard ? false : "warn",
    title,
    detail,
    hard
      ? "Renew the certificate with your QES provider and point the sender at the new one"
      : "Use a qualified certificate of a Bulgarian QES provider: the NRA rejects others",
  );
}

function pkcs11Fix(e: unknown, d: Deps, found: ModuleCandidate[]): string {
  const list = found.length
    ? ` Found on this PC: ${found.map((m) => `${m.middleware} (${m.path})`).join("; ")}.`
    : "";
  if (e instanceof AppError && e.code === "PKCS11_MODULE_MISSING") {
    return "Middleware missing: install your QES provider's card/token software (64-bit) or " +
      `correct keystore.module in agent.json.${list}`;
  }
  if (e instanceof AppError && e.code === "PKCS11_MODULE_WRONG_ARCH") {
    return `Wrong CPU architecture: install the middleware build for ${d.arch}` +
      (d.os === "darwin" ? " (Apple Silicon: the arm64 or universal build)" : "") +
      (d.os === "windows" ? " (the 64-bit DLL in System32, not SysWOW64)" : "") + `.${list}`;
  }
  return `Insert the card or token, reinstall the middleware, or check keystore.module.${list}`;
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
  const title = `Sender "${s.id}" certificate`;
  const ks = s.keystore as Record<string, unknown> | undefined;
  if (!s.active) return check(id, true, title, "Inactive: not checked");
  if (!ks) {
    return check(
      id,
      "warn",
      title,
      "No key store: usable in test mode only",
      "Add a keystore reference to this sender in agent.json (docs/signing.md)",
    );
  }
  const str = (...keys: string[]) =>
    keys.map((k) => ks[k]).find((v) => typeof v === "string") as string | undefined;
  try {
    const certFile = str("certificateFile", "certFile");
    if (certFile) {
      const bytes = await Deno.readFile(certFile);
      const pem = new TextDecoder().decode(bytes).match(
        /-----BEGIN CERTIFICATE-----([^-]+)-----END/,
      );
      const der = pem ? Uint8Array.fromBase64(pem[1].replace(/\s+/g, "")) : bytes;
      return certVerdict(id, title, [toCertificateInfo(der, certFile)], d);
    }
    if (ks.type === "pkcs12") {
      const file = str("file", "path");
      if (!file) {
        return check(
          id,
          false,
          title,
          "keystore.file is missing",
          "Set keystore.file to the .p12/.pfx path in agent.json",
        );
      }
      const store = openPkcs12KeyStore(await Deno.readFile(file), { name: file });
      try {
        return certVerdict(id, title, await store.listCertificates(), d, str("certId"));
      } catch (e) {
        if (e instanceof AppError && e.code === "PIN_INCORRECT") {
          return check(
            id,
            true,
            title,
            `${file} is readable; its certificate is encrypted and is checked when signing`,
          );
        }
        throw e;
      } finally {
        await store.close();
      }
    }
    if (ks.type === "pkcs11") {
      const module = str("module", "modulePath");
      if (!module) {
        return check(
          id,
          false,
          title,
          "keystore.module is missing",
          "Set keystore.module to the middleware's PKCS#11 library in agent.json",
        );
      }
      const store = await d.openPkcs11(module, str("tokenLabel"));
      try {
        return certVerdict(id, title, await store.listCertificates(), d, str("certId"));
      } finally {
        await store.close();
      }
    }
    if (ks.type === "windows" || ks.type === "macos") {
      return check(
        id,
        true,
        title,
        `In the ${
          ks.type === "windows" ? "Windows certificate store" : "macOS Keychain"
        }: checked when signing (the OS asks for the PIN)`,
      );
    }
    return check(
      id,
      false,
      title,
      `Unknown keystore type ${JSON.stringify(ks.type)}`,
      "Use type pkcs12, pkcs11, windows or macos (docs/signing.md)",
    );
  } catch (e) {
    const fix = ks.type === "pkcs11"
      ? pkcs11Fix(e, d, found)
      : e instanceof Deno.errors.NotFound
      ? "Put the file back or correct its path in agent.json"
      : e instanceof Deno.errors.PermissionDenied
      ? "Give this user read access to the file"
      : "Export the certificate with its private key again as a .p12/.pfx file";
    return check(id, false, title, msg(e), fix);
  }
}
