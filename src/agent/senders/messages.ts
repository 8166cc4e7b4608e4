/**
 * What the Senders page (and any other place a person reads it) shows for a failure of the
 * sender actions and of certificate discovery: one clear sentence in Bulgarian with the English
 * beside it, chosen by the error's stable code and its safe `details` — never a stack trace,
 * never a PIN. Clients branch on `code`; the texts may change.
 * @module
 */
import type { AppError, Bilingual } from "../../contract/mod.ts";
import { bi, type ErrorCode, isAppError } from "../../contract/mod.ts";
import type { CertificateCheckName, CertificateFailure } from "../../signing/mod.ts";
import { failedInWords } from "./check_words.ts";

/** A failure as the page shows it. */
export interface SenderErrorText extends Bilingual {
  /** The stable code (`AGENT_INTERNAL_ERROR` for anything that is not an AppError). */
  readonly code: ErrorCode;
}

const str = (v: unknown) => (typeof v === "string" ? v : undefined);

/** CK_RV names (pkcs11/errors.ts details.rv) that mean the token went away. */
const REMOVED = /TOKEN_NOT_PRESENT|DEVICE_REMOVED|TOKEN_NOT_RECOGNIZED|SESSION_CLOSED|DEVICE_ERROR/;

/**
 * The text of a sender action's or discovery's failure.
 * @param e what was thrown
 * @returns code plus Bulgarian and English sentences
 * @throws never
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { AppError } from "../../contract/mod.ts";
 * // e.g. what a sender's test (`testSender`) threw:
 * const text = senderErrorText(new AppError("PIN_INCORRECT", "The PIN is incorrect"));
 * equal(text.code, "PIN_INCORRECT");
 * console.log(text.bg, "/", text.en);
 * ```
 */
export function senderErrorText(e: unknown): SenderErrorText {
  if (!isAppError(e)) {
    return {
      code: "AGENT_INTERNAL_ERROR",
      bg: "Възникна неочаквана грешка; вижте журнала на агента.",
      en: "An unexpected error occurred; see the agent's log.",
    };
  }
  return { code: e.code, ...senderErrorWords(e) };
}

/** A KEYSTORE_UNAVAILABLE's words: the first row whose test its details (and message) pass;
 * none: the key store cannot be opened. */
const KEYSTORE_WORDS: readonly (readonly [
  (d: Record<string, unknown>, message: string) => boolean,
  Bilingual,
])[] = [
  [
    (d, message) => REMOVED.test(str(d.rv) ?? "") || /not connected/.test(message),
    bi(
      "Картата или токенът е изваден или не може да бъде прочетен. Поставете го и опитайте отново.",
      "The card or token was removed or cannot be read. Insert it and try again.",
    ),
  ],
  [
    (d) => d.matched === 0,
    bi(
      "Сертификатът не е намерен. Поставете картата или токена, на който е, и опитайте отново.",
      "The certificate was not found. Insert the card or token that holds it and try again.",
    ),
  ],
  [
    (d) => typeof d.matched === "number",
    bi(
      "Няколко сертификата отговарят на описанието; изберете сертификата отново.",
      "Several certificates match; choose the certificate again.",
    ),
  ],
  [
    (d) => d.plainKey === true,
    bi(
      "Ключът в този файл не е защитен с парола; агентът не го съхранява така. Изнесете сертификата отново с парола (.p12/.pfx) и опитайте пак.",
      "The key in this file is not protected by a password; the agent does not keep it that way. Export the certificate again with a password (.p12/.pfx) and try again.",
    ),
  ],
  [
    (d) => d.notPkcs12 === true,
    bi(
      "Това не е файл с електронен подпис (PKCS#12: .p12 или .pfx).",
      "This is not a signature file (PKCS#12: .p12 or .pfx).",
    ),
  ],
  [
    (d) => typeof d.key === "string",
    bi(
      "Избраният сертификат вече не се предлага (изваден токен?). Потърсете отново.",
      "The chosen certificate is no longer offered (token removed?). Look again.",
    ),
  ],
];

