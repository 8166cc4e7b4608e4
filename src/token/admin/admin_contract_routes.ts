/**
 * Admin HTTP API, part 2, under `/admin/v1` (docs/token-service.md § Access phases, phases 2–3):
 * applications (approve, reject), contracts (list, terminate, monthly statement as JSON or CSV),
 * usage counters and notices (signing keys: admin_signing_routes.ts).
 * @module
 */
import { type Context, Hono } from "hono";
import type { BlankEnv } from "hono/types";
import type { AdminDeps } from "./admin_keys.ts";
import { ApplicationApprove, Note, parseInput } from "./admin_schemas.ts";
import { readJson } from "./admin_routes.ts";
import {
  applicationView,
  approveApplication,
  contractView,
  rejectApplication,
  terminateContract,
} from "../contracts/mod.ts";
import { AppError } from "../../contract/mod.ts";
import type { ApplicationStatus } from "../store/mod.ts";
import { buildStatement, requireMonth, statementCsv, usageCsv } from "../contracts/mod.ts";

/** Extra dependencies of the contract routes. */
export interface AdminContractDeps extends AdminDeps {
  /** Write buffered usage counters before reading them. */
  readonly flushUsage?: (() => Promise<void>) | undefined;
}

const STATUSES = new Set(["pending", "approved", "rejected"]);
/**
 * Routes for applications, contracts, usage and notices (mount at `/admin/v1`).
 * @param d store, clock, random, usage flush
 * @returns a Hono app
 */
export function adminContractRoutes(d: AdminContractDeps): Hono {
  const r = new Hono();
  r.get("/applications", (c) => listApplicationsHandler(d, c));
  r.post("/applications/:id/approve", (c) => approveHandler(d, c));
  r.post("/applications/:id/reject", (c) => rejectHandler(d, c));
  r.get("/contracts", (c) => listContractsHandler(d, c));
  r.get("/contracts/:id", (c) => getContractHandler(d, c));
  r.post("/contracts/:id/terminate", (c) => terminateHandler(d, c));
  r.get("/contracts/:id/statement", (c) => statementHandler(d, c));
  r.get("/usage", (c) => usageHandler(d, c));
  r.get("/notices", (c) => noticesHandler(d, c));
  return r;
}

/**
 * GET /applications (query `status`, `integratorId`): the applications, filtered.
 * @returns 200 `{ items }`
 * @throws AppError VALIDATION_FAILED for a status other than pending, approved, rejected
 */
async function listApplicationsHandler(d: AdminContractDeps, c: Context): Promise<Response> {
  const status = c.req.query("status");
  if (status !== undefined && !STATUSES.has(status)) {
    throw new AppError(
      "VALIDATION_FAILED",
      'Field "status" must be pending, approved or rejected',
      {
        field: "status",
      },
    );
  }
  const integratorId = c.req.query("integratorId");
  const items = await d.store.listApplications({
    ...(status ? { status: status as ApplicationStatus } : {}),
    ...(integratorId ? { integratorId } : {}),
  });
  return c.json({ items: items.map(applicationView) });
}

/**
 * POST /applications/{id}/approve (`endsAt`, `note`): approve and make the contract.
 * @returns 201 with the contract, the superseded contract id and how many keys were lifted
 * @throws AppError from the input's schema and {@link approveApplication} (unknown or decided)
 */
async function approveHandler(
  d: AdminContractDeps,
  c: Context<BlankEnv, "/applications/:id/approve">,
): Promise<Response> {
  const input = parseInput(ApplicationApprove, await readJson(c));
  const endsAt = input.endsAt === undefined
    ? undefined
    : input.endsAt === null
    ? null
    : Date.parse(input.endsAt);
  return c.json(
    await approveApplication(d, c.req.param("id"), { endsAt, note: input.note }),
    201,
  );
}

/**
 * POST /applications/{id}/reject (`note`, or `reason`): reject an application.
 * @returns 200 with the application
 * @throws AppError from the input's schema and {@link rejectApplication} (unknown or decided)
 */
