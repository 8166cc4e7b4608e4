/**
 * The usage page's split by mode and key (docs/token-service.md § What an integrator sees): the
 * tokens of the chart's period, test and live apart, and per key (its label, id and mode), most
 * used first. Test tokens are free; live ones are what the statement bills.
 * @module
 */
import { html } from "hono/html";
import { type Markup, t, tableOr } from "../../web_page.ts";
import type { ApiKeyRecord, DailyUsageRow } from "../store/mod.ts";

/**
 * Tokens per mode and per key.
 * @param rows the integrator's daily usage of the period
 * @param keys the integrator's keys (a key no longer listed shows as its id, mode unknown)
 * @returns `{test, live, perKey}`, perKey most tokens first
 * @example
 * ```ts
 * import { usageOfKeys } from "./usage_by_key.ts";
 * const key = (id: string, mode: "test" | "live") => ({ id, mode }) as never;
 * const u = usageOfKeys([
 *   { day: "2026-11-01", integratorId: "i", keyId: "a", typeId: "vat", count: 2 },
 *   { day: "2026-11-02", integratorId: "i", keyId: "b", typeId: "vat", count: 5 },
 *   { day: "2026-11-02", integratorId: "i", keyId: "a", typeId: "d1", count: 1 },
 * ], [key("a", "test"), key("b", "live")]);
 * if (u.test !== 3 || u.live !== 5 || u.perKey[0]!.keyId !== "b") throw new Error("split");
 * ```
 */
export function usageOfKeys(
  rows: readonly DailyUsageRow[],
  keys: readonly Pick<ApiKeyRecord, "id" | "mode" | "label">[],
): { test: number; live: number; perKey: { keyId: string; tokens: number }[] } {
  const per = new Map<string, number>();
  for (const r of rows) per.set(r.keyId, (per.get(r.keyId) ?? 0) + r.count);
  const mode = new Map(keys.map((k) => [k.id, k.mode]));
  let test = 0, live = 0;
  for (const [id, n] of per) {
    if (mode.get(id) === "live") live += n;
    else if (mode.get(id) === "test") test += n;
  }
  const perKey = [...per].map(([keyId, tokens]) => ({ keyId, tokens }))
    .sort((a, b) => b.tokens - a.tokens || (a.keyId < b.keyId ? -1 : 1));
  return { test, live, perKey };
}

/**
 * The card: test and live totals, then the table per key.
 * @param rows the integrator's daily usage of the period
 * @param keys the integrator's keys
 * @returns the markup
 */
export function usageByKeyCard(
  rows: readonly DailyUsageRow[],
  keys: readonly ApiKeyRecord[],
): Markup {
  const u = usageOfKeys(rows, keys);
  const byId = new Map(keys.map((k) => [k.id, k]));
  return html`
    <div class="card" id="usage-by-key">
      <p>${t("Тестови", "Test")}: <strong id="usage-test">${u.test}</strong> · ${t(
        "Реални",
        "Live",
      )}: <strong id="usage-live">${u.live}</strong></p>
      ${tableOr(
        "usage-keys",
        [["Ключ", "Key"], ["Режим", "Mode"], ["Токени", "Tokens"]],
        u.perKey.map(({ keyId, tokens }) => {
          const k = byId.get(keyId);
          return html`
            <tr data-key="${keyId}" data-mode="${k?.mode ?? ""}">
              <td>${k?.label
                ? html`
                  ${k.label} ·
                `
                : ""}<span class="mono">${keyId}</span></td>
              <td>${k?.mode ?? "—"}</td>
              <td class="tokens">${tokens}</td>
            </tr>
          `;
        }),
        t("Още няма издадени токени.", "No tokens issued yet."),
      )}
    </div>
  `;
}