/** The words of an AppError of the sender actions, by its code and its safe details. */
function senderErrorWords(e: AppError): Bilingual {
  const d = e.details ?? {};
  switch (e.code) {
    case "PIN_INCORRECT":
      if (d.pinRequired === true) {
        return bi(
          "Въведете PIN кода (за файл: паролата му).",
          "Enter the PIN (for a file: its password).",
        );
      }
      if (d.pinLocked === true) {
        return bi(
          "Грешен PIN код: токенът вече е блокиран. Отключете го с PUK кода чрез софтуера на доставчика на КЕП.",
          "Wrong PIN: the token is now locked. Unlock it with the PUK in your QES provider's software.",
        );
      }
      return d.pinFinalTry === true
        ? bi(
          "Грешен PIN код. Остава само един опит, преди токенът да се блокира.",
          "Wrong PIN. Only one attempt is left before the token locks.",
        )
        : bi(
          "Грешен PIN код или парола. Нищо не е подписано; проверете го и опитайте отново.",
          "Wrong PIN or password. Nothing was signed; check it and try again.",
        );
    case "PIN_LOCKED":
      return bi(
        "PIN кодът на токена е блокиран. Отключете го с PUK кода чрез софтуера на доставчика на КЕП.",
        "The token's PIN is locked. Unlock it with the PUK in your QES provider's software.",
      );
    case "PKCS11_MODULE_MISSING":
      return bi(
        `Софтуерът за картата или токена (PKCS#11 модул) не е инсталиран${
          str(d.modulePath) ? `: ${d.modulePath}` : ""
        }. Инсталирайте софтуера на доставчика на КЕП.`,
        `The card or token software (PKCS#11 module) is not installed${
          str(d.modulePath) ? `: ${d.modulePath}` : ""
        }. Install your QES provider's middleware.`,
      );
    case "PKCS11_MODULE_WRONG_ARCH":
      return bi(
        `Софтуерът за картата или токена е за друг вид процесор${
          str(d.modulePath) ? ` (${d.modulePath})` : ""
        }. Инсталирайте 64-битовата версия за този компютър.`,
        `The card or token software is built for another processor${
          str(d.modulePath) ? ` (${d.modulePath})` : ""
        }. Install the 64-bit build for this computer.`,
      );
    case "KEYSTORE_UNAVAILABLE":
      return KEYSTORE_WORDS.find(([when]) => when(d, e.message))?.[1] ?? bi(
        "Хранилището на сертификата (карта, токен или файл) не може да бъде отворено.",
        `The certificate's key store cannot be opened: ${e.message}.`,
      );
    case "CERTIFICATE_INVALID": {
      const failed = Array.isArray(d.failed)
        ? failedInWords(
          (d.failed as { check?: unknown; why?: unknown }[]).filter((f) => str(f.check)).map((
            f,
          ) => ({
            check: f.check as CertificateCheckName,
            ok: false,
            ...(str(f.why) ? { why: f.why as CertificateFailure } : {}),
          })),
        )
        : null;
      return failed && failed.bg
        ? bi(
          `Сертификатът не премина проверките: ${failed.bg}.`,
          `The certificate did not pass the checks: ${failed.en}.`,
        )
        : bi(
          "Сертификатът не може да бъде използван.",
          `The certificate cannot be used: ${e.message}.`,
        );
    }
    case "PICKER_UNAVAILABLE":
      return bi(
        "Прозорецът за избор на файл не може да се отвори на този компютър. Въведете пътя до файла или го пуснете в полето за файл на страницата.",
        "The file dialog cannot open on this computer. Type the file's path, or drop the file on the page's file box.",
      );
    case "PICKER_BUSY":
      return bi(
        "Вече е отворен прозорец за избор на файл (може да е зад браузъра). Затворете го или въведете пътя до файла.",
        "A file dialog is already open (it may be behind the browser). Close it, or type the file's path.",
      );
    case "PICKER_TIMEOUT":
      return bi(
        "Прозорецът за избор на файл не получи отговор и беше затворен. Въведете пътя до файла или го пуснете на страницата.",
        "The file dialog was not answered and was closed. Type the file's path or drop the file on the page.",
      );
    case "SIGNING_FAILED":
      return bi(
        "Тестовият подпис не можа да бъде създаден или проверен.",
        `The test signature could not be made or verified: ${e.message}.`,
      );
    case "REMOTE_SIGN_IN_REQUIRED":
      return bi(
        "Входът при доставчика на облачния подпис е изтекъл или е отменен. Натиснете „Влезте отново“ при подателя.",
        'The sign-in at the cloud signature\'s provider expired or was revoked. Press "Sign in again" on the sender.',
      );
    case "REMOTE_SIGNING_TIMEOUT":
      return bi(
        "Доставчикът на облачния подпис не отговори навреме. Нищо не е подадено; опитайте отново.",
        "The cloud signature's provider did not answer in time. Nothing was filed; try again.",
      );
    case "SENDER_NOT_FOUND":
      return bi("Няма подател с този идентификатор.", "There is no sender with this id.");
    case "NO_SENDER_CONFIGURED":
      return bi(
        "Този подател няма сертификат (хранилище на ключа).",
        "This sender has no certificate (key store).",
      );
    case "CONFLICT":
      return bi(
        "Вече има подател с този идентификатор; изберете друг или първо премахнете стария.",
        "A sender with this id already exists; choose another id or remove the old one first.",
      );
    case "VALIDATION_FAILED":
      switch (d.field) {
        case "displayName":
          return bi(
            "Въведете името на подателя (до 200 знака).",
            "Enter the sender's name (up to 200 characters).",
          );
        case "id":
          return bi(
            "Идентификаторът може да съдържа от 1 до 64 латински букви, цифри и _ . -",
            "The id may have 1 to 64 Latin letters, digits and _ . -",
          );
        case "agent.json":
          return bi(
            "Файлът с настройки agent.json е невалиден; поправете го (вижте `agent doctor`).",
            `The settings file agent.json is invalid; fix it (see \`agent doctor\`): ${e.message}`,
          );
        default:
          return bi(
            "Препратката към сертификата е невалидна; изберете сертификата отново.",
            "The certificate reference is invalid; choose the certificate again.",
          );
      }
    default:
      return bi(`Действието не бе успешно (${e.code}).`, e.message);
  }
}
