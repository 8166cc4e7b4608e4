/**
 * Input schemas of the admin API and CLI and of `POST /api/v1/applications` (interface-spec.md
 * § Access phases), and the one way to validate an input: the first problem becomes
 * `VALIDATION_FAILED` naming the field (400 on the token service).
 * @module
 */
import { z } from "zod";
import { AppError, Eik } from "../../contract/mod.ts";
import { HttpOrigin } from "../origins.ts";

const email = z.string().max(254).regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "must be an e-mail address");
const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO 8601 date");

/** `POST /admin/v1/integrators`. */
export const IntegratorCreate = z.object({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{1,62}$/, "must be 2-63 of A-Z, a-z, 0-9, _ and -")
    .optional(),
  name: z.string().min(1).max(200),
  email: email.nullable().default(null),
  locale: z.enum(["bg", "en"]).default("bg"),
  allowedOrigins: z.array(HttpOrigin).max(50).default([]),
});

/** `PATCH /admin/v1/integrators/:id`. */
export const IntegratorUpdate = z.object({
  name: z.string().min(1).max(200).optional(),
  email: email.nullable().optional(),
  locale: z.enum(["bg", "en"]).optional(),
  allowedOrigins: z.array(HttpOrigin).max(50).optional(),
});

/** `POST /admin/v1/keys`. */
export const KeyCreate = z.object({
  integratorId: z.string().min(1).max(64),
  mode: z.enum(["test", "live"]),
  label: z.string().max(200).nullable().default(null),
  allowedEiks: z.array(Eik).min(1).max(10_000).nullable().default(null),
});

/** `POST /admin/v1/keys/:id/rotate`. */
export const KeyRotate = z.object({
  /** How long the old secret keeps working, seconds (0 to 30 days). */
  graceSeconds: z.number().int().min(0).max(30 * 24 * 3600).default(0),
});

/** `PUT /admin/v1/keys/:id/allowed-origins` (null = the integrator's origins). */
export const AllowedOrigins = z.object({
  allowedOrigins: z.array(HttpOrigin).min(1).max(50).nullable(),
});

/** `PUT /admin/v1/keys/:id/allowed-eiks` (null = any EIK). */
export const AllowedEiks = z.object({
  allowedEiks: z.array(Eik).min(1).max(10_000).nullable(),
});

/** `POST /api/v1/applications` (integrator-facing; a wire schema of the contract). */
export { ApplicationSubmit } from "../../contract/mod.ts";

/** `POST /admin/v1/applications/:id/approve`. */
export const ApplicationApprove = z.object({
  /** Contract end (exclusive); default one year after the approval; null = open-ended. */
  endsAt: isoDate.nullable().optional(),
  note: z.string().max(2000).nullable().default(null),
});

/** `POST /admin/v1/applications/:id/reject` and `/contracts/:id/terminate`. */
export const Note = z.object({
  note: z.string().max(2000).nullable().default(null),
  reason: z.string().max(2000).nullable().default(null),
});

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
  const i = r.error.issues[0]!;
  const field = i.path.map(String).join(".") || "body";
  throw new AppError("VALIDATION_FAILED", `Field "${field}" ${i.message}`, { field });
}
