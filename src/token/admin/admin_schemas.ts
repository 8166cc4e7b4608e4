/**
 * Input schemas of the admin API and CLI and of `POST /api/v1/applications` (docs/token-service.md
 * § Access phases), and the one way to validate an input: the first problem becomes
 * `VALIDATION_FAILED` naming the field (400 on the token service). Below them, the schemas of
 * the admin API's answers, from which its OpenAPI document is generated (admin_openapi.ts checks
 * at compile time that they match the views the routes return).
 * @module
 */
import { z } from "zod";
import { AppError, ApplicationView, Eik, KEY_MODES } from "../../contract/mod.ts";
import { MAX_ORIGINS_PER_INTEGRATOR, RegisteredOrigin } from "../access/mod.ts";

const email = z.string().max(254).regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "must be an e-mail address");
const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO 8601 date");

/** `POST /admin/v1/integrators`. */
export const IntegratorCreate = z.object({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{1,62}$/, "must be 2-63 of A-Z, a-z, 0-9, _ and -")
    .optional(),
  name: z.string().min(1).max(200),
  email: email.nullable().default(null),
  locale: z.enum(["bg", "en"]).default("bg"),
  allowedOrigins: z.array(RegisteredOrigin).max(MAX_ORIGINS_PER_INTEGRATOR).default([]),
}).meta({ id: "IntegratorCreate" });

/** `PATCH /admin/v1/integrators/:id`. */
export const IntegratorUpdate = z.object({
  name: z.string().min(1).max(200).optional(),
  email: email.nullable().optional(),
  locale: z.enum(["bg", "en"]).optional(),
  allowedOrigins: z.array(RegisteredOrigin).max(MAX_ORIGINS_PER_INTEGRATOR).optional(),
}).meta({ id: "IntegratorUpdate" });

/** `POST /admin/v1/keys`. */
export const KeyCreate = z.object({
  integratorId: z.string().min(1).max(64),
  mode: z.enum(KEY_MODES),
  label: z.string().max(200).nullable().default(null),
  allowedEiks: z.array(Eik).min(1).max(10_000).nullable().default(null),
}).meta({ id: "KeyCreate" });

/** `POST /admin/v1/keys/:id/rotate`. */
export const KeyRotate = z.object({
  /** How long the old secret keeps working, seconds (0 to 30 days). */
  graceSeconds: z.number().int().min(0).max(30 * 24 * 3600).default(0),
}).meta({ id: "KeyRotate" });

/** `PUT /admin/v1/keys/:id/allowed-origins` (null = the integrator's origins). */
export const AllowedOrigins = z.object({
  allowedOrigins: z.array(RegisteredOrigin).min(1).max(MAX_ORIGINS_PER_INTEGRATOR).nullable(),
}).meta({ id: "KeyAllowedOrigins" });

/** `PUT /admin/v1/keys/:id/allowed-eiks` (null = any EIK). */
export const AllowedEiks = z.object({
  allowedEiks: z.array(Eik).min(1).max(10_000).nullable(),
}).meta({ id: "KeyAllowedEiks" });

/** `POST /api/v1/applications` (integrator-facing; a wire schema of the contract). */
export { ApplicationSubmit } from "../../contract/mod.ts";

/** `POST /admin/v1/applications/:id/approve`. */
export const ApplicationApprove = z.object({
  /** Contract end (exclusive); default one year after the approval; null = open-ended. */
  endsAt: isoDate.nullable().optional(),
  note: z.string().max(2000).nullable().default(null),
}).meta({ id: "ApplicationApprove" });

/**
 * An approval's terms as the contract operation takes them (the admin API and `admin
 * applications approve`): `endsAt` in epoch ms (absent: one year after the approval; null:
 * open-ended) and the note.
 * @param input the validated {@link ApplicationApprove}
 * @returns `{ endsAt, note }`
 */
export function approvalTerms(
  input: z.output<typeof ApplicationApprove>,
): { endsAt: number | null | undefined; note: string | null } {
  const endsAt = input.endsAt === undefined
    ? undefined
    : input.endsAt === null
    ? null
    : Date.parse(input.endsAt);
  return { endsAt, note: input.note };
}

/** `POST /admin/v1/applications/:id/reject` and `/contracts/:id/terminate`. */
export const Note = z.object({
  note: z.string().max(2000).nullable().default(null),
  reason: z.string().max(2000).nullable().default(null),
}).meta({ id: "DecisionNote" });

