/**
 * When each of an integrator's keys last got a token (the keys page's "Last used" column,
 * docs/token-service.md § What an integrator sees): the newest issued request of the request log
 * (the last {@link REQUEST_LOG_DAYS} days, to the second), else the last day of the daily usage
 * (the last {@link USAGE_DAYS} days, to the day), else never.
 * @module
 */
import { REQUEST_LOG_DAYS, USAGE_DAYS } from "../request_log/mod.ts";
import type { ApiKeyRecord, TokenStore } from "../store/mod.ts";

const DAY_MS = 86_400_000;

/** A key's last use: an exact time, a UTC day, or none. */
export type LastUsed = { readonly at: number } | { readonly day: string } | null;

/**
 * The last use of each key.
 * @param store the store
 * @param integratorId the keys' integrator
 * @param keys its keys
 * @param now epoch ms
 * @returns key id → last use
 */
export async function lastUsedOf(
  store: TokenStore,
  integratorId: string,
  keys: readonly ApiKeyRecord[],
  now: number,
): Promise<Map<string, LastUsed>> {
  const fromDay = new Date(now - (USAGE_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  const [daily, ...newest] = await Promise.all([
    store.listDailyUsage(integratorId, fromDay),
    ...keys.map((k) =>
      store.listRequestLog({
        integratorId,
        since: now - REQUEST_LOG_DAYS * DAY_MS,
        keyId: k.id,
        status: "ok",
        limit: 1,
      })
    ),
  ]);
  const lastDay = new Map<string, string>();
  for (const d of daily) {
    if ((lastDay.get(d.keyId) ?? "") < d.day) lastDay.set(d.keyId, d.day);
  }
  return new Map(keys.map((k, i) => {
    // non-null: newest has one answer per key (asked for keys.map above)
    const e = newest[i]![0];
    const day = lastDay.get(k.id);
    return [k.id, e ? { at: e.at } : day ? { day } : null];
  }));
}
