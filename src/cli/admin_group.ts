/**
 * One admin resource's group of commands (`admin integrators`, `keys`, `applications`,
 * `contracts`), built the same way for each from its description ({@link AdminResource}): the
 * group, its `list`, `show <id>`, and the group's own commands on one item.
 * @module
 */
import { Command, type Option } from "commander";
import type { IntegratorFilter } from "../token/mod.ts";
import type { Cli } from "./context.ts";
import { adminAction, type AdminCall, integratorOption, listOf } from "./admin_action.ts";

/** What a group's `list` command shows. */
export interface AdminListSpec {
  /** The command's description. */
  readonly description: string;
  /** The fields people see as columns (an empty list is the line `No <group>.`). */
  readonly columns: readonly string[];
  /** Options of its own, declared before `--integrator`. */
  readonly options?: readonly Option[];
  /** Whether `--integrator` filters the list (default true; not for the integrators). */
  readonly byIntegrator?: false;
  /** The items of the answer `{items}` (`filter` comes from `--integrator`). */
  readonly items: (call: AdminCall, filter: IntegratorFilter) => Promise<readonly unknown[]>;
}

/** What one admin resource's group is made of. */
export interface AdminResource {
  /** What an id names: `<id>` is the "`item` id", `show` shows "one `item`". */
  readonly item: string;
  /** `show <id>`: the document of one item (none: no `show`). */
  readonly show?: (call: AdminCall, id: string) => Promise<unknown>;
  /** `list`: the items, a table for people. */
  readonly list: AdminListSpec;
}

/** A group being built: the group, and how its commands on one item are made. */
export interface AdminGroup {
  readonly group: Command;
  /**
   * A new command of the group on one item: `name <id>` (make it an action with `onItem`).
   * @param name the command's name
   * @param description its description
   */
  one(name: string, description: string): Command;
  /**
   * Make a command made by {@link AdminGroup.one} an admin action whose `run` gets the `<id>`.
   * @param cmd the command, with its own options
   * @param run what it does, with the admin call and the item's id
   * @returns the command
   */
  onItem(cmd: Command, run: (call: AdminCall, id: string) => Promise<unknown>): Command;
}

/**
 * Build a resource's group: `name` with its `list` and, when described, `show <id>`; the caller
 * adds the group's own commands after them.
 * @param cli the run's context
 * @param name the group's name (`keys`) and description
 * @param description what the group is about
 * @param resource the item's name, `show` and `list`
 * @returns the group and the maker of its commands on one item
 */
export function adminGroup(
  cli: Cli,
  name: string,
  description: string,
  resource: AdminResource,
): AdminGroup {
  const group = new Command(name).description(description);
  const one = (command: string, what: string) =>
    group.command(command).description(what).argument("<id>", `${resource.item} id`);
  const onItem = (cmd: Command, run: (call: AdminCall, id: string) => Promise<unknown>) =>
    // non-null: <id> is a required argument (commander refuses the command without it)
    adminAction(cli, cmd, (call) => run(call, call.args[0]!));
  adminList(cli, group, resource.list);
  if (resource.show) onItem(one("show", `one ${resource.item}`), resource.show);
  return { group, one, onItem };
}

/**
 * Add a group's `list` command: `--integrator` filters (unless `byIntegrator` is false), the
 * answer is `{items}`, people see a table of `spec.columns`, or `No <group>.`.
 * @param cli the run's context
 * @param group the group (`integrators`, `keys`, `applications`, `contracts`)
 * @param spec what it lists
 * @returns the `list` command
 */
function adminList(cli: Cli, group: Command, spec: AdminListSpec): Command {
  const cmd = group.command("list").description(spec.description);
  for (const option of spec.options ?? []) cmd.addOption(option);
  if (spec.byIntegrator !== false) cmd.addOption(integratorOption());
  return adminAction(
    cli,
    cmd,
    async (call) => {
      const filter: IntegratorFilter = call.o.integrator ? { integratorId: call.o.integrator } : {};
      return { items: await spec.items(call, filter) };
    },
    listOf(spec.columns, `No ${group.name()}.`),
  );
}