/**
 * Validate an input.
 * @param schema the zod schema
 * @param raw the parsed JSON body (or CLI options)
 * @returns the typed value
 * @throws AppError VALIDATION_FAILED with `details.field`
 */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const r = schema.safeParse(raw ?? {});
  if (r.success) return r.data;
  // non-null: a failed zod parse has at least one issue
  const i = r.error.issues[0]!;
  const field = i.path.map(String).join(".") || "body";
  throw new AppError("VALIDATION_FAILED", `Field "${field}" ${i.message}`, { field });
}

// ── The admin API's answers (its OpenAPI document; docs/token-service.md § Admin API) ──
// A schema whose type the routes already declare as an interface is named …Schema; its
// component keeps the interface's name.

const dateTime = z.string().meta({ format: "date-time" });
const epochMs = z.number().int().meta({ description: "Epoch milliseconds" });

/** An integrator as administrators see it. */
export const IntegratorViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  locale: z.enum(["bg", "en"]).meta({ description: "Language of the e-mail notices" }),
  allowedOrigins: z.array(z.string()).meta({
    description: "The page origins tokens of its keys may be bound to",
  }),
  createdAt: dateTime,
}).meta({ id: "IntegratorView" });

/** A key as administrators see it: never the secret or its hash. */
export const KeyViewSchema = z.object({
  id: z.string(),
  integratorId: z.string(),
  mode: z.enum(KEY_MODES),
  label: z.string().nullable(),
  status: z.enum(["active", "expired", "revoked", "revoking"]).meta({
    description: "`revoking`: rotated, the old secret still works until `expiresAt`",
  }),
  phase: z.enum(["testing", "pre_contract", "contract"]),
  createdAt: dateTime,
  expiresAt: dateTime.nullable().meta({ description: "Effective expiry now; null = none" }),
  revokedAt: dateTime.nullable(),
  allowedEiks: z.array(z.string()).nullable().meta({ description: "null = any EIK" }),
  allowedOrigins: z.array(z.string()).nullable().meta({
    description: "The key's own page origins; null = the integrator's",
  }),
  eiksUsed: z.array(z.string()).meta({
    description: "Distinct EIKs counted against `eikLimit` (empty without a limit)",
  }),
  eikLimit: z.number().int().nullable().meta({ description: "null = no limit" }),
  rotatedFrom: z.string().nullable().meta({ description: "The key this one replaced" }),
}).meta({ id: "KeyView" });

/** A contract as administrators see it. */
export const ContractViewSchema = z.object({
  id: z.string(),
  integratorId: z.string(),
  applicationId: z.string().nullable(),
  company: z.string(),
  contactEmail: z.string(),
  status: z.enum(["active", "expired", "terminated", "superseded"]).meta({
    description: "`active` only while in force; an end date that passed shows `expired`",
  }),
  startsAt: dateTime,
  endsAt: dateTime.nullable().meta({ description: "Planned end (exclusive); null = open-ended" }),
  terminatedAt: dateTime.nullable(),
  terminationReason: z.string().nullable(),
}).meta({ id: "ContractView" });

/** `GET /admin/v1/integrators`. */
export const IntegratorList = z.object({ items: z.array(IntegratorViewSchema) }).meta({
  id: "IntegratorList",
});

/** `GET /admin/v1/integrators/:id`: the integrator with its keys, contracts and applications. */
export const IntegratorDetail = z.object({
  integrator: IntegratorViewSchema,
  keys: z.array(KeyViewSchema),
  contracts: z.array(ContractViewSchema),
  applications: z.array(ApplicationView),
}).meta({ id: "IntegratorDetail" });

/** `GET /admin/v1/keys`. */
export const KeyList = z.object({ items: z.array(KeyViewSchema) }).meta({ id: "KeyList" });

/** `POST /admin/v1/keys`: the secret, shown once. */
export const KeyCreated = z.object({
  secret: z.string().meta({ description: "The secret key, shown once (svc_test_… / svc_live_…)" }),
  key: KeyViewSchema,
}).meta({ id: "KeyCreated" });

/** `POST /admin/v1/keys/:id/rotate`: the new secret (shown once), the new and the old key. */
export const KeyRotated = z.object({
  secret: z.string().meta({ description: "The new secret key, shown once" }),
  key: KeyViewSchema,
  previous: KeyViewSchema,
}).meta({ id: "KeyRotated" });

/** `POST /admin/v1/applications/:id/approve`. */
export const ApplicationApproved = z.object({
  contract: ContractViewSchema,
  supersededId: z.string().nullable().meta({
    description: "The contract in force this one replaced, if any",
  }),
  liftedKeys: z.number().int().meta({
    description: "Live keys that lost their expiry and EIK limit",
  }),
}).meta({ id: "ApplicationApproved" });

