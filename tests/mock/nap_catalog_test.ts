import assert from "node:assert/strict";
import { NapCatalogResult } from "../../src/contract/reports.ts";
import { NAP_CATALOG, napCatalog } from "../../src/mock/mod.ts";

Deno.test("napCatalog() returns the whole catalog of 40 links in 6 categories", () => {
  const r = napCatalog({});
  NapCatalogResult.parse(r);
  assert.equal(r.totalLinks, 40);
  assert.equal(r.matchedLinks, 40);
  assert.equal(r.categories, 6);
  assert.deepEqual(napCatalog({ filter: "" }), r);
  assert.deepEqual(napCatalog({ filter: "   " }), r);
  for (const e of r.items) {
    assert.ok(e.url?.startsWith("https://portal.nra.bg/"), `${e.url}`);
    assert.ok(e.linkType === "NATIVE" || e.linkType === "LEGACY");
    assert.equal(e.linkType === "LEGACY", e.url!.includes("/pls/"));
  }
  assert.equal(new Set(NAP_CATALOG.map((e) => e.url)).size, 40);
});

Deno.test("napCatalog() filters case-insensitively on name, category and URL", () => {
  const vat = napCatalog({ filter: "ддс" });
  assert.ok(vat.matchedLinks > 0);
  assert.deepEqual(napCatalog({ filter: "ДДС" }), vat);
  assert.ok(vat.items.every((e) => /ддс/i.test(e.name + e.category + e.url)));
  const byCategory = napCatalog({ filter: "Задължения и плащания" });
  assert.ok(byCategory.matchedLinks >= 6);
  const byUrl = napCatalog({ filter: "/PLS/PUB/" });
  assert.ok(byUrl.matchedLinks > 0 && byUrl.items.every((e) => e.linkType === "LEGACY"));
  const none = napCatalog({ filter: "няма-такава-услуга" });
  assert.deepEqual([none.items, none.totalLinks, none.matchedLinks, none.categories], [
    [],
    40,
    0,
    0,
  ]);
});

Deno.test("napCatalog() counts the distinct categories of the matched links", () => {
  for (const filter of ["декларация", "справка", "удостоверение", "d1"]) {
    const r = napCatalog({ filter });
    assert.equal(r.categories, new Set(r.items.map((e) => e.category)).size);
    assert.equal(r.matchedLinks, r.items.length);
    assert.equal(r.totalLinks, 40);
  }
});
