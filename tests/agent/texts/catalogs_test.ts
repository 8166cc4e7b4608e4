/**
 * The pages' catalogs (src/agent/texts/): every key in both languages, no empty text, the same
 * `{placeholders}` in both, every plural category `Intl.PluralRules` uses for the language; and
 * the helpers draw the request's language, with the plural form of the count.
 */
import { deepEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  CATALOGS,
  count,
  currentLang,
  langOf,
  LANGS,
  pluralRules,
  w,
  withLang,
} from "../../../src/agent/texts/mod.ts";

const holes = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
const texts = (v: unknown): string[] =>
  typeof v === "string" ? [v] : Object.values(v as Record<string, string>);

Deno.test("catalogs: no key is missing in either language", () => {
  const [bg, en] = [Object.keys(CATALOGS.bg).sort(), Object.keys(CATALOGS.en).sort()];
  assertEquals(bg.filter((k) => !en.includes(k)), [], "in bg, not in en");
  assertEquals(en.filter((k) => !bg.includes(k)), [], "in en, not in bg");
  assert(bg.length > 100, `only ${bg.length} texts`);
});

Deno.test("catalogs: no empty text; the same placeholders; a plain text stays plain", () => {
  for (const [key, b] of Object.entries(CATALOGS.bg)) {
    const e = (CATALOGS.en as Record<string, unknown>)[key];
    assertEquals(typeof b, typeof e, key);
    for (const s of [...texts(b), ...texts(e)]) assert(s.trim() !== "", `${key} is empty`);
    const bh = texts(b).map(holes).flat().sort();
    const eh = texts(e).map(holes).flat().sort();
    assertEquals([...new Set(bh)], [...new Set(eh)], `${key}: placeholders differ`);
  }
});

Deno.test("catalogs: a count has every plural form its language uses, and {n}", () => {
  for (const lang of LANGS) {
    const needed = pluralRules(lang).resolvedOptions().pluralCategories;
    for (const [key, v] of Object.entries(CATALOGS[lang])) {
      if (typeof v === "string") continue;
      for (const cat of needed) {
        const form = (v as unknown as Record<string, string | undefined>)[cat];
        assert(form, `${lang} ${key}: no "${cat}" form`);
        assert(form?.includes("{n}"), `${lang} ${key}.${cat}: no {n}`);
      }
    }
  }
});

Deno.test("texts: the request's language, Bulgarian by default", async () => {
  assertEquals(currentLang(), "bg");
  assertEquals(w("nav.senders"), "Подписи");
  assertEquals(withLang("en", () => w("nav.senders")), "Senders");
  // Across awaits: the language stays with the request.
  const [a, b] = await Promise.all([
    withLang("en", async () => {
      await new Promise((r) => setTimeout(r, 5));
      return w("nav.log");
    }),
    withLang("bg", async () => {
      await new Promise((r) => setTimeout(r, 1));
      return w("nav.log");
    }),
  ]);
  assertEquals([a, b], ["Log", "Дневник"]);
  assertEquals([langOf("en"), langOf("de"), langOf(undefined)], ["en", "bg", "bg"]);
});

Deno.test("texts: counts take their plural form (1 ред, 2 реда; 1 line, 2 lines)", () => {
  assertEquals(
    [0, 1, 2, 21].map((n) => count("count.rows", n)),
    ["0 реда", "1 ред", "2 реда", "21 реда"],
  );
  assertEquals(count("count.records", 1), "1 запис");
  assertEquals(count("count.warnings", 1), "1 предупреждение");
  assertEquals(
    withLang("en", () => [1, 2].map((n) => count("count.rows", n))),
    ["1 line", "2 lines"],
  );
  assertEquals(w("status.newer", { version: "1.2.3" }), "има по-нова: 1.2.3");
});

Deno.test("catalogs: every key is used by a page (no stale text)", async () => {
  let source = "";
  for (const dir of ["src/agent/console", "src/agent/confirm", "src/agent/texts"]) {
    for await (const f of Deno.readDir(dir)) {
      if (
        f.name.endsWith(".ts") &&
        ![
          "bg.ts",
          "en.ts",
          "bg_confirm.ts",
          "en_confirm.ts",
          "bg_desk.ts",
          "en_desk.ts",
        ].includes(f.name)
      ) {
        source += await Deno.readTextFile(`${dir}/${f.name}`);
      }
    }
  }
  // `level.*` and `log.*` are looked up by the logged level and message.
  const unused = Object.keys(CATALOGS.bg).filter((k) =>
    !/^(level|log)\./.test(k) && !source.includes(`"${k}"`)
  );
  assertEquals(unused, []);
});
