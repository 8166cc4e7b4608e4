/**
 * The one error catalog of the product: every stable `errorCode`, its `errorKind` and the HTTP
 * status it travels with. Implements docs/errors.md § Wire format (codes are stable, texts
 * are not; kinds PARAMETER, CREDENTIALS, PORTAL). The list is published in the OpenAPI
 * document as `components.schemas.ErrorCode` and `components.schemas.ErrorKind`.
 *
 * Statuses, per service (`httpStatus`, errors.ts): the agent answers every error with 502 except
 * token failures (401), a too-old agent (426), an unknown path (404), an oversized body (413), a
 * body not sent as JSON (415), rate limits (429), host/origin refusals (403/421) and a malformed
 * journal query of its console (400); the token service answers 400/401/402/403 as the spec says (a
 * malformed body is a 400 there: an entry's `tokenStatus`), 429 over a key's or integrator's budget
 * and 503 while its database is unreachable (docs/token-service.md § Rate limits, § Operations). An
 * entry also says what its code tells of a failed filing's outcome (`filingFailure`, read by the
 * agent's journal).
 * @module
 */

/** Who can fix an error: the caller (PARAMETER), the machine's user (CREDENTIALS), or nobody
 * here because the authority's portal answered unexpectedly (PORTAL). */
export type ErrorKind = "PARAMETER" | "CREDENTIALS" | "PORTAL";

/** The error kinds in the order the spec lists them. */
export const ERROR_KINDS: readonly ErrorKind[] = ["PARAMETER", "CREDENTIALS", "PORTAL"];

/** The two programs that answer with the catalog's errors. */
export type ErrorService = "agent" | "token";

/** What a failed filing's error says about the declaration when its portal adapter does not
 * say it itself (`details.outcome`): it certainly never reached the authority ("not_filed", the
 * journal's word), or the authority answered with a refusal ("refused"). Codes without one leave
 * it "unknown". */
export type FilingFailure = "not_filed" | "refused";

/** One catalog entry: kind, HTTP status per service and a one-line description (English). */
export interface ErrorSpec {
  readonly kind: ErrorKind;
  /** The agent's HTTP status (docs/errors.md § Wire format: 502 unless a transport-level
   * refusal), and the token service's unless `tokenStatus` differs. The OpenAPI documents'
   * `x-error-catalog` publish this one. */
  readonly status: number;
  /** The token service's HTTP status where it differs from the agent's (docs/errors.md
   * § Wire format: a malformed request is a 400 there). */
  readonly tokenStatus?: number;
  readonly description: string;
  /** Set on the codes of a failed submit whose outcome the code alone tells. */
  readonly filingFailure?: FilingFailure;
  /** Set on a code the agent's journal records but no API ever answers with: it is in
   * docs/errors.md and in {@link ErrorCode}, not in the OpenAPI documents' `ErrorCode` enum
   * nor their `x-error-catalog` (`ERROR_CODES`, errors.ts). */
  readonly journalOnly?: true;
}

/** What an entry may add to kind, status and description. */
interface ErrorExtras {
  readonly tokenStatus?: number;
  readonly filingFailure?: FilingFailure;
  readonly journalOnly?: true;
}

const entry = (
  kind: ErrorKind,
  status: number,
  description: string,
  extras: ErrorExtras = {},
): ErrorSpec => ({ kind, status, description, ...extras });
const p = (status: number, description: string, extras?: ErrorExtras) =>
  entry("PARAMETER", status, description, extras);
const c = (status: number, description: string, extras?: ErrorExtras) =>
  entry("CREDENTIALS", status, description, extras);
const portal = (status: number, description: string, extras?: ErrorExtras) =>
  entry("PORTAL", status, description, extras);
/** The outcome a code tells of a failed submit (see {@link FilingFailure}). */
const NOT_FILED = { filingFailure: "not_filed" } as const;
const REFUSED = { filingFailure: "refused" } as const;

