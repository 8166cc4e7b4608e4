/**
 * Structured logs: one JSON object per line on stderr, with a request id where there is one.
 * Secrets never reach the sink: values of keys named like authorization, token, secret, pin,
 * password, apiKey, privateKey are replaced by "[redacted]", and `svc_test_…`/`svc_live_…`
 * keys and JWT-shaped strings inside any string are masked. Personal numbers never reach it
 * either (docs/console.md): a 10-digit value of a key named like eik, egn, bulstat or uic is an
 * EGN or LNCh of a natural person and is masked as `80******08` ({@link maskPersonalId}), and
 * so is a well-formed EGN (check digit and birth date) standing alone inside any text.
 * @module
 */

/** A log function. */
export type Logger = (
  level: "debug" | "info" | "warn" | "error",
  msg: string,
  fields?: Record<string, unknown>,
) => void;

const SECRET_KEY = /authorization|token|secret|pin|password|passphrase|api[-_]?key|private/i;
const SECRET_TEXT =
  /svc_(test|live)_[A-Za-z0-9_-]+|eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

/** Keys whose value may be a natural person's number (an EIK/Bulstat field holding an EGN). */
const PERSON_KEY = /eik|egn|bulstat|uic|lnch/i;
/** A run of exactly ten digits inside a text. */
const TEN_DIGITS = /(?<!\d)\d{10}(?!\d)/g;
const EGN_WEIGHTS = [2, 4, 8, 5, 10, 9, 7, 3, 6];

/**
 * Mask a personal number: a 10-digit EGN or LNCh keeps its first and last two digits
 * (`8001010008` → `80******08`); anything else (a 9- or 13-digit company EIK) is returned as is.
 * @param id an EIK, Bulstat, EGN or LNCh
 * @returns the masked id
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(maskPersonalId("8001010008"), "80******08");
 * deepStrictEqual(maskPersonalId("121212121"), "121212121");
 * ```
 */
export function maskPersonalId(id: string): string {
  return /^\d{10}$/.test(id) ? `${id.slice(0, 2)}******${id.slice(8)}` : id;
}

/** Whether ten digits form a well-formed EGN: a birth date (months +20 / +40 for the 1800s and
 * 2000s) and the check digit (weights 2,4,8,5,10,9,7,3,6; mod 11, 10 → 0). */
function looksLikeEgn(d: string): boolean {
  const month = Number(d.slice(2, 4)) % 20;
  const day = Number(d.slice(4, 6));
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(d.slice(2, 4)) > 52) return false;
  const sum = EGN_WEIGHTS.reduce((a, w, i) => a + w * Number(d[i]), 0) % 11;
  return (sum === 10 ? 0 : sum) === Number(d[9]);
}

function redactText(s: string): string {
  return s.replace(SECRET_TEXT, "[redacted]").replace(
    TEN_DIGITS,
    (d) => looksLikeEgn(d) ? maskPersonalId(d) : d,
  );
}

/** The value of a key that may hold a personal number: ten digits (string or number) masked. */
function redactPersonal(v: unknown, depth: number): unknown {
  if (typeof v === "number" && /^\d{10}$/.test(String(v))) return maskPersonalId(String(v));
  if (typeof v === "string") {
    return /^\s*\d{10}\s*$/.test(v) ? maskPersonalId(v.trim()) : redactText(v);
  }
  if (Array.isArray(v) && depth <= 6) return v.map((x) => redactPersonal(x, depth + 1));
  return redact(v, depth + 1);
}

/**
 * Deep-copy a value with secrets and personal numbers redacted.
 * @param v any JSON-like value
 * @returns the redacted copy
 * @throws nothing
 */
export function redact(v: unknown, depth = 0): unknown {
  if (typeof v === "string") return redactText(v);
  if (depth > 6 || v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map((x) => redact(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (SECRET_KEY.test(k)) out[k] = "[redacted]";
    else if (PERSON_KEY.test(k)) out[k] = redactPersonal(x, depth);
    else out[k] = redact(x, depth + 1);
  }
  return out;
}

/**
 * A JSON-lines logger.
 * @param sink where lines go (default stderr)
 * @param minLevel lowest level written
 * @returns the logger
 */
export function jsonLogger(
  sink: (line: string) => void = (l) => console.error(l),
  minLevel: "debug" | "info" | "warn" | "error" = "info",
): Logger {
  return (level, msg, fields) => {
    if (LEVEL_ORDER[level] < LEVEL_ORDER[minLevel]) return;
    sink(JSON.stringify(logEntry(level, msg, fields)));
  };
}

/** A log level. */
export type LogLevel = Parameters<Logger>[0];
const LEVEL_ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** One log line as written: time, level, message and the redacted fields. */
export type LogEntry = { t: string; level: LogLevel; msg: string } & Record<string, unknown>;

/**
 * The line a logger writes, secrets and personal numbers already redacted.
 * @param level the level
 * @param msg the message
 * @param fields extra fields
 * @returns `{ t, level, msg, ...fields }`
 */
export function logEntry(level: LogLevel, msg: string, fields?: Record<string, unknown>): LogEntry {
  return {
    t: new Date().toISOString(),
    level,
    msg: redact(msg) as string,
    ...(redact(fields ?? {}) as object),
  };
}

/**
 * The last lines a process logged (every level, redacted), for the agent console's log page.
 * Memory is bounded by `capacity` lines.
 */
export class LogRing {
  readonly #lines: LogEntry[] = [];
  /** @param capacity how many lines are kept (default 1,000) */
  constructor(readonly capacity = 1000) {}

  /** Keep a line (the oldest goes when full). */
  push(e: LogEntry): void {
    this.#lines.push(e);
    if (this.#lines.length > this.capacity) {
      this.#lines.splice(0, this.#lines.length - this.capacity);
    }
  }

  /**
   * The kept lines, oldest first.
   * @param q `minLevel` (default debug) and `requestId` (exact match) filters
   * @returns the matching lines
   */
  lines(q: { minLevel?: LogLevel; requestId?: string } = {}): LogEntry[] {
    const min = LEVEL_ORDER[q.minLevel ?? "debug"];
    return this.#lines.filter((l) =>
      LEVEL_ORDER[l.level] >= min && (!q.requestId || l.requestId === q.requestId)
    );
  }
}

/**
 * A logger that also keeps every line (all levels) in a {@link LogRing}.
 * @param log the logger to write through
 * @param ring where lines are kept
 * @returns the combined logger
 */
export function ringLogger(log: Logger, ring: LogRing): Logger {
  return (level, msg, fields) => {
    ring.push(logEntry(level, msg, fields));
    log(level, msg, fields);
  };
}

/** A logger that drops everything. */
export const silentLogger: Logger = () => {};
