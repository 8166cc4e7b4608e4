/**
 * The certificate checks (src/signing/cert_checks.ts) in an accountant's words: what each
 * failure means and what to do, in Bulgarian with the English beside it — never the
 * extension names (`keyUsage`, `QcStatements`) the checks report in English for the log.
 * @module
 */
import { bi, type Bilingual } from "../../contract/mod.ts";
import type { CertificateCheck, CertificateFailure } from "../../signing/mod.ts";

const WORDS: Record<CertificateFailure, Bilingual> = {
  notYetValid: bi("сертификатът още не е влязъл в сила", "the certificate is not valid yet"),
  expired: bi(
    "сертификатът е изтекъл — подновете го при доставчика на КЕП",
    "the certificate has expired — renew it with your QES provider",
  ),
  noKeyUsage: bi(
    "в сертификата не е посочено, че служи за подписване",
    "the certificate does not say it may be used for signing",
  ),
  keyUsageNotForSigning: bi(
    "сертификатът не е предназначен за подписване",
    "the certificate is not meant for signing",
  ),
  noQcStatements: bi(
    "подписът не е квалифициран (КЕП): НАП може да откаже подадените с него документи",
    "the signature is not qualified (QES): the NRA may refuse what is filed with it",
  ),
  noQcCompliance: bi(
    "подписът не е квалифициран (КЕП): НАП може да откаже подадените с него документи",
    "the signature is not qualified (QES): the NRA may refuse what is filed with it",
  ),
  unknownIssuer: bi(
    "издателят не е български доставчик на квалифицирани удостоверения (B-Trust, StampIT, InfoNotary, Evrotrust, SEP)",
    "the issuer is not a Bulgarian qualified provider (B-Trust, StampIT, InfoNotary, Evrotrust, SEP)",
  ),
};

/** What a check is about, for a passed one (the list shows every check). */
const PASSED: Record<CertificateCheck["check"], Bilingual> = {
  validity: bi("в сила е", "it is valid"),
  keyUsage: bi("служи за подписване", "it may be used for signing"),
  qcStatements: bi("квалифициран подпис (КЕП)", "qualified signature (QES)"),
  issuer: bi("издаден от български доставчик на КЕП", "issued by a Bulgarian QES provider"),
};

/**
 * One check in words.
 * @param check a check result (its `why` when failed; an old result without it reads by name)
 * @returns Bulgarian and English
 * @throws never
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const words = checkWords({ check: "qcStatements", ok: false, why: "noQcStatements" });
 * equal(words.en, "the signature is not qualified (QES): the NRA may refuse what is filed with it");
 * ```
 */
export function checkWords(
  check: Pick<CertificateCheck, "check" | "ok" | "why">,
): Bilingual {
  if (check.ok) return PASSED[check.check];
  if (check.why) return WORDS[check.why];
  const byName: Record<CertificateCheck["check"], CertificateFailure> = {
    validity: "expired",
    keyUsage: "keyUsageNotForSigning",
    qcStatements: "noQcStatements",
    issuer: "unknownIssuer",
  };
  return WORDS[byName[check.check]];
}

/**
 * The failed checks in words, joined; duplicates (two QcStatements failures) said once.
 * @param checks the results (passed ones are skipped)
 * @returns Bulgarian and English, each `; `-joined; empty strings when none failed
 * @throws never
 */
export function failedInWords(
  checks: readonly Pick<CertificateCheck, "check" | "ok" | "why">[],
): Bilingual {
  const words = checks.filter((c) => !c.ok).map(checkWords);
  const uniq = (xs: string[]) => [...new Set(xs)].join("; ");
  return bi(uniq(words.map((w) => w.bg)), uniq(words.map((w) => w.en)));
}
