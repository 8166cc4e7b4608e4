/**
 * `keys create`: a new API key in the token service's database (README § Tokens). The secret
 * is printed once on standard output (the key id and expiry on standard error), or both in one
 * JSON document with `--json`.
 * @module
 */
import { Command, Option } from "commander";
import type { Cli } from "./context.ts";
import { collect, dataDirOf, dataDirOption, jsonOption, textArg } from "./options.ts";
import { note, printJson, say } from "./output.ts";
import { withTokenStore } from "./command_token_store.ts";
import type { KeyMode } from "../contract/mod.ts";

interface CreateFlags {
  mode: KeyMode;
  eik?: string[];
  origin?: string[];
  integrator?: string;
  label?: string;
  json?: boolean;
}

async function create(cli: Cli, cmd: Command): Promise<void> {
  const o = cmd.opts<CreateFlags>();
  const badEik = (o.eik ?? []).filter((x) => !/^[0-9]{9,13}$/.test(x));
  if (badEik.length) {
    cmd.error(`error: --eik must be 9 to 13 digits: ${badEik.join(", ")}`, { exitCode: 2 });
  }
  const { createApiKey, httpOrigin } = await import("../token/mod.ts");
  const badOrigin = (o.origin ?? []).filter((x) => httpOrigin(x) === null);
  if (badOrigin.length) {
    const want = "an http(s) origin such as https://app.example.com (no path)";
    cmd.error(`error: --origin must be ${want}: ${badOrigin.join(", ")}`, { exitCode: 2 });
  }
  const { secret, record } = await withTokenStore(
    cli,
    dataDirOf(cli, cmd),
    (store) =>
      createApiKey(store, {
        mode: o.mode,
        now: cli.clock.now(),
        integratorId: o.integrator,
        label: o.label ?? null,
        allowedEiks: o.eik?.length ? o.eik : null,
        allowedOrigins: o.origin?.length ? o.origin : null,
      }),
  );
  const expiresAt = record.expiresAt ? new Date(record.expiresAt).toISOString() : null;
  if (o.json) {
    printJson(cli, {
      secret,
      keyId: record.id,
      mode: o.mode,
      integratorId: record.integratorId,
      expiresAt,
    });
    return;
  }
  say(cli, secret);
  note(
    cli,
    `Key ${record.id} (${o.mode}) created; expires ${
      expiresAt ?? "never"
    }. The secret above is shown once.`,
  );
}

/**
 * The `keys` command group.
 * @param cli the run's context
 * @returns the command
 */
export function keysCommand(cli: Cli): Command {
  const keys = new Command("keys").summary("create API keys in the token service's database")
    .description("API keys of the token service (the admin API and `admin keys` manage them).");
  keys.command("create")
    .summary("create an API key (the secret is printed once)")
    .description(
      "Create an API key: svc_test_… (test portal, 90 days) or svc_live_…. The secret goes to " +
        "standard output once; the database keeps only its SHA-256.",
    )
    .addOption(
      new Option("--mode <mode>", "test or live").choices(["test", "live"] satisfies KeyMode[])
        .makeOptionMandatory(),
    )
    .addOption(
      new Option("--eik <eik>", "allow only this EIK (repeatable; default: any)")
        .argParser(collect),
    )
    .addOption(
      new Option("--origin <url>", "web page origin bound to the key (repeatable)")
        .argParser(collect),
    )
    .addOption(
      new Option("--integrator <id>", "owning integrator (default: the default integrator)")
        .argParser(textArg),
    )
    .option("--label <text>", "a note shown in admin listings")
    .addOption(dataDirOption())
    .addOption(jsonOption("print {secret, keyId, mode, integratorId, expiresAt} as JSON"))
    .action((_o, cmd: Command) => create(cli, cmd));
  return keys;
}
