/**
 * `admin integrators …` and `admin keys …` (docs/token-service.md § Access phases): the same
 * operations as `/admin/v1/integrators` and `/admin/v1/keys`.
 * @module
 */
import { type Command, Option } from "commander";
import type { Cli } from "./context.ts";
import type { KeyMode } from "../contract/mod.ts";
import { adminAction, eikOption, integratorOption } from "./admin_action.ts";
import { adminGroup } from "./admin_group.ts";
import { collect, countArg, textArg } from "./options.ts";

const localeOption = () =>
  new Option("--locale <locale>", "language of the e-mail notices").choices(["bg", "en"]);
const originOption = () =>
  new Option("--origin <url>", "a web page origin of the integrator (repeatable)")
    .argParser(collect);

function integrators(cli: Cli): Command {
  const { group, one, onItem } = adminGroup(cli, "integrators", "the integrators (key owners)", {
    item: "integrator",
    show: async ({ d, m }, id) => m.integratorView(await m.requireIntegrator(d, id)),
    list: {
      description: "every integrator",
      columns: ["id", "name", "email", "locale", "allowedOrigins", "createdAt"],
      byIntegrator: false,
      items: async ({ d, m }) => (await d.store.listIntegrators()).map(m.integratorView),
    },
  });
  adminAction(
    cli,
    group.command("create").description("add an integrator")
      .addOption(new Option("--name <name>", "its name").argParser(textArg).makeOptionMandatory())
      .addOption(new Option("--id <id>", "its id (default: generated)").argParser(textArg))
      .option("--email <email>", "where notices go")
      .addOption(localeOption())
      .addOption(originOption()),
    // The schema keeps its own fields of the options (id, name, email, locale).
    ({ d, m, o }) =>
      m.createIntegrator(d, m.parseInput(m.IntegratorCreate, { ...o, allowedOrigins: o.origin })),
  );
  onItem(
    one("update", "change an integrator")
      .addOption(new Option("--name <name>", "its name").argParser(textArg))
      .option("--email <email>", "where notices go")
      .addOption(localeOption())
      .addOption(originOption()),
    ({ d, m, o }, id) =>
      m.updateIntegrator(
        d,
        id,
        m.parseInput(m.IntegratorUpdate, {
          name: o.name,
          email: o.email,
          locale: o.locale,
          allowedOrigins: o.origin,
        }),
      ),
  );
  return group;
}

function keys(cli: Cli): Command {
  const { group, one, onItem } = adminGroup(cli, "keys", "API keys of every integrator", {
    item: "key",
    show: async ({ d, m }, id) => m.keyView(d, await m.requireKey(d, id)),
    list: {
      description: "the keys, with their phase and status now",
      columns: [
        "id",
        "integratorId",
        "mode",
        "status",
        "phase",
        "label",
        "expiresAt",
        "allowedEiks",
      ],
      items: async ({ d, m }, filter) =>
        Promise.all((await d.store.listKeys(filter)).map((k) => m.keyView(d, k))),
    },
  });
  adminAction(
    cli,
    group.command("create").description("a new key; its secret is printed once")
      .addOption(integratorOption("the owning integrator").makeOptionMandatory())
      .addOption(
        new Option("--mode <mode>", "test or live").choices(["test", "live"] satisfies KeyMode[])
          .makeOptionMandatory(),
      )
      .option("--label <text>", "a note shown in listings")
      .addOption(eikOption("allow only this EIK (repeatable; default: any)")),
    // The schema keeps its own fields of the options (mode, label).
    ({ d, m, o }) =>
      m.createKeyFor(
        d,
        m.parseInput(m.KeyCreate, { ...o, integratorId: o.integrator, allowedEiks: o.eik }),
      ),
  );
  onItem(
    one("revoke", "revoke a key now"),
    ({ d, m }, id) => m.revokeKeyNow(d, id),
  );
  onItem(
    one("rotate", "a new secret; the old one works for a grace time")
      .addOption(
        new Option("--grace-seconds <n>", "how long the old secret keeps working")
          .argParser(countArg),
      ),
    ({ d, m, o }, id) => {
      const { graceSeconds } = m.parseInput(m.KeyRotate, { graceSeconds: o.graceSeconds });
      return m.rotateKeyNow(d, id, graceSeconds);
    },
  );
  onItem(
    one("allow", "restrict a key to EIKs, or allow any")
      .addOption(eikOption("an allowed EIK (repeatable)").conflicts("any"))
      .option("--any", "allow any EIK"),
    ({ d, m, o, cmd }, id) => {
      if (!o.any && !o.eik?.length) {
        cmd.error("error: keys allow needs --eik EIK... or --any", { exitCode: 2 });
      }
      const { allowedEiks } = m.parseInput(m.AllowedEiks, { allowedEiks: o.any ? null : o.eik });
      return m.setKeyAllowedEiks(d, id, allowedEiks);
    },
  );
  return group;
}

/**
 * The `integrators` and `keys` groups of `admin`.
 * @param cli the run's context
 * @returns the commands
 */
export function adminKeyCommands(cli: Cli): Command[] {
  return [integrators(cli), keys(cli)];
}
