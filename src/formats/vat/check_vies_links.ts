/**
 * Cross-checks between the VIES declaration and the VAT return of the same period, the ones
 * the NRA applies when it compares them (totals and counts). Cells and fields from
 * docs/nra-formats.md §1.2 (01-15 intra-EU supplies of goods, 01-17 services under art. 21(2)),
 * §1.4 (02-07 customer, 02-15, 02-17, 02-25 triangular) and §1.5 (VIR: counterparty, goods к3,
 * triangular к4, services к5, the line's own period):
 *
 * - `VIES_MISSING` — DEKLAR 01-15 or 01-17 (without DEKLAR: PRODAGBI 02-15, 02-17 or 02-25) is
 *   not zero, and no VIES declaration was read (VIES.TXT missing or malformed).
 * - `VIES_DEKLAR_MISMATCH` — DEKLAR 01-15 = Σ VIR goods and 01-17 = Σ VIR services, over the
 *   VIR lines of the period. A VIR line whose own period (VIR 60–66) differs from the VHR
 *   period corrects an earlier period and is left out of the comparison.
 * - `VIES_LEDGER_MISMATCH` — per customer VAT number: Σ PRODAGBI 02-15 / 02-25 / 02-17 = the
 *   customer's VIR goods / triangular / services; a customer with intra-EU supplies and no VIR
 *   line, and a VIR line for a customer without such supplies, are named.
 *
 * Amounts in whole cents; customer numbers compared without spaces, upper-cased.
 * @module
 */
import { bi } from "../../contract/mod.ts";
import type { DeklarRecord } from "./deklar.ts";
import type { ProdagbiRecord } from "./prodagbi.ts";
import type { ViesRecord, VirRecord } from "./vies.ts";
import { type Bilingual, cents, showCents, type WarningCollector } from "./warnings.ts";

/** The files compared; `vies: null` = no VIES declaration was read. */
export interface ViesLinkSet {
  readonly deklar: DeklarRecord | null;
  readonly prodagbi: readonly ProdagbiRecord[] | null;
  readonly vies: readonly ViesRecord[] | null;
}

/** File names for messages. */
export interface ViesLinkNames {
  readonly deklar: string;
  readonly prodagbi: string;
  readonly vies: string;
}

/** Bases of intra-EU supplies in cents, with the first line they come from. */
interface Bases {
  goods: number;
  triangular: number;
  services: number;
  line: number;
}

const idOf = (s: string) => s.replace(/\s+/g, "").toUpperCase();
const isZero = (b: Bases) => b.goods === 0 && b.triangular === 0 && b.services === 0;
const show = (b: Bases) =>
  `goods ${showCents(b.goods)}, triangular ${showCents(b.triangular)}, services ${
    showCents(b.services)
  }`;
const showBg = (b: Bases) =>
  `стоки ${showCents(b.goods)}, тристранни ${showCents(b.triangular)}, услуги ${
    showCents(b.services)
  }`;

/** The VIR lines of the declaration's own period, with their 1-based line in the file. */
function ownLines(vies: readonly ViesRecord[]): Array<{ r: VirRecord; line: number }> {
  const vhr = vies.find((r) => r.recordType === "VHR");
  const period = vhr?.recordType === "VHR" ? vhr.period : null;
  const out: Array<{ r: VirRecord; line: number }> = [];
  for (const [i, r] of vies.entries()) {
    if (r.recordType !== "VIR") continue;
    if (period !== null && r.period !== null && r.period !== period) continue;
    out.push({ r, line: i + 1 });
  }
  return out;
}

function add(map: Map<string, Bases>, id: string, line: number, b: Omit<Bases, "line">) {
  const s = map.get(id) ?? { goods: 0, triangular: 0, services: 0, line };
  s.goods += b.goods;
  s.triangular += b.triangular;
  s.services += b.services;
  map.set(id, s);
}

