/**
 * Admin HTTP API, part 2, under `/admin/v1` (interface-spec.md § Access phases, phases 2–3):
 * applications (approve, reject), contracts (list, terminate, monthly statement as JSON or CSV),
 * usage counters and notices (signing keys: admin_signing_routes.ts).
 * @module
 */
import { Hono } from "hono";
import type { AdminDeps } from "./admin_keys.ts";
import { ApplicationApprove, Note, parseInput } from "./admin_schemas.ts";
import { readJson } from "./admin_routes.ts";
import {
  applicationView,
  approveApplication,
  contractView,
  rejectApplication,
  terminateContract,
} from "../contracts.ts";
import { AppError } from "../../contract/mod.ts";
import type { ApplicationStatus } from "../store/mod.ts";
import { buildStatement, requireMonth, statementCsv, usageCsv } from "../statement.ts";

/** Extra dependencies of the contract routes. */
export interface AdminContractDeps extends AdminDeps {
  /** Write buffered usage counters before reading them. */
  readonly flushUsage?: () => Promise<void>;
}

const STATUSES = new Set(["pending", "approved", "rejected"]);

/**
 * Routes for applications, contracts, usage and notices (mount at `/admin/v1`).
 * @param d store, clock, random, usage flush
 * @returns a Hono app
 */
export function adminContractRoutes(d: AdminContractDeps): Hono {
  const r = new Hono();

  r.get("/applications", async (c) => {
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
  });
  r.post("/applications/:id/approve", async (c) => {
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
  });
  r.post("/applications/:id/reject", async (c) => {
    const { note, reason } = parseInput(Note, await readJson(c));
    const app = await rejectApplication(d, c.req.param("id"), note ?? reason);
    return c.json(applicationView(app));
  });

  r.get("/contracts", async (c) => {
    const integratorId = c.req.query("integratorId");
    const now = d.clock.now();
    const items = await d.store.listContracts(integratorId ? { integratorId } : {});
    return c.json({ items: items.map((k) => contractView(k, now)) });
  });
  r.get("/contracts/:id", async (c) => {
    const k = await d.store.getContract(c.req.param("id"));
    if (!k) throw new AppError("NOT_FOUND", `No contract "${c.req.param("id")}"`);
    return c.json(contractView(k, d.clock.now()));
  });
  r.post("/contracts/:id/terminate", async (c) => {
    const { reason, note } = parseInput(Note, await readJson(c));
    return c.json(await terminateContract(d, c.req.param("id"), reason ?? note));
  });
  r.get("/contracts/:id/statement", async (c) => {
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

  r.get("/usage", async (c) => {
    const q = c.req.query();
    if (q.month !== undefined) requireMonth(q.month);
    await d.flushUsage?.();
    const rows = await d.store.listUsage({
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

  r.get("/notices", async (c) => {
    const kind = c.req.query("kind"), subjectId = c.req.query("subjectId");
    const items = await d.store.listNotices({
      ...(kind ? { kind } : {}),
      ...(subjectId ? { subjectId } : {}),
    });
    return c.json({ items });
  });
  return r;
}