async function rejectHandler(
  d: AdminContractDeps,
  c: Context<BlankEnv, "/applications/:id/reject">,
): Promise<Response> {
  const { note, reason } = parseInput(Note, await readJson(c));
  const app = await rejectApplication(d, c.req.param("id"), note ?? reason);
  return c.json(applicationView(app));
}

/**
 * GET /contracts (query `integratorId`): the contracts as seen now.
 * @returns 200 `{ items }`
 */
async function listContractsHandler(d: AdminContractDeps, c: Context): Promise<Response> {
  const integratorId = c.req.query("integratorId");
  const now = d.clock.now();
  const items = await d.store.listContracts(integratorId ? { integratorId } : {});
  return c.json({ items: items.map((k) => contractView(k, now)) });
}

/**
 * GET /contracts/{id}: one contract as seen now.
 * @returns 200 with the contract
 * @throws AppError NOT_FOUND for an unknown contract
 */
async function getContractHandler(
  d: AdminContractDeps,
  c: Context<BlankEnv, "/contracts/:id">,
): Promise<Response> {
  const k = await d.store.getContract(c.req.param("id"));
  if (!k) throw new AppError("NOT_FOUND", `No contract "${c.req.param("id")}"`);
  return c.json(contractView(k, d.clock.now()));
}

/**
 * POST /contracts/{id}/terminate (`reason`, or `note`): terminate a contract.
 * @returns 200 with the contract
 * @throws AppError from the input's schema and {@link terminateContract} (unknown or not active)
 */
async function terminateHandler(
  d: AdminContractDeps,
  c: Context<BlankEnv, "/contracts/:id/terminate">,
): Promise<Response> {
  const { reason, note } = parseInput(Note, await readJson(c));
  return c.json(await terminateContract(d, c.req.param("id"), reason ?? note));
}

/**
 * GET /contracts/{id}/statement (query `month` `YYYY-MM`, `format=csv`): the monthly statement.
 * @returns 200 with the statement as JSON, or as a CSV download
 * @throws AppError for a bad month or an unknown contract ({@link buildStatement})
 */
async function statementHandler(
  d: AdminContractDeps,
  c: Context<BlankEnv, "/contracts/:id/statement">,
): Promise<Response> {
  const month = requireMonth(c.req.query("month"));
  await d.flushUsage?.();
  const s = await buildStatement(d.store, c.req.param("id"), month);
  if (c.req.query("format") === "csv") {
    return c.body(statementCsv(s), 200, {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="statement-${s.contractId}-${month}.csv"`,
    });
  }
  return c.json(s);
}

/**
 * GET /usage (query `month`, `integratorId`, `contractId`, `keyId`, `format=csv`): usage counters.
 * @returns 200 `{ items, total }`, or CSV
 * @throws AppError for a bad month
 */
async function usageHandler(d: AdminContractDeps, c: Context): Promise<Response> {
  const q = c.req.query();
  if (q.month !== undefined) requireMonth(q.month);
  await d.flushUsage?.();
  const rows = await d.store.listBillingCounts({
    ...(q.month ? { month: q.month } : {}),
    ...(q.integratorId ? { integratorId: q.integratorId } : {}),
    ...(q.contractId !== undefined ? { contractId: q.contractId } : {}),
    ...(q.keyId ? { keyId: q.keyId } : {}),
  });
  if (q.format === "csv") {
    return c.body(usageCsv(rows), 200, { "content-type": "text/csv; charset=utf-8" });
  }
  return c.json({ items: rows, total: rows.reduce((s, x) => s + x.count, 0) });
}

/**
 * GET /notices (query `kind`, `subjectId`): the e-mail notices.
 * @returns 200 `{ items }`
 */
async function noticesHandler(d: AdminContractDeps, c: Context): Promise<Response> {
  const kind = c.req.query("kind"), subjectId = c.req.query("subjectId");
  const items = await d.store.listNotices({
    ...(kind ? { kind } : {}),
    ...(subjectId ? { subjectId } : {}),
  });
  return c.json({ items });
}
