/**
 * The texts of the agent's life on the accountant's desk in English (part of the catalog in
 * `en.ts`).
 * @module
 */
import type { BG_DESK } from "./bg_desk.ts";

/** The English texts of stopping the agent and opening its console: one per key of
 * {@link BG_DESK}. */
export const EN_DESK: { readonly [K in keyof typeof BG_DESK]: string } = {
  "stop.stop_the_agent": "Stop the agent",
  "stop.title": "Stopping the agent",
  "stop.what_happens":
    "The agent finishes the filings already under way, declines the confirmations waiting and stops. While it is stopped, integrators' pages cannot file through it.",
  "stop.yes": "Yes, stop the agent",
  "stop.cancel": "Cancel",
  "stop.stopping":
    'The agent is stopping. Filings already under way are finished; a filing cut off halfway shows as "unknown" and is checked at the next start.',
  "stop.start_again_windows": 'To start it again: the Start menu → "Агент за подаване към НАП".',
  "stop.start_again_darwin": 'To start it again: open "Filing agent" from Applications.',
  "stop.start_again_other": "To start it again: run {command} in a terminal.",
  "open.windows":
    'Open the Start menu and choose "Агент за подаване към НАП", or click the agent\'s icon next to the clock and choose "Open the console".',
  "open.darwin": 'Open "Filing agent" from Applications (or run {command} in Terminal).',
  "open.other":
    "Run {command} in a terminal (or start the agent again: when it already runs, it opens the console).",
  "open.session_gone":
    "This page is from an earlier console session: the agent was restarted or the session expired.",
  "open.open_it": "Open the console",
  "open.offer":
    "Or press the button: the agent opens the console in a new browser tab, on the same page.",
  "open.opened":
    "The agent opened the console in a new browser tab. If it does not appear, open it as below.",
  "senders.secret_password": "password",
  "senders.secret_pin": "PIN",
  "follow.sending_test": "{decl}: being sent to the test portal…",
  "log.console stop": "agent stopped from the console",
  "log.agent stop asked": "agent stop asked (agent stop)",
  "log.console reopened": "console opened again from the page without a session",
  "log.connection of another OS user refused": "connection of another OS user refused",
};
