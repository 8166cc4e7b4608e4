/**
 * The admin CLI (`main.ts admin …`): the same operations as the admin HTTP API
 * (interface-spec.md § Access phases) on the configured database, JSON on stdout (CSV for
 * statements and usage with `--format csv`). A new key's secret is printed once, inside the JSON
 * of `keys create` / `keys rotate`, and nowhere else.
 *
 * Exit codes: 0 ok, 1 the operation failed (NOT_FOUND, CONFLICT, …), 2 usage error.
 * @module
 */
import type { Clock } from "../clock.ts";
import { isAppError } from "../contract/errors.ts";
import {
  type AdminDeps,
  createIntegrator,
  createKeyFor,
  integratorView,
  keyView,
  requireIntegrator,
  requireKey,
  revokeKeyNow,
  rotateKeyNow,
  setKeyAllowedEiks,
  updateIntegrator,
} from "./admin/admin_keys.ts";
import {
  AllowedEiks,
  IntegratorCreate,
  IntegratorUpdate,
  KeyCreate,
  KeyRotate,
  parseInput,
} from "./admin/admin_schemas.ts";
import type { RandomBytes } from "./api_keys.ts";
import { type CliValues, needId, parseCliArgs, UsageError } from "./cli_args.ts";
import { runContractCli } from "./cli_contracts.ts";
import type { TokenStore } from "./store/store.ts";

/** Dependencies of {@link runAdminCli}. */
export interface AdminCliDeps {
  readonly store: TokenStore;
  readonly clock: Clock;
  /** stdout (one call per document). */
  readonly out: (text: string) => void;
  /** stderr. */
  readonly err: (text: string) => void;
  readonly random?: RandomBytes;
}

/** The CLI's help text. */
export const ADMIN_USAGE = `Usage: main.ts admin <group> <command> [options]

  integrators list | show <id> | create --name N [--id ID] [--email E] [--locale bg|en]
              [--origin URL]... | update <id> [--name N] [--email E] [--locale bg|en]
  keys        list [--integrator ID] | show <id> | revoke <id>
              create --integrator ID --mode test|live [--label L] [--eik EIK]...
              rotate <id> [--grace-seconds N] | allow <id> (--eik EIK... | --any)
  applications list [--status pending|approved|rejected] [--integrator ID]
              submit --integrator ID --company C --email E --use TEXT
              approve <id> [--ends-at ISO | --open-ended] [--note N] | reject <id> [--note N]
  contracts   list [--integrator ID] | show <id> | terminate <id> [--reason R]
              statement <id> --month YYYY-MM [--format json|csv]
  usage       [--month YYYY-MM] [--integrator ID] [--contract ID] [--key ID] [--format json|csv]

Database: SVC_DATABASE_URL (postgres://…) or SQLite in SVC_DATA_DIR / --data-dir.`;

const json = (v: unknown) => JSON.stringify(v, null, 2);

async function integrators(d: AdminDeps, cmd: string, pos: string[], v: CliValues) {
  switch (cmd) {
    case "list":
      return { items: (await d.store.listIntegrators()).map(integratorView) };
    case "show":
      return integratorView(await requireIntegrator(d, needId(pos, "integrator")));
    case "create":
      return createIntegrator(
        d,
        parseInput(IntegratorCreate, {
          id: v.id,
          name: v.name,
          email: v.email,
          locale: v.locale,
          allowedOrigins: v.origin,
        }),
      );
    case "update":
      return updateIntegrator(
        d,
        needId(pos, "integrator"),
        parseInput(IntegratorUpdate, {
          name: v.name,
          email: v.email,
          locale: v.locale,
          allowedOrigins: v.origin,
        }),
      );
  }
  throw new UsageError(`Unknown command "integrators ${cmd}"`);
}

async function keys(d: AdminDeps, cmd: string, pos: string[], v: CliValues) {
  switch (cmd) {
    case "list": {
      const list = await d.store.listKeys(v.integrator ? { integratorId: v.integrator } : {});
      return { items: await Promise.all(list.map((k) => keyView(d, k))) };
    }
    case "show":
      return keyView(d, await requireKey(d, needId(pos, "key")));
    case "create":
      return createKeyFor(
        d,
        parseInput(KeyCreate, {
          integratorId: v.integrator,
          mode: v.mode,
          label: v.label,
          allowedEiks: v.eik,
        }),
      );
    case "revoke":
      return revokeKeyNow(d, needId(pos, "key"));
    case "rotate": {
      const g = v["grace-seconds"];
      const { graceSeconds } = parseInput(KeyRotate, {
        graceSeconds: g === undefined ? undefined : Number(g),
      });
      return rotateKeyNow(d, needId(pos, "key"), graceSeconds);
    }
    case "allow": {
      if (!v.any && !v.eik?.length) throw new UsageError("keys allow needs --eik EIK... or --any");
      const { allowedEiks } = parseInput(AllowedEiks, { allowedEiks: v.any ? null : v.eik });
      return setKeyAllowedEiks(d, needId(pos, "key"), allowedEiks);
    }
  }
  throw new UsageError(`Unknown command "keys ${cmd}"`);
}

/**
 * Run one admin CLI command.
 * @param args arguments after `admin`, e.g. `["keys", "revoke", "key_…"]`
 * @param deps store, clock, output sinks, random source
 * @returns the exit code: 0 ok, 1 operation failed, 2 usage error
 */
export async function runAdminCli(args: string[], deps: AdminCliDeps): Promise<number> {
  const d: AdminDeps = { store: deps.store, clock: deps.clock, random: deps.random };
  try {
    const [group, ...rest] = args;
    if (!group || group === "help" || group === "--help") {
      deps.out(ADMIN_USAGE);
      return group ? 0 : 2;
    }
    const { values, positionals } = parseCliArgs(rest);
    const [cmd = "", ...pos] = group === "usage" ? ["", ...positionals] : positionals;
    let result: unknown;
    if (group === "integrators") result = await integrators(d, cmd, pos, values);
    else if (group === "keys") result = await keys(d, cmd, pos, values);
    else if (["applications", "contracts", "usage"].includes(group)) {
      result = await runContractCli(d, group, cmd, pos, values);
    } else throw new UsageError(`Unknown group "${group}"`);
    deps.out(typeof result === "string" ? result : json(result));
    return 0;
  } catch (e) {
    if (isAppError(e)) {
      deps.err(json({ error: e.message, errorCode: e.code, ...(e.details ?? {}) }));
      return 1;
    }
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      deps.err(`${(e as Error).message}\n\n${ADMIN_USAGE}`);
      return 2;
    }
    deps.err(`admin: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}
