/**
 * A filing's error in the accountant's words (docs/console.md § Filings): what went wrong and
 * what to do, by the error's stable code, in the page's language — for the Filings page and the
 * accountant's exports. The code and the message as recorded (English, or the NRA's own text)
 * stay available to whoever helps: in the page's details and in the export's last columns.
 * Codes without words of their own are said in general words (in English with the error
 * catalog's description).
 * @module
 */
import { bi, ERROR_CATALOG, type ErrorCode } from "../../contract/mod.ts";
import type { Bilingual } from "./layout.ts";

/** The words of the codes a filing ends with (src/contract/error_catalog.ts). */
const WORDS: Readonly<Partial<Record<ErrorCode, Bilingual>>> = {
  PIN_INCORRECT: bi(
    "Грешен ПИН: подаването спря, за да не се заключи картата.",
    "Wrong PIN: the filing stopped so that the card does not lock.",
  ),
  PIN_LOCKED: bi(
    "ПИН кодът на картата е заключен: отключете го със софтуера на доставчика на КЕП.",
    "The card's PIN is locked: unlock it with your QES provider's software.",
  ),
  KEYSTORE_UNAVAILABLE: bi(
    "Картата, токенът или файлът с подписа не може да бъде отворен: поставете картата и опитайте отново.",
    "The card, token or signature file could not be opened: insert the card and try again.",
  ),
  PKCS11_MODULE_MISSING: bi(
    "Липсва софтуерът за картата на доставчика на КЕП: инсталирайте го.",
    "Your QES provider's card software is missing: install it.",
  ),
  PKCS11_MODULE_WRONG_ARCH: bi(
    "Софтуерът за картата е за друг вид компютър: инсталирайте 64-битовия.",
    "The card software is built for another kind of computer: install the 64-bit one.",
  ),
  CERTIFICATE_INVALID: bi(
    "Сертификатът на подателя е изтекъл или още не е валиден: подновете го.",
    "The sender's certificate has expired or is not valid yet: renew it.",
  ),
  SIGNING_FAILED: bi(
    "Декларацията не можа да бъде подписана.",
    "The declaration could not be signed.",
  ),
  PORTAL_UNREACHABLE: bi(
    "Порталът на НАП не отговори (няма връзка); декларацията не е изпратена.",
    "The NRA portal could not be reached; the declaration was not sent.",
  ),
  PORTAL_TIMEOUT: bi(
    "Порталът на НАП не отговори навреме.",
    "The NRA portal did not answer in time.",
  ),
  PORTAL_SERVER_ERROR: bi(
    "Порталът на НАП върна грешка от своя страна.",
    "The NRA portal failed on its side.",
  ),
  PORTAL_REJECTED: bi("НАП не прие декларацията.", "The NRA did not accept the declaration."),
  PORTAL_BAD_RESPONSE: bi(
    "Порталът на НАП отговори неразбираемо.",
    "The NRA portal's answer could not be read.",
  ),
  PORTAL_AUTH_FAILED: bi(
    "Порталът на НАП не прие достъпа на агента.",
    "The NRA portal refused the agent's access.",
  ),
  PORTAL_NOT_CONFIGURED: bi(
    "Реалното подаване не е настроено в агента.",
    "Live filing is not set up in the agent.",
  ),
  CERTIFICATE_NOT_RECOGNISED: bi(
    "НАП не разпозна сертификата или потребителя му.",
    "The NRA did not recognise the certificate or its user.",
  ),
  NO_POWER_OF_ATTORNEY: bi(
    "Подателят няма пълномощно за тази фирма в НАП.",
    "The sender holds no power of attorney for this company at the NRA.",
  ),
  DOCUMENT_SIGNATURE_MISMATCH: bi(
    "НАП намери, че подписът не съвпада с файла.",
    "The NRA found that the signature does not match the file.",
  ),
  FILE_PARSE_ERROR: bi(
    "Файлът на декларацията е повреден или в непознат вид.",
    "The declaration's file is damaged or of an unknown layout.",
  ),
  FILE_EIK_MISMATCH: bi(
    "Файлът е на друга фирма (друг ЕИК).",
    "The file belongs to another company (another EIK).",
  ),
  FILE_PERIOD_MISMATCH: bi(
    "Файлът е за друг период.",
    "The file is for another period.",
  ),
  LOCAL_PATH_NOT_FOUND: bi(
    "Файлът или папката не е намерен на компютъра.",
    "The file or folder was not found on this computer.",
  ),
  AGENT_INTERNAL_ERROR: bi(
    "Неочаквана грешка в агента (вижте „Дневник“).",
    "An unexpected failure in the agent (see Log).",
  ),
  NOT_SENT: bi(
    "Агентът спря, преди да изпрати декларацията: тя не е подадена. Подайте я отново.",
    "The agent stopped before sending the declaration: it was not filed. File it again.",
  ),
};

/**
 * A filing's error in words: the code's own sentence (for a refusal by the NRA, with the NRA's
 * reason after it), else general words.
 * @param code the journal row's `errorCode`
 * @param message the row's `errorMessage` (the NRA's reason of a refusal)
 * @returns the words in both languages, or null without a code
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(filingErrorWords("PIN_LOCKED", "CKR_PIN_LOCKED")?.en, "The card's PIN is locked: unlock it with your QES provider's software.");
 * equal(filingErrorWords(null, null), null);
 * ```
 */
export function filingErrorWords(
  code: ErrorCode | null,
  message: string | null,
): Bilingual | null {
  if (!code) return null;
  const own = WORDS[code];
  if (own) {
    // The NRA's own reason is its words for the accountant: kept after ours.
    return code === "PORTAL_REJECTED" && message
      ? bi(`${own.bg} ${message}`, `${own.en} ${message}`)
      : own;
  }
  const described: { description: string } = ERROR_CATALOG[code];
  return bi(
    "Подаването не успя (причината е в подробностите).",
    `The filing failed: ${described.description}.`,
  );
}
