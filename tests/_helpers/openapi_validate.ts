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
