/**
 * `openapi`: print the OpenAPI 3.0.3 document of the agent or of the token service, generated
 * from the contract (`deno task openapi`).
 * @module
 */
import { Command, Option } from "commander";
import { VERSION } from "../version.ts";
import type { Cli } from "./context.ts";
import { printJson } from "./output.ts";

/**
 * The `openapi` command.
 * @param cli the run's context
 * @returns the command
 */
export function openapiCommand(cli: Cli): Command {
  return new Command("openapi")
    .summary("print the OpenAPI 3.0.3 document (JSON) of the agent or the token service")
    .description("Print the OpenAPI 3.0.3 document (JSON), generated from the contract.")
    .addOption(
      new Option("--service <service>", "whose API").choices(["agent", "token"]).default("agent"),
    )
    .action(async (o: { service: "agent" | "token" }) => {
      const { buildAgentOpenApi, buildTokenOpenApi } = await import("../contract/openapi/mod.ts");
      printJson(
        cli,
        o.service === "token" ? buildTokenOpenApi(VERSION) : buildAgentOpenApi(VERSION),
      );
    });
}
