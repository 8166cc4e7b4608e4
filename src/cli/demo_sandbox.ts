/**
 * What makes the demo a sandbox (README § Two commands, docs/token-service.md § The demo outbox):
 * its token service's pages on `http://localhost:<port>` (WebAuthn refuses an IP address as the
 * passkeys' relying party), every mail it would send kept in the demo's outbox (and handed on to
 * SMTP when SVC_SMTP_HOST is set) with a line on the demo's output, and the lines that say where
 * the profile, the outbox and the desk are.
 * @module
 */
import type { Cli } from "./context.ts";
import { say } from "./output.ts";
import { programName } from "./program_name.ts";
import { DemoOutbox, type OutboxMail } from "../token/mod.ts";
import type { DemoServing, RunningTokenService } from "./token_servers.ts";

/**
 * The demo's changes to the token service's start: the outbox as its mailer, its pages on
 * `http://localhost:<port>` (or on SVC_TOKEN_ISSUER when it is set).
 * @param cli the run's context (clock, output, environment)
 * @returns the serving options of step 3 (src/cli/token_servers.ts)
 */
export function demoServing(cli: Cli): DemoServing {
  const issuer = cli.env.SVC_TOKEN_ISSUER?.replace(/\/$/, "");
  return {
    mailer: (smtp) =>
      new DemoOutbox({
        now: () => cli.clock.now(),
        forward: smtp,
        onMail: (m) => say(cli, mailLine(m)),
      }),
    webUrl: (port) => issuer || `http://localhost:${port}`,
  };
}

/**
 * The demo's line for a mail: to whom, its first link, its subject.
 * @param m the mail
 * @returns e.g. `Mail to dev@example.test: http://localhost:41234/profile/link?code=… (Вход …)`
 */
export function mailLine(m: Pick<OutboxMail, "to" | "links" | "subject">): string {
  return `Mail to ${m.to}: ${m.links[0] ?? "(no link)"} (${m.subject})`;
}

/**
 * Print where the profile, the outbox and the desk are, and how to get an administrator's link.
 * @param cli the run's context
 * @param ts the demo's token service
 * @param dataDir its data folder (for `token-service admin-invite --data-dir`)
 */
export function sayDemoPages(cli: Cli, ts: RunningTokenService, dataDir: string): void {
  const web = ts.webUrl;
  const program = programName(cli);
  const run = program === "main.ts" ? "npx -y deno@2.9.6 task cli" : program;
  say(cli, `Profile: ${web}/profile (sign up as an integrator; passkeys, keys, request log)`);
  say(cli, `Outbox: ${web}/demo/outbox (every mail the demo would send, with its links)`);
  say(
    cli,
    `Desk: ${web}/admin (administrators; a one-time link: ${run} token-service admin-invite ` +
      `--email admin@example.test --url ${web} --data-dir ${dataDir})`,
  );
}
