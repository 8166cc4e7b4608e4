/**
 * `admin applications …` and `admin contracts …` (docs/token-service.md § Access phases, phases
 * 2–3; monthly billing): the same operations as `/admin/v1/applications` and
 * `/admin/v1/contracts`, statements included.
 * @module
 */
import { Command, Option } from "commander";
import type { ApplicationStatus } from "../token/mod.ts";
import type { Cli } from "./context.ts";
import {
  adminAction,
  adminList,
  formatOption,
  idArgument,
  integratorOption,
  monthOption,
} from "./admin_action.ts";
import { textArg } from "./options.ts";

function applications(cli: Cli): Command {
  const group = new Command("applications").description("applications for a contract");
  const appId = idArgument("application");
  adminList(cli, group, {
    description: "the applications",
    columns: ["id", "integratorId", "company", "status", "submittedAt", "contractId"],
    empty: "No applications.",
    options: [
      new Option("--status <status>", "only these").choices(["pending", "approved", "rejected"]),
    ],
    items: async ({ d, m, o }, filter) =>
      (await d.store.listApplications({
        ...(o.status ? { status: o.status as ApplicationStatus } : {}),
        ...filter,
      })).map(m.applicationView),
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
  adminAction(
    cli,
    appId(group.command("approve").description("approve: a contract starts now"))
      .addOption(
        new Option("--ends-at <iso>", "when the contract ends").argParser(textArg)
          .conflicts("openEnded"),
      )
      .option("--open-ended", "the contract has no end")
      .option("--note <text>", "a note kept with the decision"),
    ({ d, m, o, args }) => {
      const input = m.parseInput(m.ApplicationApprove, {
        endsAt: o.openEnded ? null : o.endsAt,
        note: o.note,
      });
      const endsAt = input.endsAt === undefined
        ? undefined
        : input.endsAt === null
        ? null
        : Date.parse(input.endsAt);
      // non-null: <id> is a required argument (commander refuses the command without it)
      return m.approveApplication(d, args[0]!, { endsAt, note: input.note });
    },
  );
  adminAction(
    cli,
    appId(group.command("reject").description("reject an application"))
      .option("--note <text>", "a note kept with the decision"),
    async ({ d, m, o, args }) =>
      // non-null: <id> is a required argument (commander refuses the command without it)
      m.applicationView(await m.rejectApplication(d, args[0]!, o.note ?? null)),
  );
  return group;
}

function contracts(cli: Cli): Command {
  const group = new Command("contracts").description("contracts and their monthly statements");
  const ctrId = idArgument("contract");
  adminList(cli, group, {
    description: "the contracts, with their status now",
    columns: ["id", "integratorId", "company", "status", "startsAt", "endsAt"],
    empty: "No contracts.",
    items: async ({ d, m }, filter) => {
      const now = d.clock.now();
      return (await d.store.listContracts(filter)).map((c) => m.contractView(c, now));
    },
  });
  adminAction(
    cli,
    ctrId(group.command("show").description("one contract")),
    async ({ d, m, args }) => {
      // non-null: <id> is a required argument (commander refuses the command without it)
      const c = await d.store.getContract(args[0]!);
      if (!c) {
        const { AppError } = await import("../contract/mod.ts");
        throw new AppError("NOT_FOUND", `No contract "${args[0]}"`);
      }
      return m.contractView(c, d.clock.now());
    },
  );
  adminAction(
    cli,
    ctrId(group.command("terminate").description("end a contract now; its live keys follow"))
      .option("--reason <text>", "why (sent in the notice)"),
    // non-null: <id> is a required argument (commander refuses the command without it)
    ({ d, m, o, args }) => m.terminateContract(d, args[0]!, o.reason ?? null),
  );
  adminAction(
    cli,
    ctrId(group.command("statement").description("the tokens of one month under the contract"))
      .addOption(monthOption("the month").makeOptionMandatory())
      .addOption(formatOption()),
    async ({ d, m, o, args }) => {
      // non-null: <id> is a required argument (commander refuses the command without it)
      const s = await m.buildStatement(d.store, args[0]!, m.requireMonth(o.month));
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
