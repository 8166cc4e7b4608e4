/** Shared records of the store tests (tests/token/store*_test.ts). */
import type { ContractRecord } from "../../../src/token/store/records.ts";

export const T0 = Date.UTC(2026, 10, 1, 8);
export const DAY = 24 * 3600 * 1000;

export const integrator = (id: string, email: string | null = `${id}@example.test`) => ({
  id,
  name: `Integrator ${id}`,
  email,
  locale: "en" as const,
  allowedOrigins: ["https://app.example.test"],
  createdAt: T0,
});

export const contract = (
  id: string,
  integratorId: string,
  startsAt: number,
  endsAt: number | null,
) =>
  ({
    id,
    integratorId,
    applicationId: null,
    company: "ACME Ltd",
    contactEmail: "billing@acme.test",
    status: "active",
    startsAt,
    endsAt,
    terminatedAt: null,
    terminationReason: null,
    createdAt: startsAt,
  }) satisfies ContractRecord;

export const application = (id: string, integratorId: string) => ({
  id,
  integratorId,
  company: "ACME Ltd",
  contactEmail: "billing@acme.test",
  intendedUse: "Payroll filings for our customers",
  status: "pending" as const,
  submittedAt: T0,
  decidedAt: null,
  decisionNote: null,
  contractId: null,
});
