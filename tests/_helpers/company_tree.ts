/**
 * Builds folder trees of companies' NRA files for tests: the files are what the test portal
 * returns for `vat_portal_files` / `dec1_6_portal_files` (written by src/formats), encoded back
 * to CP1251, so every file is valid in the real formats.
 */
import { runReport } from "./report.ts";
import { join } from "node:path";
import { eikCheckDigit } from "../../src/formats/mod.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import { createTestPortal } from "../../src/portal/test/adapter.ts";

/** The shape of a portal-files result this file reads. */
type PortalFiles = { status: string; files: { name: string; content: string }[] };

const portal = createTestPortal({ now: () => new Date("2026-11-20T10:00:00Z") });

/** A valid 9-digit EIK (Bulstat check digit) from an 8-digit stem. */
export function validEik(stem: number): string {
  const s = String(stem).padStart(8, "0");
  return s + String(eikCheckDigit(s));
}

/** The VAT files of a company and period: name → bytes (CP1251). */
export async function vatFiles(
  eik: string,
  year: number,
  month: number,
): Promise<Map<string, Uint8Array> | null> {
  const r = await runReport(portal, "vat_portal_files", { eik, year, month }, {
    sender: null,
  }) as PortalFiles;
  if (r.status !== "ok") return null;
  return new Map(
    r.files.map((f: { name: string; content: string }) => [f.name, encodeCp1251(f.content)]),
  );
}

/** The D1/D6 files of a company and period. */
export async function payrollFiles(
  eik: string,
  year: number,
  month: number,
): Promise<Map<string, Uint8Array> | null> {
  const r = await runReport(portal, "dec1_6_portal_files", { eik, year, month }, {
    sender: null,
  }) as PortalFiles;
  if (r.status !== "ok") return null;
  return new Map(
    r.files.map((f: { name: string; content: string }) => [f.name, encodeCp1251(f.content)]),
  );
}

/**
 * Write a tree `<root>/<EIK>/<YYYY-MM>/<files>` for `count` companies that have both a VAT
 * return and D1/D6 for the period.
 * @returns the EIKs written
 */
export async function writeCompanyTree(
  root: string,
  count: number,
  year: number,
  month: number,
  stem = 20_000_000,
) {
  const eiks: string[] = [];
  for (let i = 0; eiks.length < count && i < count * 20; i++) {
    const eik = validEik(stem + i * 37);
    const vat = await vatFiles(eik, year, month);
    const pay = await payrollFiles(eik, year, month);
    if (!vat || !pay) continue;
    const dir = join(root, eik, `${year}-${String(month).padStart(2, "0")}`);
    await Deno.mkdir(join(dir, "vat"), { recursive: true });
    await Deno.mkdir(join(dir, "payroll"), { recursive: true });
    for (const [n, b] of vat) await Deno.writeFile(join(dir, "vat", n), b);
    for (const [n, b] of pay) await Deno.writeFile(join(dir, "payroll", n), b);
    eiks.push(eik);
  }
  return eiks;
}
