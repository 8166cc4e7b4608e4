import { deepStrictEqual, equal, ok, throws } from "node:assert/strict";
import SwaggerParser from "@apidevtools/swagger-parser";
import {
  ERROR_CATALOG,
  ERROR_CODES,
  type ErrorSpec,
  filingFailureOf,
  httpStatus,
} from "../../src/contract/errors.ts";
import { buildAgentOpenApi, buildTokenOpenApi } from "../../src/contract/openapi/mod.ts";
import {
  getOperation,
  OPERATIONS,
  sampleRequest,
  TYPE_IDS,
} from "../../src/contract/operations.ts";
import { buildAdminOpenApi } from "../../src/token/admin/mod.ts";
import { Eik, Month, Year } from "../../src/contract/common.ts";
import { errorsDoc, operationsTable } from "../../scripts/gen_docs.ts";

/** The typeIds interface-spec.md § typeId values names: the registry must offer each of them. */
const SPEC_NAMED = [
  "vat",
  "vat_portal_files",
  "dec1_6",
  "dec1_6_batch",
  "vat_batch",
  "etz62_batch",
  "etz123_batch",
  "debt_payments",
  "debt_payments_types",
  "taxpayers",
];

Deno.test("OPERATIONS: unique typeIds, the spec's typeIds among them, the spec's scopes", () => {
  equal(new Set(TYPE_IDS).size, TYPE_IDS.length);
  for (const id of SPEC_NAMED) ok(getOperation(id), id);
  for (const id of ["dec1_6_batch", "vat_batch", "etz62_batch", "etz123_batch"]) {
    equal(getOperation(id)!.scope, "eiks");
  }
  for (const id of ["debt_payments_types", "taxpayers"]) {
    equal(getOperation(id)!.scope, "none");
  }
  equal(getOperation("vat")!.localInput, "optional");
  equal(getOperation("dec1_6")!.localInput, "required");
});

Deno.test("every registry row carries a sample request its own schema accepts", () => {
  for (const op of OPERATIONS) {
    const parsed = op.request.safeParse(sampleRequest(op.typeId));
    ok(parsed.success, `${op.typeId}: ${JSON.stringify(parsed.error?.issues)}`);
    if (op.scope === "eik" && "eik" in op.sample) {
      equal(sampleRequest(op.typeId, "999999956").eik, "999999956", op.typeId);
    }
  }
  throws(() => sampleRequest("nope"), /unknown typeId nope/);
});

Deno.test("common schemas: eik is 9-13 digits, year 1900-2999, month 1-12", () => {
  for (const v of ["123456789", "1234567890123"]) ok(Eik.safeParse(v).success, v);
  for (const v of ["12345678", "12345678901234", "12345678a", 123456789]) {
    ok(!Eik.safeParse(v).success, String(v));
  }
  for (const v of [1900, 2999]) ok(Year.safeParse(v).success);
  for (const v of [1899, 3000, 2020.5, "2020"]) ok(!Year.safeParse(v).success, String(v));
  for (const v of [1, 12]) ok(Month.safeParse(v).success);
  for (const v of [0, 13]) ok(!Month.safeParse(v).success);
});

Deno.test("Dec16Request keeps the spec's field names and optionality", () => {
  const shape = (getOperation("dec1_6")!.request as unknown as {
    shape: Record<string, { isOptional(): boolean }>;
  }).shape;
  for (const f of ["year", "month"]) equal(shape[f]!.isOptional(), false, f);
  for (const f of ["eik", "dec1FilePath", "dec6FilePath", "fund"]) {
    equal(shape[f]!.isOptional(), true, f);
  }
});

