/**
 * What the admin API's OpenAPI document is drawn with (admin_openapi.ts and its route groups):
 * JSON and CSV answers, the no-store header of answers that hold a secret, the id, month and
 * format parameters, and per document the registry, its error responses, the responses every
 * admin route shares, the path and body helpers and the reader of a group's table of routes.
 * @module
 */
import { z } from "zod";
import { jsonBody, type newDocument, tokenErrorResponses } from "../../contract/openapi/mod.ts";

export const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** Sent with every answer that holds a secret. */
export const NO_STORE = {
  "Cache-Control": {
    description: "`no-store`: the answer holds a secret shown once",
    schema: { type: "string" as const },
  },
};

export const CSV = { "text/csv": { schema: { type: "string" as const } } };

/** A JSON answer, or CSV text with `format=csv`. */
export const jsonOrCsv = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema }, ...CSV },
});

export const id = (what: string) =>
  z.object({ id: z.string().meta({ description: `The ${what}'s id` }) });

export const month = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/).meta({
  description: "A UTC month, YYYY-MM",
});

export const format = z.enum(["json", "csv"]).optional().meta({
  description: "`csv`: RFC 4180 text (a spreadsheet formula is written with a leading `'`)",
});

type Registry = ReturnType<typeof newDocument>["r"];
type RouteConfig = Parameters<Registry["registerPath"]>[0];

/** The errors an admin route may answer besides those of every route (`base`), by status. */
const ERROR_STATUS = { invalid: 400, notFound: 404, conflict: 409, tooLarge: 413 } as const;

/**
 * An admin route as a row of its group's table: [method, path below `/admin/v1`, operationId,
 * summary, request (null: none), [status, answer], the errors it answers besides `base` (in
 * the order of their status), description (if any)].
 */
export type AdminRoute = readonly [
  method: "get" | "post" | "put" | "patch",
  path: string,
  operationId: string,
  summary: string,
  request: NonNullable<RouteConfig["request"]> | null,
  answer: readonly [status: 200 | 201, response: RouteConfig["responses"][string]],
  errors: readonly (keyof typeof ERROR_STATUS)[],
  description?: string,
];

/** A document's registry and the helpers its admin routes use. */
export interface PathKit {
  readonly r: Registry;
  readonly e: ReturnType<typeof tokenErrorResponses>;
  /** 401, 500 and 503: every route but the document's reads the store. */
  readonly base: Record<number, { $ref: string }>;
  path(p: string): string;
  body(schema: z.ZodType, required: boolean): ReturnType<typeof jsonBody>;
  /**
   * Register a group's routes, in the order of the table.
   * @param tag the group's tag
   * @param routes one row a route
   */
  routes(tag: string, routes: readonly AdminRoute[]): void;
}

/**
 * The helpers of one admin document.
 * @param r the document's registry
 * @returns the kit
 */
export function pathKit(r: PathKit["r"]): PathKit {
  const e = tokenErrorResponses(r);
  const base = { 401: e.unauthorized, 500: e.internal, 503: e.unavailable };
  const path = (p: string) => `/admin/v1${p}`;
  const routes = (tag: string, rows: readonly AdminRoute[]) => {
    for (const [method, p, operationId, summary, request, answer, errors, description] of rows) {
      r.registerPath({
        method,
        path: path(p),
        operationId,
        summary,
        ...(description === undefined ? {} : { description }),
        tags: [tag],
        ...(request === null ? {} : { request }),
        responses: {
          [answer[0]]: answer[1],
          ...Object.fromEntries(errors.map((k) => [ERROR_STATUS[k], e[k]])),
          // A route that reads a body reads it only as JSON (admin_routes.ts readJson).
          ...(errors.includes("tooLarge") ? { 415: e.unsupportedMediaType } : {}),
          ...base,
        },
      });
    }
  };
  return { r, e, base, path, body: jsonBody, routes };
}
