/**
 * Validates response bodies against the schemas of a served OpenAPI 3.0 document (ajv with the
 * OpenAPI `nullable` keyword; int64/double formats accepted as numbers).
 */
import Ajv from "ajv";
import addFormats from "ajv-formats";

/** A validator bound to one OpenAPI document. */
export function openApiValidator(doc: Record<string, unknown>) {
  // deno-lint-ignore no-explicit-any
  const ajv = new (Ajv as any)({ strict: false, allErrors: true });
  // deno-lint-ignore no-explicit-any
  (addFormats as any)(ajv);
  for (const f of ["int64", "int32", "double", "float"]) ajv.addFormat(f, true);
  ajv.addSchema({ ...structuredClone(doc), $id: "openapi.json" });
  /** Validate `value` against `#/components/schemas/<name>`; returns error text or null. */
  return (name: string, value: unknown): string | null => {
    const v = ajv.getSchema(`openapi.json#/components/schemas/${name}`);
    if (!v) return `no schema ${name}`;
    return v(value) ? null : ajv.errorsText(v.errors);
  };
}

/** The component name of the 200 response of an operation path. */
export function resultSchemaName(doc: Record<string, unknown>, path: string): string {
  // deno-lint-ignore no-explicit-any
  const p = (doc.paths as any)[path].post.responses["200"].content["application/json"].schema
    .$ref as string;
  return p.split("/").at(-1)!;
}

/**
 * A validator of whole answers against a document's operations: the status must be declared
 * (or `default`), the answer's media type (when given) must be one the response declares, and a
 * JSON body must match that response's schema.
 * @param doc the OpenAPI 3.0 document
 * @returns `(method, pathTemplate, status, body, contentType?) => error text or null`
 */
export function responseValidator(doc: Record<string, unknown>) {
  // deno-lint-ignore no-explicit-any
  const ajv = new (Ajv as any)({ strict: false, allErrors: true });
  // deno-lint-ignore no-explicit-any
  (addFormats as any)(ajv);
  for (const f of ["int64", "int32", "double", "float"]) ajv.addFormat(f, true);
  ajv.addSchema({ ...structuredClone(doc), $id: "doc.json" });
  const ptr = (s: string) => s.replaceAll("~", "~0").replaceAll("/", "~1");
  return (
    method: string,
    path: string,
    status: number,
    body: unknown,
    contentType?: string | null,
  ): string | null => {
    // deno-lint-ignore no-explicit-any
    const op = (doc.paths as any)?.[path]?.[method.toLowerCase()];
    if (!op) return `${method} ${path} is not in the document`;
    const code = op.responses[String(status)] ? String(status) : "default";
    let res = op.responses[code];
    if (!res) return `${method} ${path}: status ${status} is not declared`;
    let at = `#/paths/${ptr(path)}/${method.toLowerCase()}/responses/${code}`;
    if (res.$ref) {
      at = res.$ref;
      // deno-lint-ignore no-explicit-any
      res = (doc.components as any).responses[res.$ref.split("/").at(-1)];
    }
    const media = contentType?.split(";")[0]?.trim();
    if (media && res.content && !res.content[media]) {
      return `${method} ${path} ${status}: ${media} is not declared`;
    }
    if (media && media !== "application/json") return null;
    if (!res.content?.["application/json"]) return null;
    const v = ajv.getSchema(`doc.json${at}/content/application~1json/schema`);
    if (!v) return `no schema at ${at}`;
    return v(body) ? null : `${method} ${path} ${status}: ${ajv.errorsText(v.errors)}`;
  };
}
