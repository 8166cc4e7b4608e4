/**
 * The program's name as the person has it, for usage lines, hints and printed commands.
 * @module
 */
import type { Cli } from "./context.ts";

/** The program's name in usage lines and hints when run from source. */
export const PROGRAM = "main.ts";

/**
 * The program's name as the person has it, for usage lines and hints: the package's launcher
 * (`svc-filing.cmd` on Windows, `svc-filing` elsewhere) when running from the portable package
 * (`…/app/svc-filing.js`), else `main.ts`.
 * @param cli the run's context (mainModule, OS)
 * @returns the name
 */
export function programName(cli: Pick<Cli, "mainModule" | "os">): string {
  if (!cli.mainModule.endsWith("/app/svc-filing.js")) return PROGRAM;
  return cli.os === "windows" ? "svc-filing.cmd" : "svc-filing";
}
