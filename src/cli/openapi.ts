/**
 * `openapi`: print the OpenAPI 3.0.3 document of the agent, of the token service's public API or
 * of its admin API, generated from the contract and the admin schemas (`deno task openapi`).
 * @module
 */
import { Command, Option } from "commander";
import { VERSION } from "../version.ts";
import type { Cli } from "./context.ts";
import { printJson } from "./output.ts";

/** Whose document: the agent's, the token service's public API, its admin API (`/admin/v1`). */
type Service = "agent" | "token" | "admin";

async function build(service: Service): Promise<Record<string, unknown>> {
  if (service === "admin") {
    const { buildAdminOpenApi } = await import("../token/admin/mod.ts");
    return buildAdminOpenApi(VERSION);
  }
  const { buildAgentOpenApi, buildTokenOpenApi } = await import("../contract/openapi/mod.ts");
  return service === "token" ? buildTokenOpenApi(VERSION) : buildAgentOpenApi(VERSION);
}

/**
 * The `openapi` command.
 * @param cli the run's context
 * @returns the command
 */
export function openapiCommand(cli: Cli): Command {
  return new Command("openapi")
    .summary(
      "print the OpenAPI 3.0.3 document (JSON) of the agent, the token service or its admin API",
    )
    .description(
      "Print the OpenAPI 3.0.3 document (JSON), generated from the contract: `agent`, `token` " +
        "(the token service's public API) or `admin` (its admin API, /admin/v1).",
    )
    .addOption(
      new Option("--service <service>", "whose API").choices(["agent", "token", "admin"]).default(
        "agent",
      ),
    )
    .action(async (o: { service: Service }) => printJson(cli, await build(o.service)));
}
