/**
 * The `nap_catalog` generator: a fixed catalog of 40 NRA e-service links in 6 categories, the
 * same for every caller, with a case-insensitive substring filter on the name, the category
 * (the spec's "title") and the URL. NATIVE links are the portal's own (REST) services, LEGACY
 * links the older PL/SQL ("pls") pages. The names are Bulgarian, the URLs fictitious paths on
 * https://portal.nra.bg. Implements docs/test-portal.md § nap_catalog (NapCatalogResult) and
 * README.md § Operations (NapCatalogRequest: "substring of name, title or URL; empty means all").
 * @module
 */
import type { ReportItemOf, ReportResultOf } from "../contract/mod.ts";
import catalogData from "./nap_catalog.json" with { type: "json" };

/** One link of the catalogue. */
type NapCatalogEntry = ReportItemOf<"napCatalog">;

const BASE = "https://portal.nra.bg";

/**
 * The catalog's data (nap_catalog.json): per category, its links as
 * `[name, path on the portal, serviceId, systemId]`.
 */
type Row = readonly [name: string, path: string, serviceId: string | null, systemId: string | null];
const CATEGORIES: ReadonlyArray<{ readonly category: string; readonly links: readonly Row[] }> =
  // Our own data file, 4-tuples by construction; tests/mock/nap_catalog_test.ts parses every entry
  // with the result schema.
  catalogData as unknown as { category: string; links: Row[] }[];

/** The whole catalog, in display order (40 entries, 6 categories). */
export const NAP_CATALOG: readonly NapCatalogEntry[] = CATEGORIES.flatMap(({ category, links }) =>
  links.map(([name, path, serviceId, systemId]): NapCatalogEntry => ({
    name,
    category,
    linkType: path.startsWith("/pls/") ? "LEGACY" : "NATIVE",
    serviceId,
    systemId,
    url: BASE + path,
  }))
);

/**
 * True when an entry matches a filter: a case-insensitive substring of its name, category or
 * URL (after trimming the filter); an empty filter matches everything.
 * @param entry the catalog entry
 * @param filter the filter text
 * @returns whether it matches
 * @throws nothing
 */
export function catalogEntryMatches(entry: NapCatalogEntry, filter: string): boolean {
  const f = filter.trim().toLocaleLowerCase("bg");
  if (f === "") return true;
  return [entry.name, entry.category, entry.url ?? ""].some((s) =>
    s.toLocaleLowerCase("bg").includes(f)
  );
}

/**
 * The portal service catalog, filtered.
 *
 * Implements docs/test-portal.md § nap_catalog (NapCatalogResult): totalLinks counts the whole
 * catalog, matchedLinks the entries after the filter, categories the distinct categories among them.
 * @param req `filter` (optional; empty = all)
 * @returns status ok with the matching entries in catalog order
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(napCatalog({ filter: "ддс" }).matchedLinks > 0, true);
 * ```
 */
export function napCatalog(
  req: { readonly filter?: string | undefined },
): ReportResultOf<"napCatalog"> {
  const items = NAP_CATALOG.filter((e) => catalogEntryMatches(e, req.filter ?? ""));
  return {
    status: "ok",
    items,
    totalLinks: NAP_CATALOG.length,
    matchedLinks: items.length,
    categories: new Set(items.map((e) => e.category)).size,
    error: null,
  };
}
