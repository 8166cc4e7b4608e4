/**
 * `POST /api/v1/tokens/issue` (docs/tokens.md § Issuing), the hot path of the
 * token service: every agent operation needs a fresh token. One Hono handler and nothing else on
 * the route (the edge is a wrapper, edge/request_edge.ts), so Hono calls it without composing a
 * middleware chain; the body is read without touching `Request.body` (which would build a stream)
 * when a `Content-Length` bounds it; the answer is built once with its headers. Measured against a
 * bare route plus one signature in BENCHMARKS.md § The issuance hot path. The order of the checks
 * is docs/token-service.md § The order of an issuance's checks.
 * @module
 */
import type { Context } from "hono";
import {
  AppError,
  requireJsonMediaType,
  TokenIssueRequest,
  validationError,
} from "../../contract/mod.ts";
import {
  type AuthenticatedKey,
  authenticateKey,
  type IssueDeps,
  type IssuedToken,
  issueToken,
} from "./issue.ts";
import { httpOrigin, requireHttpOrigin } from "../access/mod.ts";
import { type RateLimiter, setRateLimitHeaders, showBudget } from "../edge/mod.ts";
import type { RequestLogRecorder } from "../request_log/mod.ts";

/** Largest issue request body, bytes (a folder-wide request lists many EIKs). */
export const MAX_ISSUE_BODY_BYTES = 256 * 1024;

/** What the route needs: issuance's dependencies and the budgets. */
export interface IssueRouteDeps extends IssueDeps {
  readonly clock: { now(): number };
  /** Budgets per API key and integrator (absent = no limits). */
  readonly rateLimiter?: RateLimiter | undefined;
  /** The request log (absent = none; request_log/recorder.ts). */
  readonly requestLog?: RequestLogRecorder | undefined;
}

/**
 * The handler of `POST /api/v1/tokens/issue`: authenticate the key (401), refuse a body declared
 * too large (413) or not JSON (415) before counting the key's budgets (429), read and validate the
 * body (413 for a chunked one, 400), check the page origin (400, 403), apply the policy and sign
 * (issue.ts: 400, 403, 402). Errors are thrown as `AppError` for the app's error handler; every
 * error after the budgets were counted carries their `RateLimit-*` fields, as the 200 does.
 * @param deps store, key ring, config, clock, budgets, usage counter
 * @returns a Hono handler answering 200 with `IssuedToken`, `Cache-Control: no-store` and the
 *   tighter budget's `RateLimit-*` fields
 * @throws AppError API_KEY_INVALID | API_KEY_EXPIRED | API_KEY_REVOKED (401), RATE_LIMITED (429),
 *   BODY_TOO_LARGE (413), UNSUPPORTED_MEDIA_TYPE (415), INVALID_JSON | VALIDATION_FAILED | UNKNOWN_TYPE_ID | EIK_REQUIRED (400),
 *   ORIGIN_NOT_ALLOWED | EIK_NOT_ALLOWED (403), EIK_LIMIT_REACHED (402)
 */
export function issueRoute(deps: IssueRouteDeps): (c: Context) => Promise<Response> {
  return async (c) => {
    const req = c.req.raw;
    const now = deps.clock.now();
    const t0 = performance.now();
    // The request log notes the request as soon as its key is known: a revoked or expired
    // key's 401 is kept under that key (request_log/recorder.ts).
    const log = deps.requestLog;
    const auth = await authenticateKey(
      deps.store,
      req.headers.get("authorization") ?? undefined,
      now,
      log ? (key) => log.begin(req, key, now) : undefined,
    );
    if (deps.timings) deps.timings.keyLookupUs += (performance.now() - t0) * 1000;
    // A body declared too large is refused before it spends the key's budget.
    const declared = declaredLength(req);
    if (declared !== null && declared > MAX_ISSUE_BODY_BYTES) tooLarge();
    // JSON only (415), before the budget: a form or text/plain is never read as a request.
    requireJsonMediaType(req.headers.get("content-type"));
    const budget = await deps.rateLimiter?.check(auth.key, now);
    let issued: IssuedToken;
    try {
      issued = await issueFromBody(deps, auth, req, declared !== null, now);
    } catch (e) {
      // The budget was spent: every answer from here on shows it (the error handler keeps
      // headers set on the context).
      if (budget) showBudget(c, budget);
      throw e;
    }
    // Headers set one by one on the answer: Deno converts a `HeadersInit` of several fields
    // noticeably slower (BENCHMARKS.md § The issuance hot path).
    const res = new Response(JSON.stringify(issued), {
      headers: { "content-type": "application/json" },
    });
    res.headers.set("cache-control", "no-store");
    if (budget) setRateLimitHeaders(res.headers, budget);
    return res;
  };
}

/** Read, validate and answer an authenticated request whose budget is counted. */
async function issueFromBody(
  deps: IssueDeps & { readonly requestLog?: RequestLogRecorder | undefined },
  auth: AuthenticatedKey,
  req: Request,
  bounded: boolean,
  now: number,
): Promise<IssuedToken> {
  let raw: unknown;
  try {
    raw = JSON.parse(bounded ? await req.text() : await readChunked(req, MAX_ISSUE_BODY_BYTES));
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw new AppError("INVALID_JSON", "The body is not valid JSON");
  }
  deps.requestLog?.body(req, raw);
  const parsed = TokenIssueRequest.safeParse(raw);
  if (!parsed.success) throw validationError(parsed.error.issues);
  // Only an http(s) origin is bound (token-service.md): never "null" for javascript:, file:, data:.
  // The text as sent is checked (zod's URL check drops tabs and newlines).
  const sent = (raw as { origin?: unknown }).origin;
  const origin = parsed.data.origin === undefined
    ? undefined
    : requireHttpOrigin(typeof sent === "string" ? sent : parsed.data.origin, "origin");
  if (origin !== undefined) {
    // The key's own origins, else its integrator's, both read with the key (issuance cache): a
    // change reaches every instance within a second.
    const allowed = (auth.key.allowedOrigins ?? auth.key.integratorOrigins ?? [])
      .flatMap(httpOriginList);
    if (allowed.length > 0 && !allowed.includes(origin)) {
      throw new AppError(
        "ORIGIN_NOT_ALLOWED",
        "The origin is not among the integrator's allowed origins (an administrator sets them)",
        { origin },
      );
    }
  }
  return await issueToken(deps, auth, { ...parsed.data, origin }, now);
}

/** The body's length as its `Content-Length` declares it (bytes), or null when it is sent
 * chunked (no length, or `Transfer-Encoding`, which takes precedence). */
function declaredLength(req: Request): number | null {
  const declared = req.headers.get("content-length");
  return declared === null || req.headers.has("transfer-encoding") ? null : Number(declared);
}

/**
 * A body sent without a length, as text, counted as it streams: at most `max` bytes.
 * @throws AppError BODY_TOO_LARGE (413)
 */
async function readChunked(req: Request, max: number): Promise<string> {
  if (req.body === null) return "";
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for await (const chunk of req.body) {
    size += chunk.byteLength;
    if (size > max) tooLarge();
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

function tooLarge(): never {
  throw new AppError("BODY_TOO_LARGE", "The body is too large", { limit: MAX_ISSUE_BODY_BYTES });
}

/** A stored origin as a list of its http(s) origin: empty for one saved before only http(s)
 * was accepted that is not one (`file:`, `null`), which is then neither matched nor published
 * to agents. */
export const httpOriginList = (o: string): string[] => {
  const origin = httpOrigin(o);
  return origin === null ? [] : [origin];
};
