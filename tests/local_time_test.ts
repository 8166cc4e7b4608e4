import { equal } from "node:assert/strict";
import {
  bulgarianTime,
  localDate,
  localOffset,
  localTime,
  localWallClock,
} from "../src/local_time.ts";

// Summer time starts on 2026-03-29 at 03:00 local (01:00 UTC) and ends on 2026-10-25 at 04:00
// local (01:00 UTC): every format reads the same fields on both sides of each change.
Deno.test("local time: the formats agree across the changes to and from summer time", () => {
  const cases: [string, string][] = [
    ["2026-03-29T00:59:59Z", "2026-03-29 02:59:59 +02:00"],
    ["2026-03-29T01:00:00Z", "2026-03-29 04:00:00 +03:00"],
    ["2026-10-25T00:59:59Z", "2026-10-25 03:59:59 +03:00"],
    ["2026-10-25T01:00:00Z", "2026-10-25 03:00:00 +02:00"],
    ["2026-12-31T22:00:00Z", "2027-01-01 00:00:00 +02:00"],
  ];
  for (const [utc, local] of cases) {
    const ms = Date.parse(utc);
    equal(localTime(utc), local, utc);
    equal(localTime(ms), local, utc);
    equal(localDate(ms), local.slice(0, 10), utc);
    equal(localOffset(new Date(ms)), local.slice(20), utc);
    const [y, m, d] = local.slice(0, 10).split("-");
    equal(bulgarianTime(ms), `${d}.${m}.${y} ${local.slice(11, 19)}`, utc);
    equal(localWallClock(utc)?.toISOString(), `${local.slice(0, 10)}T${local.slice(11, 19)}.000Z`);
    // A local time read back with its offset is the same instant.
    equal(Date.parse(`${local.slice(0, 10)}T${local.slice(11, 19)}${local.slice(20)}`), ms);
  }
});

Deno.test("local time: null and invalid times are empty, never 'Invalid Date'", () => {
  equal(localTime(null), "");
  equal(localTime(Number.NaN), "");
  equal(localDate("2026-02-30T25:00:00Z"), "");
  equal(localOffset("nonsense"), "");
  equal(bulgarianTime(new Date("nonsense")), "");
  equal(localWallClock(null), null);
});
