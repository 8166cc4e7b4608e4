/**
 * The admin CLI's `applications`, `contracts` and `usage` groups (interface-spec.md § Access
 * phases, phases 2–3; monthly billing). Called by `runAdminCli` in `cli.ts`.
 * @module
 */
import { type AdminDeps, requireIntegrator } from "./admin/admin_keys.ts";
import { ApplicationApprove, ApplicationSubmit, parseInput } from "./admin/admin_schemas.ts";
import { type CliValues, needId, UsageError } from "./cli_args.ts";
import {
  applicationView,
  approveApplication,
  contractView,
  rejectApplication,
  submitApplication,
  terminateContract,
} from "./contracts.ts";
import { AppError } from "../contract/errors.ts";
import type { ApplicationStatus } from "./store/records.ts";
import { buildStatement, requireMonth, statementCsv, usageCsv } from "./statement.ts";

async function applications(d: AdminDeps, cmd: string, pos: string[], v: CliValues) {
  switch (cmd) {
    case "list": {
      if (v.status && !["pending", "approved", "rejected"].includes(v.status)) {
        throw new UsageError("--status must be pending, approved or rejected");
      }
      const items = await d.store.listApplications({
        ...(v.status ? { status: v.status as ApplicationStatus } : {}),
        ...(v.integrator ? { integratorId: v.integrator } : {}),
      });
      return { items: items.map(applicationView) };
    }
    case "submit": {
      if (!v.integrator) throw new UsageError("applications submit needs --integrator");
      await requireIntegrator(d, v.integrator);
      const input = parseInput(ApplicationSubmit, {
        company: v.company,
        contactEmail: v.email,
        intendedUse: v.use,
      });
      return applicationView(await submitApplication(d, v.integrator, input));
    }
    case "approve": {
      const input = parseInput(ApplicationApprove, {
        endsAt: v["open-ended"] ? null : v["ends-at"],
        note: v.note,
      });
      const endsAt = input.endsAt === undefined
        ? undefined
        : input.endsAt === null
        ? null
        : Date.parse(input.endsAt);
      return approveApplication(d, needId(pos, "application"), { endsAt, note: input.note });
    }
    case "reject":
      return applicationView(
        await rejectApplication(d, needId(pos, "application"), v.note ?? null),
      );
  }
  throw new UsageError(`Unknown command "applications ${cmd}"`);
}

async function contracts(d: AdminDeps, cmd: string, pos: string[], v: CliValues) {
  const now = d.clock.now();
  switch (cmd) {
    case "list": {
      const items = await d.store.listContracts(v.integrator ? { integratorId: v.integrator } : {});
      return { items: items.map((c) => contractView(c, now)) };
    }
    case "show": {
      const id = needId(pos, "contract");
      const c = await d.store.getContract(id);
      if (!c) throw new AppError("NOT_FOUND", `No contract "${id}"`);
      return contractView(c, now);
    }
    case "terminate":
      return terminateContract(d, needId(pos, "contract"), v.reason ?? null);
    case "statement": {
      const s = await buildStatement(d.store, needId(pos, "contract"), requireMonth(v.month));
      return v.format === "csv" ? statementCsv(s) : s;
    }
  }
  throw new UsageError(`Unknown command "contracts ${cmd}"`);
}

/**
 * Run an `applications`, `contracts` or `usage` command.
 * @param d store, clock, random
 * @param group the group
 * @param cmd the command ("" for `usage`)
 * @param pos positionals after the command
 * @param v parsed options
 * @returns the result to print (an object as JSON, a string as is)
 * @throws UsageError for a wrong command line; AppError NOT_FOUND, CONFLICT, VALIDATION_FAILED
 */
export async function runContractCli(
  d: AdminDeps,
  group: string,
  cmd: string,
  pos: string[],
  v: CliValues,
): Promise<unknown> {
  if (group === "applications") return await applications(d, cmd, pos, v);
  if (group === "contracts") return await contracts(d, cmd, pos, v);
  if (v.month !== undefined) requireMonth(v.month);
  const rows = await d.store.listUsage({
    ...(v.month ? { month: v.month } : {}),
    ...(v.integrator ? { integratorId: v.integrator } : {}),
    ...(v.contract ? { contractId: v.contract } : {}),
    ...(v.key ? { keyId: v.key } : {}),
  });
  if (v.format === "csv") return usageCsv(rows);
  return { items: rows, total: rows.reduce((s, r) => s + r.count, 0) };
}