Deno.test("buildAgentOpenApi() is a valid OpenAPI 3.0.3 document with ErrorCode and ErrorKind", async () => {
  const doc = buildAgentOpenApi("0.0.0-test");
  equal(doc.openapi, "3.0.3");
  await SwaggerParser.validate(structuredClone(doc) as never);
  // deno-lint-ignore no-explicit-any
  const schemas = (doc.components as any).schemas;
  deepStrictEqual(schemas.ErrorCode.enum, ERROR_CODES);
  deepStrictEqual(schemas.ErrorKind.enum, ["PARAMETER", "CREDENTIALS", "PORTAL"]);
  for (const o of OPERATIONS) {
    ok((doc.paths as Record<string, unknown>)[`/api/v1/operations/${o.typeId}`], o.typeId);
  }
  for (const p of ["/api/senders", "/api/pick-file", "/api/pick-folder", "/health"]) {
    ok((doc.paths as Record<string, unknown>)[p], p);
  }
  // Nullable and required exactly as the spec writes them.
  deepStrictEqual(schemas.SubmissionResult.required.sort(), [
    "documentId",
    "errorMessage",
    "incomeNumber",
    "nativeErrors",
    "submissionDate",
    "success",
  ]);
  equal(schemas.SubmissionResult.properties.documentId.nullable, true);
  equal(schemas.VatMonthlySubmission.required, undefined);
  await SwaggerParser.validate(structuredClone(buildTokenOpenApi("0.0.0-test")) as never);
  await SwaggerParser.validate(structuredClone(buildAdminOpenApi("0.0.0-test")) as never);
});

Deno.test("every catalogued code has one kind and a status; agent errors are 502 unless transport-level", () => {
  for (const [code, s] of Object.entries(ERROR_CATALOG)) {
    ok(["PARAMETER", "CREDENTIALS", "PORTAL"].includes(s.kind), code);
    ok(s.status >= 200 && s.status < 600, code);
  }
  equal(ERROR_CATALOG.SENDER_NOT_CHOSEN.status, 502);
  equal(ERROR_CATALOG.TOKEN_TYPE_MISMATCH.status, 401);
  equal(ERROR_CATALOG.AGENT_UPDATE_REQUIRED.status, 426);
  equal(ERROR_CATALOG.EIK_LIMIT_REACHED.status, 402);
  equal(ERROR_CATALOG.EIK_NOT_ALLOWED.status, 403);
});

Deno.test("the catalog gives each code its status per service: a malformed body is 502 at the agent, 400 at the token service", () => {
  equal(httpStatus("VALIDATION_FAILED", "agent"), 502);
  equal(httpStatus("VALIDATION_FAILED", "token"), 400);
  equal(httpStatus("INVALID_JSON", "agent"), 502);
  equal(httpStatus("INVALID_JSON", "token"), 400);
  // The codes of both services that the spec fixes (interface-spec.md § Errors / Token service).
  equal(httpStatus("EIK_REQUIRED", "token"), 400);
  equal(httpStatus("API_KEY_INVALID", "token"), 401);
  equal(httpStatus("EIK_LIMIT_REACHED", "token"), 402);
  equal(httpStatus("EIK_NOT_ALLOWED", "token"), 403);
  equal(httpStatus("DATABASE_UNAVAILABLE", "token"), 503);
  equal(httpStatus("SERVICE_INTERNAL_ERROR", "token"), 500);
  for (const code of ERROR_CODES) {
    const s: ErrorSpec = ERROR_CATALOG[code];
    if (s.tokenStatus === undefined) equal(httpStatus(code, "token"), s.status, code);
    else ok(s.tokenStatus >= 400 && s.tokenStatus < 600, code);
  }
});

Deno.test("the catalog says which failed submits certainly never reached the authority and which it refused", () => {
  equal(filingFailureOf("PORTAL_UNREACHABLE"), "not_filed");
  equal(filingFailureOf("PIN_INCORRECT"), "not_filed");
  equal(filingFailureOf("VALIDATION_FAILED"), "not_filed");
  equal(filingFailureOf("PORTAL_REJECTED"), "refused");
  equal(filingFailureOf("NO_POWER_OF_ATTORNEY"), "refused");
  // A timeout or a 5xx may have been filed: the code alone does not tell.
  equal(filingFailureOf("PORTAL_TIMEOUT"), null);
  equal(filingFailureOf("PORTAL_SERVER_ERROR"), null);
});

Deno.test("README's operation table and docs/errors.md are generated from the contract and up to date", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  // deno fmt pads table cells and reflows text: compare the content, not the padding.
  const norm = (t: string) =>
    t.replace(/[ \t]*\|[ \t]*/g, "|").replace(/-{3,}/g, "---").replace(/\s+/g, " ");
  ok(norm(readme).includes(norm(operationsTable())), "run: deno run -A scripts/gen_docs.ts");
  const errors = await Deno.readTextFile(new URL("../../docs/errors.md", import.meta.url));
  equal(norm(errors), norm(errorsDoc()), "run: deno run -A scripts/gen_docs.ts");
});
