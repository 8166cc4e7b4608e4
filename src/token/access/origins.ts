/**
 * Web page origins the token service accepts (docs/token-service.md): a token binds the calling
 * page's origin (docs/token-service.md § Page origins), and integrators and keys register the
 * origins agents allow (CORS). Only an http(s) origin as a browser serialises it in the `Origin`
 * header — `scheme://host[:port]` with scheme http or https — is accepted; `javascript:`,
 * `file:`, `data:`, `ftp:`, the opaque origin `"null"`, a URL with a path, query, fragment or
 * user name are refused, never turned into `"null"` or cut down to their origin.
 * @module
 */
import { z } from "zod";
import { AppError } from "../../contract/mod.ts";

/** The message of a refused origin (sentence fragment after `Field "<name>"`). */
export const HTTP_ORIGIN_MESSAGE =
  "must be an http(s) origin such as https://app.example.com (scheme://host[:port], no path)";

// The raw text: the scheme, `//`, an authority without user info, and at most a trailing `/`.
// Checked before the URL parser, which would drop tabs and newlines and read `\` as `/`.
// deno-lint-ignore no-control-regex -- control characters are exactly what it refuses
const SHAPE = /^https?:\/\/[^/?#@\\\x00-\x20\x7f]+\/?$/i;

/**
 * The serialised origin of an http(s) origin, or null for anything else.
 * @param text what was given (e.g. the `origin` field of a token request)
 * @returns the origin as browsers send it (lower-case scheme and host, default port dropped,
 *   IDN in punycode), or null
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(httpOrigin("https://App.example.com:443"), "https://app.example.com");
 * equal(httpOrigin("javascript:alert(1)"), null);
 * equal(httpOrigin("https://app.example.com/page"), null);
 * ```
 */
export function httpOrigin(text: string): string | null {
  if (text.length > 2048 || !SHAPE.test(text)) return null;
  const u = URL.parse(text);
  if (!u || (u.protocol !== "http:" && u.protocol !== "https:") || u.origin === "null") {
    return null;
  }
  return u.origin;
}

/**
 * The origin of a field, or VALIDATION_FAILED naming the field (400 at the token service).
 * @param text the value
 * @param field the field's name in the request (`origin`, `allowedOrigins.0`)
 * @returns the serialised origin
 * @throws AppError VALIDATION_FAILED with `details.field`
 */
export function requireHttpOrigin(text: string, field: string): string {
  const origin = httpOrigin(text);
  if (origin !== null) return origin;
  throw new AppError("VALIDATION_FAILED", `Field "${field}" ${HTTP_ORIGIN_MESSAGE}`, {
    field,
    issues: [{ field, message: HTTP_ORIGIN_MESSAGE }],
  });
}

/** A zod field of one http(s) origin, normalised to its serialisation. */
export const HttpOrigin = z.string().max(2048).refine(
  (s) => httpOrigin(s) !== null,
  HTTP_ORIGIN_MESSAGE,
  // non-null: the refine above let through only a string httpOrigin accepts
).transform((s) => httpOrigin(s)!);

/** Most page origins one integrator has published to agents (its own and its keys' together;
 * docs/token-service.md § Page origins). */
export const MAX_ORIGINS_PER_INTEGRATOR = 10;

/** Most origins in the published allow-list (`GET /api/v1/allowed-origins`) in all. */
export const MAX_PUBLISHED_ORIGINS = 5000;

/** The message of an origin that may not be registered for agents. */
export const REGISTERED_ORIGIN_MESSAGE =
  "must be an https origin (http only for localhost, 127.0.0.1 or [::1], any port)";

/**
 * Whether a serialised origin may be registered for agents to trust: https, or http on the
 * loopback names only (a developer's page).
 * @param origin a serialised origin ({@link httpOrigin})
 * @returns true for `https://…`, `http://localhost[:port]`, `http://127.0.0.1[:port]`,
 *   `http://[::1][:port]`
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(registrableOrigin("https://app.example.com"), true);
 * equal(registrableOrigin("http://localhost:5173"), true);
 * equal(registrableOrigin("http://app.example.com"), false);
 * ```
 */
export function registrableOrigin(origin: string): boolean {
  const u = URL.parse(origin);
  if (!u) return false;
  if (u.protocol === "https:") return true;
  return u.protocol === "http:" &&
    (u.hostname === "localhost" || u.hostname === "127.0.0.1" || u.hostname === "[::1]");
}

/**
 * An origin to register (an integrator's or a key's), or VALIDATION_FAILED naming the field.
 * @param text the value
 * @param field the field's name (`allowedOrigins.0`)
 * @returns the serialised origin
 * @throws AppError VALIDATION_FAILED with `details.field`
 */
export function requireRegistrableOrigin(text: string, field: string): string {
  const origin = requireHttpOrigin(text, field);
  if (registrableOrigin(origin)) return origin;
  throw new AppError("VALIDATION_FAILED", `Field "${field}" ${REGISTERED_ORIGIN_MESSAGE}`, {
    field,
    issues: [{ field, message: REGISTERED_ORIGIN_MESSAGE }],
  });
}

/** A zod field of one origin to register: https, or http on loopback. */
export const RegisteredOrigin = HttpOrigin.refine(registrableOrigin, REGISTERED_ORIGIN_MESSAGE);
