/**
 * Times as the accountant reads them: Bulgaria's local time (the IANA zone `Europe/Sofia`,
 * UTC+2 in winter, UTC+3 in summer). The one module that turns an instant into Sofia time:
 * every page, export, notice, receipt and NRA date of both programs uses these formats
 * (docs/architecture.md § One of each):
 *
 * | function               | shape                           | used by                          |
 * | ---------------------- | ------------------------------- | -------------------------------- |
 * | {@link localTime}      | `2026-11-28 01:42:05 +02:00`    | pages, exports (unambiguous)     |
 * | {@link localDate}      | `2026-11-28`                    | the NRA's plain entry dates      |
 * | {@link localOffset}    | `+02:00`                        | reading a Sofia wall-clock time  |
 * | {@link bulgarianTime}  | `28.11.2026 01:42:05`           | the test portal's receipts, mail |
 * | {@link localWallClock} | a `Date` holding the wall clock | spreadsheet cells (src/xlsx.ts)  |
 *
 * The journal and the stores keep UTC (ISO 8601, docs/journal.md); only what people read is
 * local.
 * @module
 */

/** The zone every page and export of the agent shows times in. */
export const LOCAL_ZONE = "Europe/Sofia";

const PARTS = new Intl.DateTimeFormat("en-GB", {
  timeZone: LOCAL_ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
  timeZoneName: "longOffset",
});

/** An instant: an ISO 8601 string (as the journal writes it), epoch milliseconds or a `Date`. */
export type Instant = string | number | Date;

/** An instant's Sofia wall-clock fields, zero-padded (`month` "01"–"12"), and its offset. */
interface LocalParts {
  readonly year: string;
  readonly month: string;
  readonly day: string;
  readonly hour: string;
  readonly minute: string;
  readonly second: string;
  /** `+02:00` or `+03:00`. */
  readonly offset: string;
}

function localParts(at: Instant | null): LocalParts | null {
  if (at === null) return null;
  const d = at instanceof Date ? at : new Date(at);
  if (Number.isNaN(d.getTime())) return null;
  const p: Record<string, string> = {};
  for (const { type, value } of PARTS.formatToParts(d)) p[type] = value;
  const zone = p.timeZoneName ?? "GMT";
  // "GMT+02:00"; the zone's offset is never zero, but "GMT" alone would mean +00:00.
  const offset = zone === "GMT" ? "+00:00" : zone.slice(3);
  const f = (k: string) => p[k] ?? "";
  return {
    year: f("year"),
    month: f("month"),
    day: f("day"),
    hour: f("hour"),
    minute: f("minute"),
    second: f("second"),
    offset,
  };
}

/** Which parts of a time to show. */
export interface TimeParts {
  /** Show the seconds (default true). */
  readonly seconds?: boolean;
  /** Show the offset, ` +02:00` (default true; {@link localTime} only). */
  readonly offset?: boolean;
}

const clock = (p: LocalParts, seconds: boolean) =>
  `${p.hour}:${p.minute}${seconds ? `:${p.second}` : ""}`;

/**
 * A time in Bulgaria's local time with its offset, so that a time printed on a page or in an
 * export is unambiguous when read elsewhere.
 * @param at the instant, or null
 * @param show `seconds` and `offset` (both shown by default)
 * @returns `YYYY-MM-DD HH:MM[:SS][ ±HH:MM]`, or `""` for null or an invalid time
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(localTime("2026-11-27T23:42:05.000Z"), "2026-11-28 01:42:05 +02:00");
 * equal(localTime("2026-07-01T09:00:00Z", { seconds: false }), "2026-07-01 12:00 +03:00");
 * equal(localTime(Date.UTC(2027, 0, 1, 21, 30), { seconds: false, offset: false }), "2027-01-01 23:30");
 * equal(localTime("nonsense"), "");
 * ```
 */
export function localTime(at: Instant | null, show: TimeParts = {}): string {
  const p = localParts(at);
  if (!p) return "";
  const time = `${p.year}-${p.month}-${p.day} ${clock(p, show.seconds ?? true)}`;
  return show.offset === false ? time : `${time} ${p.offset}`;
}

/**
 * The calendar date of an instant in Bulgaria.
 * @param at the instant
 * @returns `YYYY-MM-DD`, or `""` for an invalid time
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(localDate(Date.UTC(2026, 2, 14, 22, 30)), "2026-03-15"); // 00:30 in Sofia
 * ```
 */
export function localDate(at: Instant): string {
  const p = localParts(at);
  return p ? `${p.year}-${p.month}-${p.day}` : "";
}

/**
 * Bulgaria's offset from UTC at an instant, as ISO 8601 writes it after a local time.
 * @param at the instant
 * @returns `+02:00` (winter) or `+03:00` (summer), or `""` for an invalid time
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(localOffset("2026-01-15T00:00:00Z"), "+02:00");
 * equal(localOffset("2026-07-15T00:00:00Z"), "+03:00");
 * ```
 */
export function localOffset(at: Instant): string {
  return localParts(at)?.offset ?? "";
}

/**
 * A time in Bulgaria's local time the way Bulgarian documents write it (day first, dots, no
 * offset): the test portal's receipts, the token service's Bulgarian e-mails.
 * @param at the instant
 * @param show `seconds` (shown by default; `offset` does not apply)
 * @returns `DD.MM.YYYY HH:MM[:SS]`, or `""` for an invalid time
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(bulgarianTime(new Date("2026-11-27T23:42:05Z")), "28.11.2026 01:42:05");
 * equal(bulgarianTime(Date.UTC(2027, 0, 30, 8), { seconds: false }), "30.01.2027 10:00");
 * ```
 */
export function bulgarianTime(at: Instant, show: TimeParts = {}): string {
  const p = localParts(at);
  return p ? `${p.day}.${p.month}.${p.year} ${clock(p, show.seconds ?? true)}` : "";
}

/**
 * A time as a spreadsheet date: Bulgaria's local wall-clock time carried in a `Date`'s UTC fields
 * (an Excel date has no zone: a cell shows the fields as they are), for exports that write real
 * dates (src/xlsx.ts). The offset is lost; the column's heading says "local time".
 * @param at the instant, or null
 * @returns the wall-clock `Date`, or null for null or an invalid time
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(localWallClock("2026-07-01T09:00:00Z")?.toISOString(), "2026-07-01T12:00:00.000Z");
 * equal(localWallClock("nonsense"), null);
 * ```
 */
export function localWallClock(at: Instant | null): Date | null {
  const p = localParts(at);
  if (!p) return null;
  const [y, mo, d, h, mi, s] = [p.year, p.month, p.day, p.hour, p.minute, p.second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s));
}
