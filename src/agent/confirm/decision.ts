/**
 * The body of `POST /confirm/<id>/decision`, as the page's form sends it
 * (`application/x-www-form-urlencoded`) or as JSON: validated by one zod schema, so a `null`
 * body, a field sent as an object or a number where text is expected is a PARAMETER error
 * (INVALID_JSON / VALIDATION_FAILED), never an internal error.
 * @module
 */
import { z } from "zod";
import { AppError, validationError } from "../../contract/mod.ts";

/** A decimal count as the form sends it ("3"), or a JSON number. */
const Count = z.union([
  z.number().int().min(0).max(1e9),
  z.string().regex(/^\d{1,9}$/, "must be a whole number").transform(Number),
]);

/** Text of a form field; an empty field counts as absent. */
const text = (max: number) =>
  z.string().max(max).transform((s) => (s === "" ? null : s)).optional();

/** The decision form: `decision` (confirm | decline), the page's `nonce`, the dialog version
 * the page showed (`seen`), the chosen `senderId` and the signature `pin` (live mode). */
export const DecisionForm = z.object({
  decision: z.enum(["confirm", "decline"], { error: "must be confirm or decline" }),
  nonce: text(256),
  seen: Count.optional(),
  senderId: text(256),
  pin: text(64),
});

/** A validated decision. */
export interface Decision {
  readonly decision: "confirm" | "decline";
  /** The page's one-time nonce ("" when absent: refused as CONFIRMATION_NONCE_INVALID). */
  readonly nonce: string;
  readonly seen: number | null;
  readonly senderId: string | null;
  readonly pin: string | null;
}

/**
 * Read and validate a decision body.
 * @param contentType the request's Content-Type
 * @param readJson reads the body as JSON (throws on malformed JSON)
 * @param readForm reads the body as a form (urlencoded or multipart)
 * @returns the decision
 * @throws AppError INVALID_JSON (malformed JSON, or not a JSON object), VALIDATION_FAILED
 *   (`details.field` names the field: decision, nonce, seen, senderId or pin)
 */
export async function readDecision(
  contentType: string,
  readJson: () => Promise<unknown>,
  readForm: () => Promise<Record<string, unknown>>,
): Promise<Decision> {
  let raw: unknown;
  if (contentType.toLowerCase().startsWith("application/json")) {
    try {
      raw = await readJson();
    } catch {
      throw new AppError("INVALID_JSON", "The decision is not valid JSON");
    }
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      throw new AppError("INVALID_JSON", "The decision must be a JSON object");
    }
  } else {
    raw = await readForm().catch(() => ({}));
  }
  const parsed = DecisionForm.safeParse(raw);
  if (!parsed.success) throw validationError(parsed.error.issues);
  const d = parsed.data;
  return {
    decision: d.decision,
    nonce: d.nonce ?? "",
    seen: d.seen ?? null,
    senderId: d.senderId ?? null,
    pin: d.pin ?? null,
  };
}
