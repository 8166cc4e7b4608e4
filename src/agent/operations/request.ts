/**
 * Reading an operation's request: the body (size, optional body-hash binding, strict UTF-8
 * JSON, the registry's zod schema — parsed once, typed from here on) and where its local input
 * comes from (a body path field, `X-Svc-File-Path`, or inline files).
 * @module
 */
import type { Context } from "hono";
import type { z } from "zod";
import { AppError, validationError } from "../../contract/mod.ts";
import type { OperationClaims } from "../http/mod.ts";
import type { LocalSource } from "../local/mod.ts";

/** Strict UTF-8 for request bodies (one decoder for every request). */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource)).toHex();
}

/**
 * Read, check and validate the body against the operation's request schema.
 * @param c Hono context
 * @param op registry entry (its `request` schema types the result)
 * @param claims verified token (`bodySha256` binds the raw bytes when present)
 * @returns the schema's output
 * @throws AppError TOKEN_BODY_MISMATCH | INVALID_JSON | VALIDATION_FAILED
 */
export async function readBody<O extends { readonly request: z.ZodType }>(
  c: Context,
  op: O,
  claims: OperationClaims,
): Promise<z.output<O["request"]>> {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (claims.bodySha256 && (await sha256Hex(bytes)) !== claims.bodySha256.toLowerCase()) {
    throw new AppError("TOKEN_BODY_MISMATCH", "The body does not match the token's bodySha256");
  }
  let raw: unknown;
  try {
    raw = bytes.length === 0 ? {} : JSON.parse(UTF8.decode(bytes));
  } catch {
    throw new AppError("INVALID_JSON", "The body is not valid UTF-8 JSON");
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new AppError("INVALID_JSON", "The body must be a JSON object");
  }
  const parsed = op.request.safeParse(raw);
  if (!parsed.success) throw validationError(parsed.error.issues);
  // The data is the output of `op.request` itself; zod's types lose that through a union of
  // registry entries (their schemas are invariant), so it is restated here, once.
  return parsed.data as z.output<O["request"]>;
}

/** A string field of a validated body, or null. */
export function stringField(body: object, key: string): string | null {
  const v: unknown = Reflect.get(body, key);
  return typeof v === "string" ? v : null;
}

/**
 * Where the local input comes from.
 * @param c Hono context (`X-Svc-File-Path`)
 * @param body validated body (`_inlineFile`, `_inlineDir`, the path field)
 * @param pathField the body field naming the folder, or null
 * @returns the source (path null when none was given)
 */
export function localSource(c: Context, body: object, pathField: string | null): LocalSource {
  const header = c.req.header("x-svc-file-path") ?? null;
  const inlineFile: LocalSource["inlineFile"] = Reflect.get(body, "_inlineFile");
  const inlineDir: LocalSource["inlineDir"] = Reflect.get(body, "_inlineDir");
  return {
    path: (pathField ? stringField(body, pathField) : null) ?? header,
    ...(inlineFile ? { inlineFile } : {}),
    ...(inlineDir ? { inlineDir } : {}),
  };
}

/**
 * Whether a request brings local input.
 * @param s the source
 * @param body validated body
 * @param pathFields the operation's body path fields (e.g. `dec1FilePath`, `dec6FilePath`)
 * @returns true when any path or inline input is present
 */
export function hasLocal(s: LocalSource, body: object, pathFields: readonly string[]): boolean {
  return s.path !== null || !!s.inlineFile || !!s.inlineDir ||
    pathFields.some((f) => stringField(body, f) !== null);
}

/** The body without its inline input (what the portal sees). */
export function stripInline<T extends object>(body: T): Omit<T, "_inlineFile" | "_inlineDir"> {
  const { _inlineFile: _f, _inlineDir: _d, ...rest } = body as T & {
    _inlineFile?: unknown;
    _inlineDir?: unknown;
  };
  return rest;
}