/** PRODAGBI's intra-EU supplies by customer (02-15 goods, 02-25 triangular, 02-17 services). */
function ledgerBases(prod: readonly ProdagbiRecord[]): Map<string, Bases> {
  const by = new Map<string, Bases>();
  for (const [i, r] of prod.entries()) {
    const b = {
      goods: cents(r.baseZeroIntraEuSupplies),
      triangular: cents(r.baseTriangular),
      services: cents(r.baseServicesArt21),
    };
    if (b.goods !== 0 || b.triangular !== 0 || b.services !== 0) {
      add(by, idOf(r.counterpartyId), i + 1, b);
    }
  }
  return by;
}

function missing(set: ViesLinkSet, names: ViesLinkNames, w: WarningCollector): void {
  const tail: Bilingual = bi(
    `но не е прочетена VIES-декларация (${names.vies} липсва или не може да бъде ` +
      "прочетен); за периода се подава VIES-декларация",
    `but no VIES declaration was read (${names.vies} is missing or could not be parsed); ` +
      "a VIES declaration is due for the period",
  );
  const d = set.deklar;
  if (d !== null) {
    const goods = showCents(cents(d.baseZeroIntraEuSupplies));
    const services = showCents(cents(d.baseServicesArt21));
    if (goods === "0.00" && services === "0.00") return;
    w.add(
      "VIES_MISSING",
      names.deklar,
      1,
      bi(
        `DEKLAR посочва вътреобщностни доставки (01-15 стоки ${goods}, 01-17 услуги ${services}), ${tail.bg}`,
        `DEKLAR declares intra-EU supplies (01-15 goods ${goods}, 01-17 services ${services}) ${tail.en}`,
      ),
    );
    return;
  }
  if (set.prodagbi === null) return;
  let total: Bases | null = null;
  for (const b of ledgerBases(set.prodagbi).values()) {
    total ??= { goods: 0, triangular: 0, services: 0, line: b.line };
    total.goods += b.goods;
    total.triangular += b.triangular;
    total.services += b.services;
    total.line = Math.min(total.line, b.line);
  }
  if (total === null) return;
  w.add(
    "VIES_MISSING",
    names.prodagbi,
    total.line,
    bi(
      `PRODAGBI съдържа вътреобщностни доставки (02-15/02-25/02-17: ${showBg(total)}), ${tail.bg}`,
      `PRODAGBI has intra-EU supplies (02-15/02-25/02-17: ${show(total)}) ${tail.en}`,
    ),
  );
}

function deklarVsVies(
  d: DeklarRecord,
  own: Array<{ r: VirRecord; line: number }>,
  names: ViesLinkNames,
  w: WarningCollector,
): void {
  const cells = [
    {
      code: "01-15",
      en: "intra-EU supplies of goods",
      bg: "ВОД на стоки",
      declared: cents(d.baseZeroIntraEuSupplies),
      vies: own.reduce((s, l) => s + cents(l.r.goodsBase), 0),
      part: bi("стоките", "goods"),
    },
    {
      code: "01-17",
      en: "services under art. 21(2)",
      bg: "услуги по чл. 21, ал. 2",
      declared: cents(d.baseServicesArt21),
      vies: own.reduce((s, l) => s + cents(l.r.servicesBase), 0),
      part: bi("услугите", "services"),
    },
  ];
  for (const c of cells) {
    if (c.declared === c.vies) continue;
    const head = bi(
      `DEKLAR ${c.code} (${c.bg}) е ${showCents(c.declared)}, а`,
      `DEKLAR ${c.code} (${c.en}) is ${showCents(c.declared)} but`,
    );
    w.add(
      "VIES_DEKLAR_MISMATCH",
      names.vies,
      undefined,
      own.length === 0
        ? bi(
          `${head.bg} ${names.vies} няма нито един ред VIR за периода`,
          `${head.en} ${names.vies} has no VIR line for the period`,
        )
        : bi(
          `${head.bg} сборът на основите за ${c.part.bg} в ${own.length} ${
            own.length === 1 ? "ред" : "реда"
          } VIR за периода в ${names.vies} е ${showCents(c.vies)}`,
          `${head.en} the ${c.part.en} bases of the ${own.length} VIR line${
            own.length === 1 ? "" : "s"
          } of the period in ${names.vies} add up to ${showCents(c.vies)}`,
        ),
    );
  }
}

