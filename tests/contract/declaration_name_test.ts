/**
 * `declarationName`: every operation of the registry has its name as accountants say it, in
 * Bulgarian and in English — neither empty, nor the typeId, nor snake_case; an unknown typeId
 * falls back to itself.
 */
import { deepStrictEqual, equal, notEqual, ok } from "node:assert/strict";
import { declarationName, OPERATIONS, TYPE_IDS } from "../../src/contract/mod.ts";

Deno.test("declarationName: every registry entry has a Bulgarian and an English name", () => {
  equal(TYPE_IDS.length, OPERATIONS.length);
  for (const typeId of TYPE_IDS) {
    const { bg, en } = declarationName(typeId);
    for (const [lang, name] of [["bg", bg], ["en", en]] as const) {
      ok(name.trim().length > 0, `${typeId}: the ${lang} name is empty`);
      notEqual(name, typeId, `${typeId}: the ${lang} name is the typeId`);
      ok(!/[a-z0-9]+_[a-z0-9]/i.test(name), `${typeId}: the ${lang} name is snake_case: ${name}`);
      equal(name, name.trim(), `${typeId}: the ${lang} name has outer spaces`);
    }
    ok(/\p{Script=Cyrillic}/u.test(bg), `${typeId}: the bg name is not Bulgarian: ${bg}`);
    ok(!/\p{Script=Cyrillic}/u.test(en), `${typeId}: the en name is not English: ${en}`);
  }
});

Deno.test("declarationName: no two operations share a name", () => {
  for (const lang of ["bg", "en"] as const) {
    const names = TYPE_IDS.map((t) => declarationName(t)[lang]);
    deepStrictEqual(new Set(names).size, names.length, `duplicate ${lang} names: ${names}`);
  }
});

Deno.test("declarationName: the names accountants use", () => {
  deepStrictEqual(declarationName("vat"), { bg: "Справка-декларация по ЗДДС", en: "VAT return" });
  deepStrictEqual(declarationName("dec1_6"), {
    bg: "Декларации обр. 1 и 6",
    en: "Declarations form 1 and 6",
  });
  deepStrictEqual(declarationName("debt_payments"), {
    bg: "Задължения и плащания",
    en: "Debts and payments",
  });
  ok(declarationName("etz62").bg.includes("чл. 62 КТ"));
  ok(declarationName("odit").en.includes("SAF-T"));
  equal(declarationName("vat_result").bg, "Резултат от подаването: справка-декларация по ЗДДС");
});

Deno.test("declarationName: an unknown typeId falls back to itself", () => {
  deepStrictEqual(declarationName("no_such_op"), { bg: "no_such_op", en: "no_such_op" });
  deepStrictEqual(declarationName(""), { bg: "", en: "" });
});
