/** A valid request body for every operation without local input (end-to-end suites). */

/** The EIK the sample bodies use. */
export const SAMPLE_EIK = "121212121";

/** typeId → a valid request body (result operations get theirs from a submission). */
export const SAMPLE_BODIES: Readonly<Record<string, Record<string, unknown>>> = {
  vat: { eik: SAMPLE_EIK, year: 2026, month: 9 },
  dec731: { eik: SAMPLE_EIK, year: 2025 },
  dec736: { eik: SAMPLE_EIK, year: 2025 },
  etz62: { eik: SAMPLE_EIK },
  etz123: { eik: SAMPLE_EIK },
  high_fisc_risk: { eik: SAMPLE_EIK, subtype: "EU_BG" },
  odit: { eik: SAMPLE_EIK, year: 2026, month: 9 },
  debt_payments: { eik: SAMPLE_EIK, year: 2025 },
  debt_payments_types: {},
  due_amounts: { eik: SAMPLE_EIK },
  taxpayers: {},
  nap_catalog: { filter: "" },
  vat_portal_files: { eik: SAMPLE_EIK, year: 2026, month: 9 },
  dec1_6_portal_files: { eik: SAMPLE_EIK, year: 2026, month: 9 },
  vat_monthly_files: { eik: SAMPLE_EIK, year: 2026, month: 9 },
};