/** The catalog: `errorCode → { kind, status, description }`. Never rename a key. */
export const ERROR_CATALOG = {
  // --- empty result (metadata only, never an error body) ---------------------------------
  NO_DATA: portal(
    200,
    "Not an error: metadata.errorCode of a successful result whose list (items/files) is empty",
  ),

  // --- request shape (agent and token service) --------------------------------------------
  VALIDATION_FAILED: p(502, "A body field is missing or invalid; `details.field` names it", {
    tokenStatus: 400,
    // Refused while building the request, before any byte went out.
    filingFailure: "not_filed",
  }),
  INVALID_JSON: p(502, "The body is not valid JSON (or not a JSON object)", { tokenStatus: 400 }),
  UNKNOWN_OPERATION: p(404, "No operation with this typeId exists"),
  NOT_FOUND: p(404, "No such route"),
  BODY_TOO_LARGE: p(413, "The request body exceeds the size limit"),
  UNSUPPORTED_MEDIA_TYPE: p(
    415,
    "The body must be sent as Content-Type: application/json (charset utf-8 or none); text/plain, forms, XML or no Content-Type are refused",
  ),
  RATE_LIMITED: p(
    429,
    "Too many requests: the agent's budget per origin, or the token service's per API key or per integrator (`details.scope`); retry after `Retry-After` seconds",
  ),
  HOST_NOT_ALLOWED: p(421, "The Host header is not 127.0.0.1:<port> or localhost:<port>"),
  ORIGIN_NOT_ALLOWED: p(403, "The calling page's origin is not allowed by the token"),

  // --- agent: token verification (all 401) -------------------------------------------------
  TOKEN_MISSING: p(401, "No `Authorization: Bearer <JWT>` header"),
  TOKEN_INVALID: p(
    401,
    "The JWT is malformed, its signature, issuer, audience or algorithm is wrong",
  ),
  TOKEN_EXPIRED: p(401, "The JWT has expired (tokens live 5 s; leeway at most 2 s)"),
  TOKEN_REPLAYED: p(401, "The JWT's `jti` was already used once"),
  TOKEN_TYPE_MISMATCH: p(401, "The JWT was issued for another typeId than the operation called"),
  TOKEN_EIK_MISMATCH: p(401, "The body's EIK(s) are not covered by the JWT's eik/eiks claim"),
  TOKEN_BODY_MISMATCH: p(401, "The body's SHA-256 differs from the JWT's `bodySha256` claim"),
  TOKEN_KEYS_UNAVAILABLE: c(401, "The token service's JWKS could not be fetched to verify the JWT"),
  AGENT_UPDATE_REQUIRED: c(426, "The token service requires a newer agent version"),

  // --- agent: senders and confirmation ----------------------------------------------------
  SENDER_NOT_CHOSEN: c(502, "The user declined the sender confirmation or it timed out"),
  SENDER_NOT_FOUND: p(502, "X-Svc-Sender-Id names no configured sender"),
  SENDER_INACTIVE: c(502, "The chosen sender is not active"),
  NO_SENDER_CONFIGURED: c(502, "No sender is configured for live filing"),
  CONFIRMATION_BUSY: p(502, "Too many confirmations are pending; retry later"),
  CONFIRMATION_NOT_FOUND: p(404, "No pending confirmation with this id"),
  CONFIRMATION_NONCE_INVALID: p(403, "The confirmation decision lacks the page's one-time nonce"),
  CONFIRMATION_CHANGED: p(
    409,
    "More requests joined the dialog after the page was shown; review the page again",
  ),
  BATCH_ID_INVALID: p(502, "X-Svc-Batch-Id must be a GUID"),

  // --- agent: the console (the person at the machine) -------------------------------------
  CONSOLE_SESSION_REQUIRED: c(
    403,
    "The console needs the session its one-time link sets (`agent open`); tokens never open it",
  ),
  CONSOLE_CSRF_INVALID: c(403, "A console change lacks the page's CSRF token"),
  CONSOLE_LINK_INVALID: c(403, "The console link was used already, expired or is unknown"),
  CONSOLE_INPUT_INVALID: p(400, "A console form field is missing or malformed; see `field`"),
  AGENT_STOP_UNAVAILABLE: c(
    409,
    "This agent cannot be stopped from its console or `agent stop` (the demo's agent): stop it where it runs",
  ),
  PEER_OTHER_USER: c(
    403,
    "The connection comes from a program of another OS user; the agent answers only the user it runs as",
  ),

  // --- agent: local input -----------------------------------------------------------------
  LOCAL_INPUT_REQUIRED: p(
    502,
    "The operation needs a local file or folder (path or inline)",
    NOT_FILED,
  ),
  LOCAL_PATH_INVALID: p(502, "The local path is not absolute or contains invalid characters"),
  LOCAL_PATH_NOT_FOUND: p(502, "The local file or folder does not exist"),
  LOCAL_PATH_UNREADABLE: c(502, "The local file or folder cannot be read (permissions)"),
  LOCAL_NAME_UNDECODABLE: c(502, "A file or folder name is not valid Unicode (CP1251?); rename it"),
  INLINE_INPUT_INVALID: p(502, "_inlineFile/_inlineDir is malformed (name or base64 content)"),
  FILE_TOO_LARGE: p(502, "A local or inline file exceeds the size limit"),
  TOO_MANY_FILES: p(502, "The folder or inline directory holds more files than the limit"),
  FILE_PARSE_ERROR: p(
    502,
    "A declaration file is malformed; details list file, line and field",
    NOT_FILED,
  ),
  FILE_KIND_UNKNOWN: p(502, "A file is not a recognised NRA file format", NOT_FILED),
  FILE_KIND_MISMATCH: p(
    502,
    "A file is of another declaration than the operation files (e.g. a D6 for dec731, a VAT ledger for etz62); `details` name what was found and what was expected",
  ),
  FILE_ENCODING_UNSUPPORTED: p(502, "A file to file is not Windows-1251 (UTF-8, UTF-16, a BOM)"),
  FILE_EIK_MISMATCH: p(502, "The files belong to another EIK than the token's or each other's"),
  FILE_PERIOD_MISMATCH: p(502, "The files' tax period differs from the requested period"),
  FILE_AMBIGUOUS: p(502, "A batch found several files of one kind for one company and period"),

  // --- agent: pickers ---------------------------------------------------------------------
  PICKER_UNAVAILABLE: c(502, "No native dialog program is available on this machine"),
  PICKER_BUSY: p(502, "A file or folder dialog is already open"),
  PICKER_TIMEOUT: c(502, "The dialog was not answered within 600 s"),

  // --- agent: signing and senders' certificates -------------------------------------------
  PIN_INCORRECT: c(
    502,
    "The PIN was wrong; the batch stopped to protect the token from lock-out",
    NOT_FILED,
  ),
  PIN_LOCKED: c(502, "The token's PIN is locked", NOT_FILED),
  OTP_INCORRECT: c(
    502,
    "The cloud signature's one-time code was wrong; the batch stopped, nothing was filed",
    NOT_FILED,
  ),
  KEYSTORE_UNAVAILABLE: c(
    502,
    "The sender's key store (token, card, file) cannot be opened",
    NOT_FILED,
  ),
  PKCS11_MODULE_MISSING: c(502, "The PKCS#11 module (QES middleware) is not installed", NOT_FILED),
  PKCS11_MODULE_WRONG_ARCH: c(
    502,
    "The PKCS#11 module is built for another CPU architecture",
    NOT_FILED,
  ),
  CERTIFICATE_INVALID: c(
    502,
    "The sender's certificate is expired, not yet valid or unusable",
    NOT_FILED,
  ),
  SIGNING_FAILED: c(502, "The CMS/PKCS#7 signature could not be produced", NOT_FILED),
  REMOTE_SIGN_IN_REQUIRED: c(
    502,
    "The cloud signature service's sign-in expired or was revoked: sign in again (the console's Senders page or `senders add --csc`)",
    NOT_FILED,
  ),
  REMOTE_SIGNING_TIMEOUT: c(
    502,
    "The cloud signature service did not answer in time; nothing was sent to the portal",
    NOT_FILED,
  ),

  // --- agent: portal ----------------------------------------------------------------------
  PORTAL_UNREACHABLE: portal(502, "The authority's portal could not be reached", NOT_FILED),
  PORTAL_TIMEOUT: portal(502, "The authority's portal did not answer in time"),
  PORTAL_SERVER_ERROR: portal(502, "The authority's portal answered with a 5xx status"),
  PORTAL_REJECTED: portal(502, "The authority's portal refused the request", REFUSED),
  PORTAL_BAD_RESPONSE: portal(502, "The authority's portal answered with an unexpected body"),
  PORTAL_AUTH_FAILED: c(
    502,
    "The agent's portal API credentials (OAuth2 client) were refused",
    REFUSED,
  ),
  PORTAL_NOT_CONFIGURED: c(
    502,
    "Live mode needs the portal API settings in the agent's config",
    NOT_FILED,
  ),
  PORTAL_OPERATION_UNSUPPORTED: portal(
    502,
    "The authority's public API does not offer this operation",
    NOT_FILED,
  ),
  CERTIFICATE_NOT_RECOGNISED: c(
    502,
    "The authority did not recognise the certificate or its user",
    REFUSED,
  ),
  NO_POWER_OF_ATTORNEY: c(502, "The certificate holds no power of attorney for this EIK", REFUSED),
  DOCUMENT_SIGNATURE_MISMATCH: portal(
    502,
    "The authority found the signature does not match the file",
    REFUSED,
  ),
  AGENT_INTERNAL_ERROR: portal(502, "An unexpected failure inside the agent (a bug; see its log)"),
  FILING_OUTCOME_UNKNOWN: portal(
    502,
    "An earlier attempt with this idempotency key was sent but its answer is not known yet; see the journal",
  ),
  FILING_IN_PROGRESS: p(
    409,
    "A filing with this idempotency key (or a folder-wide filing with this batch id: `details.batchId`) is running; retry when it finishes, or read its progress at GET /api/v1/batches/{batchId}",
  ),
  BATCH_NOT_FOUND: p(
    404,
    "No folder-wide filing with this batch id is known to this caller (wrong id, another integrator or page origin, or its 10 minutes after the end passed)",
  ),
  FILING_RETRY_TOO_EARLY: portal(
    502,
    "The authority asked to wait before this declaration is filed again; retry after `details.retryAfter` seconds",
  ),
  FILING_UNRESOLVED: portal(
    502,
    "The same declaration (sender, EIK, kind, period, files) has an unknown outcome in the journal: check the NRA portal, then `journal resolve <details.filingId>`",
  ),
  JOURNAL_QUERY_INVALID: p(
    400,
    "A journal view's filter (eik, period, state), page cursor (before) or limit is malformed; `details.field` names it",
  ),
  NOT_SENT: c(
    502,
    "Journal only, never an answer: the agent stopped (closed, crashed, the computer shut down) after writing the filing down and before sending it, so the declaration never reached the NRA (state `not_filed`); file it again",
    { filingFailure: "not_filed", journalOnly: true },
  ),

  // --- agent: signed updates (`agent update`, docs/install.md § Updates) ---
  UPDATE_NOT_PUBLISHED: p(404, "The token service publishes no agent update (SVC_UPDATE_MANIFEST)"),
  UPDATE_CHECK_FAILED: portal(
    502,
    "The update manifest could not be fetched from the token service",
  ),
  UPDATE_SIGNATURE_INVALID: portal(
    502,
    "The update manifest is not signed by a key built into this agent; nothing was downloaded",
  ),
  UPDATE_MANIFEST_INVALID: portal(
    502,
    "The signed manifest is malformed, has no package for this system, or names a non-https URL",
  ),
  UPDATE_DOWNGRADE: portal(502, "The published version is older than this agent's; refused"),
  UPDATE_DOWNLOAD_FAILED: portal(502, "The package could not be downloaded (network, HTTP status)"),
  UPDATE_SIZE_MISMATCH: portal(502, "The download is shorter or longer than the manifest says"),
  UPDATE_HASH_MISMATCH: portal(502, "The download's SHA-256 differs from the signed manifest's"),
  UPDATE_DISK_FULL: c(502, "No space left in the data folder for the download or its unpacking"),
  UPDATE_PACKAGE_INVALID: portal(502, "The package does not unpack or run as the version expected"),
  UPDATE_INSTALL_NOT_WRITABLE: c(
    502,
    "The installed package's folder cannot be swapped (its parent folder is not writable)",
  ),
  UPDATE_ROLLBACK_UNAVAILABLE: c(
    502,
    "The running version's MSI cannot be found, so a failed update could not be undone; nothing changed",
  ),
  UPDATE_IN_PROGRESS: p(409, "Another update of this agent is running"),
  UPDATE_ROLLED_BACK: portal(
    502,
    "The new version did not answer /health within 30 s; the previous one was put back",
  ),
  UPDATE_FAILED: portal(502, "The swap failed and the previous version could not be restarted"),

  // --- token service ---------------------------------------------------------------------
  EIK_REQUIRED: p(400, "The typeId needs `eik` (or `eiks` for a folder-wide operation)"),
  UNKNOWN_TYPE_ID: p(400, "The typeId is not an operation of the agent"),
  API_KEY_INVALID: c(401, "The secret key is missing or unknown"),
  API_KEY_EXPIRED: c(401, "The secret key has expired"),
  API_KEY_REVOKED: c(401, "The secret key was revoked"),
  EIK_LIMIT_REACHED: c(
    402,
    "The company limit is used up (3 EIKs for all live keys of an integrator together without a contract)",
  ),
  EIK_NOT_ALLOWED: c(403, "An EIK is not on the key's allowed list; see `rejectedEiks`"),
  ADMIN_UNAUTHORIZED: c(401, "The admin API needs the admin credential"),
  CONFLICT: p(409, "The resource is not in a state that allows this change"),
  WEB_SESSION_REQUIRED: c(401, "The profile or desk page needs a signed-in session (cookie)"),
  WEB_CSRF_INVALID: c(403, "A profile or desk change lacks the session's CSRF token"),
  WEB_CROSS_SITE: c(403, "A cross-site request to the profile or desk (fetch metadata, Origin)"),
  WEB_FORBIDDEN: c(
    403,
    "The signed-in account may not open this page (e.g. an integrator on the desk)",
  ),
  WEB_INPUT_INVALID: p(400, "A profile or desk form field is missing or malformed; see `field`"),
  LIVE_TRIAL_OVER: c(
    402,
    "A live key without a contract: the integrator's 7 days (from its first live key) are over",
  ),
  WEB_ORIGIN_REQUIRED: c(
    403,
    "A profile or desk change without an `Origin` (or `Sec-Fetch-Site: same-origin`) of the service's public URL",
  ),
  SERVICE_INTERNAL_ERROR: portal(500, "An unexpected failure in the token service"),
  DATABASE_UNAVAILABLE: portal(
    503,
    "The token service's database cannot be reached; retry after `Retry-After` seconds (the service reconnects by itself)",
  ),
  SERVICE_NOT_READY: portal(
    503,
    "GET /ready: the database is unreachable, its migrations are not current, or the instance is shutting down (`details.reason`)",
  ),
} as const satisfies Record<string, ErrorSpec>;

/** A stable error code from the catalog. */
export type ErrorCode = keyof typeof ERROR_CATALOG;
