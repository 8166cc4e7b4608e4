/**
 * `admin applications …` and `admin contracts …` (docs/token-service.md § Access phases, phases
 * 2–3; monthly billing): the same operations as `/admin/v1/applications` and
 * `/admin/v1/contracts`, statements included.
 * @module
 */
import { type Command, Option } from "commander";
import type { ApplicationStatus } from "../token/mod.ts";
import type { Cli } from "./context.ts";
import { adminAction, formatOption, integratorOption, monthOption } from "./admin_action.ts";
import { adminGroup } from "./admin_group.ts";
import { textArg } from "./options.ts";

function applications(cli: Cli): Command {
  const { group, one, onItem } = adminGroup(cli, "applications", "applications for a contract", {
    item: "application",
    list: {
      description: "the applications",
      columns: ["id", "integratorId", "company", "status", "submittedAt", "contractId"],
      options: [
        new Option("--status <status>", "only these").choices(["pending", "approved", "rejected"]),
      ],
      items: ({ d, m, o }, filter) =>
        m.applicationViews(d, {
          ...(o.status ? { status: o.status as ApplicationStatus } : {}),
          ...filter,
        }),
    },
  });
  adminAction(
    cli,
    group.command("submit").description("submit an application in an integrator's name")
      .addOption(integratorOption("the applying integrator").makeOptionMandatory())
      .option("--company <name>", "the company")
      .option("--email <email>", "the contact e-mail")
      .option("--use <text>", "the intended use"),
    async ({ d, m, o }) => {
      // non-null: --integrator is a mandatory option (commander refuses the command without it)
      await m.requireIntegrator(d, o.integrator!);
      const input = m.parseInput(m.ApplicationSubmit, {
        company: o.company,
        contactEmail: o.email,
        intendedUse: o.use,
      });
      // non-null: --integrator is a mandatory option (commander refuses the command without it)
      return m.applicationView(await m.submitApplication(d, o.integrator!, input));
    },
  );
  onItem(
    one("approve", "approve: a contract starts now")
      .addOption(
        new Option("--ends-at <iso>", "when the contract ends").argParser(textArg)
          .conflicts("openEnded"),
      )
      .option("--open-ended", "the contract has no end")
      .option("--note <text>", "a note kept with the decision"),
    ({ d, m, o }, id) => {
      const input = m.parseInput(m.ApplicationApprove, {
        endsAt: o.openEnded ? null : o.endsAt,
        note: o.note,
      });
      return m.approveApplication(d, id, m.approvalTerms(input));
    },
  );
  onItem(
    one("reject", "reject an application")
      .option("--note <text>", "a note kept with the decision"),
    async ({ d, m, o }, id) => m.applicationView(await m.rejectApplication(d, id, o.note ?? null)),
  );
  return group;
}

function contracts(cli: Cli): Command {
  const { group, one, onItem } = adminGroup(
    cli,
    "contracts",
    "contracts and their monthly statements",
    {
      item: "contract",
      show: ({ d, m }, id) => m.contractNow(d, id),
      list: {
        description: "the contracts, with their status now",
        columns: ["id", "integratorId", "company", "status", "startsAt", "endsAt"],
        items: ({ d, m }, filter) => m.contractViews(d, filter),
      },
    },
  );
  onItem(
    one("terminate", "end a contract now; its live keys follow")
      .option("--reason <text>", "why (sent in the notice)"),
    ({ d, m, o }, id) => m.terminateContract(d, id, o.reason ?? null),
  );
  onItem(
    one("statement", "the tokens of one month under the contract")
      .addOption(monthOption("the month").makeOptionMandatory())
      .addOption(formatOption()),
    async ({ d, m, o }, id) => {
      const s = await m.buildStatement(d.store, id, m.requireMonth(o.month));
      if (o.format === "csv") return m.statementCsv(s);
      return o.format === "json" ? JSON.stringify(s, null, 2) : s;
    },
  );
  return group;
}

/**
 * The `applications` and `contracts` groups of `admin`.
 * @param cli the run's context
 * @returns the commands
 */
export function adminContractCommands(cli: Cli): Command[] {
  return [applications(cli), contracts(cli)];
}