/** `GET /admin/v1/contracts`. */
export const ContractList = z.object({ items: z.array(ContractViewSchema) }).meta({
  id: "ContractList",
});

/** `POST /admin/v1/contracts/:id/terminate`. */
export const ContractTerminated = z.object({
  contract: ContractViewSchema,
  fallenBackKeys: z.number().int().meta({
    description: "Live keys back on the pre-contract rules (7 days, 3 EIKs)",
  }),
}).meta({ id: "ContractTerminated" });

/** `GET /admin/v1/contracts/:id/statement` (JSON): the tokens of one UTC month. */
export const StatementSchema = z.object({
  contractId: z.string(),
  integratorId: z.string(),
  company: z.string(),
  month: z.string().meta({ description: "YYYY-MM (UTC)" }),
  period: z.object({ from: dateTime, to: dateTime }).nullable().meta({
    description: "The part of the month the contract was in force; null = none",
  }),
  lines: z.array(
    z.object({
      keyId: z.string(),
      typeId: z.string(),
      eik: z.string().meta({ description: '"" for operations without an EIK' }),
      tokens: z.number().int(),
    }).meta({ id: "StatementLine" }),
  ),
  totals: z.object({
    tokens: z.number().int(),
    distinctEiks: z.number().int(),
    keys: z.number().int(),
    byTypeId: z.record(z.string(), z.number().int()),
  }),
}).meta({ id: "Statement" });

/** A usage counter: tokens issued for one month, integrator, contract, key, typeId and EIK. */
export const UsageRowSchema = z.object({
  month: z.string().meta({ description: "YYYY-MM (UTC)" }),
  integratorId: z.string(),
  contractId: z.string().meta({ description: '"" for none (phase 1, test keys)' }),
  keyId: z.string(),
  mode: z.enum(KEY_MODES),
  typeId: z.string(),
  eik: z.string().meta({ description: '"" for operations without an EIK' }),
  count: z.number().int(),
}).meta({ id: "UsageRow" });

/** `GET /admin/v1/usage` (JSON). */
export const UsageList = z.object({
  items: z.array(UsageRowSchema),
  total: z.number().int(),
}).meta({ id: "UsageList" });

/** An e-mail notice and its delivery (times in epoch milliseconds, as stored). */
export const Notice = z.object({
  id: z.string(),
  kind: z.enum([
    "key_expiring",
    "contract_expiring",
    "contract_terminated",
    "application_received",
    "application_approved",
    "application_rejected",
  ]),
  subjectId: z.string().meta({ description: "The key's or the contract's id" }),
  dueAt: epochMs,
  integratorId: z.string(),
  recipient: z.string().nullable().meta({ description: "null: stored as `skipped`" }),
  locale: z.enum(["bg", "en"]),
  params: z.record(z.string(), z.union([z.string(), z.number()]).nullable()).meta({
    description: "Template parameters (dates as epoch milliseconds)",
  }),
  createdAt: epochMs,
  status: z.enum(["pending", "sending", "sent", "failed", "cancelled", "skipped"]),
  attempts: z.number().int(),
  nextAttemptAt: epochMs,
  claimedBy: z.string().nullable().meta({ description: "The instance sending it" }),
  leaseUntil: epochMs.nullable(),
  sentAt: epochMs.nullable(),
  lastError: z.string().nullable(),
}).meta({ id: "Notice" });

/** `GET /admin/v1/notices`. */
export const NoticeList = z.object({ items: z.array(Notice) }).meta({ id: "NoticeList" });

/** A signing key, how it is stored (never key material). */
export const SigningKeyViewSchema = z.object({
  kid: z.string(),
  createdAt: dateTime,
  retiredAt: dateTime.nullable().meta({ description: "null for the current key" }),
  atRest: z.enum(["plaintext", "encrypted", "previous-secret", "other-secret"]).meta({
    description:
      "`encrypted` with the current secret, with a `previous-secret`, or with none of the configured secrets (`other-secret`: it cannot be read here)",
  }),
  secretFingerprint: z.string().nullable().meta({
    description: "The fingerprint of the secret it is encrypted with; null in plain text",
  }),
}).meta({ id: "SigningKeyView" });

/** `GET|POST /admin/v1/signing-keys…`. */
export const SigningKeys = z.object({
  items: z.array(SigningKeyViewSchema).meta({ description: "Oldest first" }),
  secretFingerprint: z.string().nullable().meta({
    description: "The configured secret's fingerprint; null = keys are kept in plain text",
  }),
}).meta({ id: "SigningKeys" });
