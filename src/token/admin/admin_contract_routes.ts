/**
 * Admin HTTP API, part 2, under `/admin/v1` (docs/token-service.md § Access phases, phases 2–3):
 * applications (approve, reject), contracts (list, terminate, monthly statement as JSON or CSV),
 * usage counters and notices (signing keys: admin_signing_routes.ts).
 * @module
 */
import { Hono } from "hono";
import type { AdminDeps } from "./admin_keys.ts";
import { ApplicationApprove, approvalTerms, Note, parseInput } from "./admin_schemas.ts";
import { readJson } from "./admin_routes.ts";
import {
  applicationView,
  applicationViews,
  approveApplication,
  buildStatement,
  contractNow,
  contractViews,
  rejectApplication,
  requireMonth,
  statementCsv,
  terminateContract,
  usageCsv,
} from "../contracts/mod.ts";
import { AppError } from "../../contract/mod.ts";
import type { ApplicationStatus } from "../store/mod.ts";
import { addRoutes, routeMaker } from "../../route_table.ts";

/** Extra dependencies of the contract routes. */
export interface AdminContractDeps extends AdminDeps {
  /** Write buffered usage counters before reading them. */
  readonly flushUsage?: (() => Promise<void>) | undefined;
}

const STATUSES = new Set(["pending", "approved", "rejected"]);
const route = routeMaker<AdminContractDeps>();

/**
 * GET /applications (query `status`, `integratorId`): the applications, filtered.
 * @returns 200 `{ items }`
 * @throws AppError VALIDATION_FAILED for a status other than pending, approved, rejected
 */
const listApplications = route("get", "/applications", async (d, c) => {
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
  const items = await applicationViews(d, {
    ...(status ? { status: status as ApplicationStatus } : {}),
    ...(integratorId ? { integratorId } : {}),
  });
  return c.json({ items });
});

/**
 * POST /applications/{id}/approve (`endsAt`, `note`): approve and make the contract.
 * @returns 201 with the contract, the superseded contract id and how many keys were lifted
 * @throws AppError from the input's schema and {@link approveApplication} (unknown or decided)
 */
const approve = route("post", "/applications/:id/approve", async (d, c) => {
  const terms = approvalTerms(parseInput(ApplicationApprove, await readJson(c)));
  return c.json(await approveApplication(d, c.req.param("id"), terms), 201);
});

/**
 * POST /applications/{id}/reject (`note`, or `reason`): reject an application.
 * @returns 200 with the application
 * @throws AppError from the input's schema and {@link rejectApplication} (unknown or decided)
 */
const reject = route("post", "/applications/:id/reject", async (d, c) => {
  const { note, reason } = parseInput(Note, await readJson(c));
  const app = await rejectApplication(d, c.req.param("id"), note ?? reason);
  return c.json(applicationView(app));
});

/**
 * GET /contracts (query `integratorId`): the contracts as seen now.
 * @returns 200 `{ items }`
 */
const listContracts = route("get", "/contracts", async (d, c) => {
  const integratorId = c.req.query("integratorId");
  return c.json({ items: await contractViews(d, integratorId ? { integratorId } : {}) });
});

/**
 * GET /contracts/{id}: one contract as seen now.
 * @returns 200 with the contract
 * @throws AppError NOT_FOUND for an unknown contract
 */
const getContract = route("get", "/contracts/:id", async (d, c) => {
  return c.json(await contractNow(d, c.req.param("id")));
});

/**
 * POST /contracts/{id}/terminate (`reason`, or `note`): terminate a contract.
 * @returns 200 with the contract
 * @throws AppError from the input's schema and {@link terminateContract} (unknown or not active)
 */
const terminate = route("post", "/contracts/:id/terminate", async (d, c) => {
  const { reason, note } = parseInput(Note, await readJson(c));
  return c.json(await terminateContract(d, c.req.param("id"), reason ?? note));
});

/**
 * GET /contracts/{id}/statement (query `month` `YYYY-MM`, `format=csv`): the monthly statement.
 * @returns 200 with the statement as JSON, or as a CSV download
 * @throws AppError for a bad month or an unknown contract ({@link buildStatement})
 */
const statement = route("get", "/contracts/:id/statement", async (d, c) => {
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
});

/**
 * GET /usage (query `month`, `integratorId`, `contractId`, `keyId`, `format=csv`): usage counters.
 * @returns 200 `{ items, total }`, or CSV
 * @throws AppError for a bad month
 */
const usage = route("get", "/usage", async (d, c) => {
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
});

/**
 * GET /notices (query `kind`, `subjectId`): the e-mail notices.
 * @returns 200 `{ items }`
 */
const notices = route("get", "/notices", async (d, c) => {
  const kind = c.req.query("kind"), subjectId = c.req.query("subjectId");
  const items = await d.store.listNotices({
    ...(kind ? { kind } : {}),
    ...(subjectId ? { subjectId } : {}),
  });
  return c.json({ items });
});

/**
 * Routes for applications, contracts, usage and notices (mount at `/admin/v1`).
 * @param d store, clock, random, usage flush
 * @returns a Hono app
 */
export function adminContractRoutes(d: AdminContractDeps): Hono {
  return addRoutes(new Hono(), d, [
    listApplications,
    approve,
    reject,
    listContracts,
    getContract,
    terminate,
    statement,
    usage,
    notices,
  ]);
}
