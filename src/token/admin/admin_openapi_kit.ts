/**
 * What the admin API's OpenAPI document is drawn with (admin_openapi.ts and its route groups):
 * JSON and CSV answers, the no-store header of answers that hold a secret, the id, month and
 * format parameters, and per document the registry, its error responses, the responses every
 * admin route shares and the path and body helpers.
 * @module
 */
import { z } from "zod";
import { type newDocument, tokenErrorResponses } from "../../contract/openapi/mod.ts";

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

export const id = (what: string) =>
  z.object({ id: z.string().meta({ description: `The ${what}'s id` }) });

export const month = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/).meta({
  description: "A UTC month, YYYY-MM",
});

export const format = z.enum(["json", "csv"]).optional().meta({
  description: "`csv`: RFC 4180 text (a spreadsheet formula is written with a leading `'`)",
});

/** A document's registry and the helpers its admin routes use. */
export interface PathKit {
  readonly r: ReturnType<typeof newDocument>["r"];
  readonly e: ReturnType<typeof tokenErrorResponses>;
  /** 401, 500 and 503: every route but the document's reads the store. */
  readonly base: Record<number, { $ref: string }>;
  path(p: string): string;
  body(schema: z.ZodType, required: boolean): Record<string, unknown>;
}

/**
 * The helpers of one admin document.
 * @param r the document's registry
 * @returns the kit
 */
export function pathKit(r: PathKit["r"]): PathKit {
  const e = tokenErrorResponses(r);
  return {
    r,
    e,
    base: { 401: e.unauthorized, 500: e.internal, 503: e.unavailable },
    path: (p) => `/admin/v1${p}`,
    body: (schema, required) => ({
      body: { required, content: { "application/json": { schema } } },
    }),
  };
}
