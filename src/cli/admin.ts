/**
 * `admin …`: the operations of the token service's admin API (docs/token-service.md
 * § Access phases) run directly on its database (SVC_DATABASE_URL, or SQLite in the data
 * directory): integrators, keys, applications, contracts, statements, usage. Text for people by
 * default; `--json` prints the admin API's JSON document (and a failure as its one-line error JSON
 * on standard error); `--format csv` for statements and usage. A new key's secret is printed once.
 * @module
 */
import { Command, Option } from "commander";
import type { Cli } from "./context.ts";
import { adminAction, formatOption, integratorOption, monthOption } from "./admin_action.ts";
import { adminContractCommands } from "./admin_contracts.ts";
import { adminKeyCommands } from "./admin_keys.ts";
import { textArg } from "./options.ts";
import { renderTable } from "./output.ts";

function usageCommand(cli: Cli): Command {
  const cmd = new Command("usage")
    .description("tokens issued per month, integrator, contract, key, typeId and EIK")
    .addOption(monthOption("only this month"))
    .addOption(integratorOption())
    .addOption(new Option("--contract <id>", "only this contract's").argParser(textArg))
    .addOption(new Option("--key <id>", "only this key's").argParser(textArg))
    .addOption(formatOption());
  return adminAction(cli, cmd, async ({ d, m, o }) => {
    const rows = await d.store.listBillingCounts({
      ...(o.month ? { month: o.month } : {}),
      ...(o.integrator ? { integratorId: o.integrator } : {}),
      ...(o.contract ? { contractId: o.contract } : {}),
      ...(o.key ? { keyId: o.key } : {}),
    });
    if (o.format === "csv") return m.usageCsv(rows);
    const doc = { items: rows, total: rows.reduce((s, r) => s + r.count, 0) };
    if (o.format === "json") return JSON.stringify(doc, null, 2);
    return doc;
  }, (r) => {
    const { items, total } = r as { items: Record<string, unknown>[]; total: number };
    if (!items.length) return "No usage recorded.";
    const columns = ["month", "integratorId", "contractId", "keyId", "mode", "typeId", "eik"];
    return `${renderTable(items, [...columns, "count"])}\nTotal: ${total} token(s)`;
  });
}

/**
 * The `admin` command group.
 * @param cli the run's context
 * @returns the command
 */
export function adminCommand(cli: Cli): Command {
  const admin = new Command("admin")
    .summary("integrators, keys, applications, contracts, statements, usage (token service)")
    .description(
      "The admin API's operations run directly on the token service's database " +
        "(SVC_DATABASE_URL, or SQLite in the data directory). Text by default; --json prints " +
        "the admin API's JSON.",
    );
  for (const c of adminKeyCommands(cli)) admin.addCommand(c);
  for (const c of adminContractCommands(cli)) admin.addCommand(c);
  admin.addCommand(usageCommand(cli));
  return admin;
}
