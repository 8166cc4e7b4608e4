/**
 * The demo's outbox (docs/token-service.md § The demo outbox): the mailer that keeps the demo's
 * mails and the page that shows them. Everything outside `outbox/` imports this file only.
 * @module
 */
export { DemoOutbox, type DemoOutboxOptions, linksOf, type OutboxMail } from "./demo_outbox.ts";
export { OUTBOX_PATH, outboxRoutes } from "./outbox_page.ts";
