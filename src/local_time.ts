/**
 * Times as the accountant reads them: Bulgaria's local time (the IANA zone `Europe/Sofia`,
 * UTC+2 in winter, UTC+3 in summer) with its offset written out, so a time printed on a
 * receipt or in an export is unambiguous when read elsewhere: `2026-11-28 01:42:05 +02:00`.
 * The journal itself keeps UTC (ISO 8601, docs/journal.md); only what people read is local.
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

/**
 * A time in Bulgaria's local time with its offset.
 * @param at an ISO 8601 string (as the journal writes it), a `Date`, or null
 * @param seconds whether to show the seconds (default true)
 * @returns `YYYY-MM-DD HH:MM[:SS] ±HH:MM`, or `""` for null or an invalid time
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(localTime("2026-11-27T23:42:05.000Z"), "2026-11-28 01:42:05 +02:00");
 * deepStrictEqual(localTime("2026-07-01T09:00:00Z", false), "2026-07-01 12:00 +03:00");
 * ```
 */
export function localTime(at: string | Date | null, seconds = true): string {
  if (at === null) return "";
  const d = at instanceof Date ? at : new Date(at);
  if (Number.isNaN(d.getTime())) return "";
  const p: Record<string, string> = {};
  for (const { type, value } of PARTS.formatToParts(d)) p[type] = value;
  // "GMT+02:00"; the zone's offset is never zero, but "GMT" alone would mean +00:00.
  // non-null: PARTS formats with timeZoneName, so formatToParts answers that part
  const offset = p.timeZoneName === "GMT" ? "+00:00" : p.timeZoneName!.slice(3);
  const time = `${p.hour}:${p.minute}${seconds ? `:${p.second}` : ""}`;
  return `${p.year}-${p.month}-${p.day} ${time} ${offset}`;
}

/**
 * A time as a spreadsheet date: Bulgaria's local wall-clock time carried in a `Date`'s UTC fields
 * (an Excel date has no zone: a cell shows the fields as they are), for exports that write real
 * dates (src/xlsx.ts). The offset is lost; the column's heading says "local time".
 * @param at an ISO 8601 string, a `Date`, or null
 * @returns the wall-clock `Date`, or null for null or an invalid time
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(localWallClock("2026-07-01T09:00:00Z")?.toISOString(), "2026-07-01T12:00:00.000Z");
 * equal(localWallClock("nonsense"), null);
 * ```
 */
export function localWallClock(at: string | Date | null): Date | null {
  const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d) /.exec(localTime(at));
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s));
}
