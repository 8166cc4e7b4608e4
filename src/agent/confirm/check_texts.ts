/**
 * What the confirmation page says when a file the user let the agent read fails its checks
 * (docs/confirmation.md § Two steps; the checks: docs/local-input.md § What is checked per
 * filing): the error in the accountant's words, Bulgarian with the English beside it, and what
 * to do. The request itself is answered with the error's `errorCode` (src/contract/errors.ts).
 * @module
 */
import { bi, type ErrorCode, isAppError, isErrorCode } from "../../contract/mod.ts";
import type { Bilingual } from "../../contract/mod.ts";
import type { PageError } from "./dialog.ts";

const CHOOSE: Bilingual = bi(
  "Изберете правилния файл в счетоводната програма и подайте отново.",
  "Choose the right file in the accounting program and file again.",
);

/** Per error code: what happened and what to do. */
const TEXTS: Partial<Record<ErrorCode, { bg: string; en: string; todo: Bilingual }>> = {
  FILE_KIND_MISMATCH: {
    bg: "Файлът не е декларацията, която се подава.",
    en: "The file is not the declaration being filed.",
    todo: CHOOSE,
  },
  FILE_KIND_UNKNOWN: {
    bg: "Файлът не е във формат на НАП.",
    en: "The file is not in an NRA format.",
    todo: CHOOSE,
  },
  FILE_EIK_MISMATCH: {
    bg: "Файлът е на друга фирма (друг ЕИК).",
    en: "The file belongs to another company (another EIK).",
    todo: bi(
      "Проверете фирмата на файла и фирмата, за която се подава, и подайте отново.",
      "Check the file's company and the company filed for, then file again.",
    ),
  },
  TOKEN_EIK_MISMATCH: {
    bg: "Файлът е на фирма, за която тази заявка не може да подава.",
    en: "The file belongs to a company this request may not file for.",
    todo: bi(
      "Проверете фирмата на файла и фирмата, за която се подава, и подайте отново.",
      "Check the file's company and the company filed for, then file again.",
    ),
  },
  FILE_PERIOD_MISMATCH: {
    bg: "Файлът е за друг период.",
    en: "The file is for another tax period.",
    todo: bi(
      "Изберете файла за периода, който се подава, и подайте отново.",
      "Choose the file of the period being filed, then file again.",
    ),
  },
  FILE_PARSE_ERROR: {
    bg: "Файлът е повреден или непълен.",
    en: "The file is damaged or incomplete.",
    todo: bi(
      "Създайте файла отново от счетоводната програма и подайте отново.",
      "Export the file again from the accounting program and file again.",
    ),
  },
  FILE_ENCODING_UNSUPPORTED: {
    bg: "Файлът не е в кодировка Windows-1251, която НАП приема.",
    en: "The file is not in Windows-1251, the encoding the NRA accepts.",
    todo: bi(
      "Запишете файла в Windows-1251 (както го създава счетоводната програма).",
      "Save the file in Windows-1251 (as the accounting program writes it).",
    ),
  },
  LOCAL_PATH_NOT_FOUND: {
    bg: "Файлът или папката не съществува.",
    en: "The file or folder does not exist.",
    todo: bi(
      "Проверете пътя (преместен или преименуван ли е файлът?) и подайте отново.",
      "Check the path (was the file moved or renamed?) and file again.",
    ),
  },
  LOCAL_PATH_UNREADABLE: {
    bg: "Файлът или папката не може да бъде прочетен(а) (права за достъп).",
    en: "The file or folder cannot be read (permissions).",
    todo: bi(
      "Дайте права за четене на потребителя, с който работи агентът, и подайте отново.",
      "Let the agent's user read it, then file again.",
    ),
  },
  LOCAL_INPUT_REQUIRED: {
    bg: "В посоченото място няма файловете на декларацията.",
    en: "The place named holds none of the declaration's files.",
    todo: CHOOSE,
  },
  FILE_TOO_LARGE: {
    bg: "Файлът е твърде голям.",
    en: "The file is too large.",
    todo: CHOOSE,
  },
  TOO_MANY_FILES: {
    bg: "Папката съдържа твърде много файлове.",
    en: "The folder holds too many files.",
    todo: bi(
      "Посочете папката на периода, не цялата папка на клиентите.",
      "Name the period's folder, not the whole clients' folder.",
    ),
  },
  FILE_AMBIGUOUS: {
    bg: "За една фирма и период има няколко файла от един вид.",
    en: "One company and period has several files of one kind.",
    todo: bi(
      "Оставете един файл от вид в папката и подайте отново.",
      "Keep one file of each kind in the folder, then file again.",
    ),
  },
};

/**
 * The page's text of a check that failed.
 * @param typeId the request's operation
 * @param error what the check threw (an AppError, or a batch's `{ code, message }` of a company's
 *   files; anything else — or a code the catalog does not have — is shown as AGENT_INTERNAL_ERROR)
 * @returns the error in Bulgarian and English, with what to do
 */
export function pageError(typeId: string, error: unknown): PageError {
  const given: unknown = isAppError(error) ? error.code : (error as { code?: unknown })?.code;
  const code: ErrorCode = typeof given === "string" && isErrorCode(given)
    ? given
    : "AGENT_INTERNAL_ERROR";
  const detail = isAppError(error)
    ? error.message
    : String((error as { message?: unknown })?.message ?? "");
  const t = TEXTS[code];
  if (t) return { typeId, code, ...t, detail };
  return {
    typeId,
    code,
    detail,
    bg: "Файловете не могат да бъдат подадени.",
    en: isAppError(error) ? error.message : `The files cannot be filed (${code}).`,
    todo: bi(
      "Проверете файловете; ако грешката остане, вижте дневника на агента (конзолата).",
      "Check the files; if the error stays, see the agent's log (the console).",
    ),
  };
}