function ledgerVsVies(
  prod: readonly ProdagbiRecord[],
  own: Array<{ r: VirRecord; line: number }>,
  names: ViesLinkNames,
  w: WarningCollector,
): void {
  const ledger = ledgerBases(prod);
  const vies = new Map<string, Bases>();
  for (const { r, line } of own) {
    add(vies, idOf(r.counterpartyVat), line, {
      goods: cents(r.goodsBase),
      triangular: cents(r.triangularBase),
      services: cents(r.servicesBase),
    });
  }
  for (const [id, l] of ledger) {
    const v = vies.get(id);
    if (v === undefined) {
      w.perLine(
        "VIES_LEDGER_MISMATCH",
        names.prodagbi,
        l.line,
        bi(
          `PRODAGBI ред ${l.line}: вътреобщностните доставки за ${id} (${
            showBg(l)
          }) нямат ред VIR в ${names.vies}`,
          `PRODAGBI line ${l.line}: intra-EU supplies to ${id} (${
            show(l)
          }) have no VIR line in ${names.vies}`,
        ),
      );
    } else if (v.goods !== l.goods || v.triangular !== l.triangular || v.services !== l.services) {
      w.perLine(
        "VIES_LEDGER_MISMATCH",
        names.vies,
        v.line,
        bi(
          `VIES ред ${v.line}: редът VIR за ${id} посочва ${
            showBg(v)
          }, а ${names.prodagbi} съдържа ${showBg(l)} (02-15, 02-25, 02-17)`,
          `VIES line ${v.line}: the VIR line for ${id} declares ${
            show(v)
          } but ${names.prodagbi} has ${show(l)} (02-15, 02-25, 02-17)`,
        ),
      );
    }
  }
  for (const [id, v] of vies) {
    if (ledger.has(id) || isZero(v)) continue;
    w.perLine(
      "VIES_LEDGER_MISMATCH",
      names.vies,
      v.line,
      bi(
        `VIES ред ${v.line}: за ${id} от реда VIR (${
          showBg(v)
        }) няма вътреобщностна доставка в ${names.prodagbi} (02-15, 02-25, 02-17)`,
        `VIES line ${v.line}: the VIR line for ${id} (${
          show(v)
        }) has no intra-EU supply to that customer in ${names.prodagbi} (02-15, 02-25, 02-17)`,
      ),
    );
  }
}

/**
 * Compare VIES.TXT with DEKLAR.TXT and PRODAGBI.TXT (see the module's rules).
 * @param set DEKLAR, PRODAGBI (either may be null) and VIES (null: none was read)
 * @param names file names for messages
 * @param w receives the warnings
 * @returns nothing
 * @throws nothing
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseDeklar, parseVies } from "./mod.ts";
 * import { WarningCollector } from "./warnings.ts";
 * const deklar = parseDeklar(await Deno.readFile("fixtures/formats/deklar/DEKLAR.TXT"));
 * // A VIES declaration with no VIR line, while DEKLAR declares intra-EU supplies:
 * const vies = parseVies(await Deno.readFile("fixtures/formats/vies/VIES_NO_VIR.TXT"));
 * const names = { deklar: "DEKLAR.TXT", prodagbi: "PRODAGBI.TXT", vies: "VIES.TXT" };
 * const collector = new WarningCollector();
 * checkViesLinks({ deklar, prodagbi: null, vies }, names, collector);
 * deepEqual(collector.result().map((w) => w.code), ["VIES_DEKLAR_MISMATCH", "VIES_DEKLAR_MISMATCH"]);
 * ```
 */
export function checkViesLinks(
  set: ViesLinkSet,
  names: ViesLinkNames,
  w: WarningCollector,
): void {
  if (set.vies === null) {
    missing(set, names, w);
    return;
  }
  const own = ownLines(set.vies);
  if (set.deklar !== null) deklarVsVies(set.deklar, own, names, w);
  if (set.prodagbi !== null) ledgerVsVies(set.prodagbi, own, names, w);
}
