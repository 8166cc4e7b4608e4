/**
 * The e-mail notices of docs/token-service.md § Access phases: drafts stored in the database, the
 * scheduler that claims and sends them exactly once across instances, their Bulgarian and
 * English texts, and the mailer (SMTP over nodemailer). Everything outside `notices/` imports
 * this file only.
 * @module
 */
export { createSmtpMailer, type Mailer, type MailMessage, type SmtpSettings } from "./mailer.ts";
export {
  CONTRACT_NOTICE_LEAD_MS,
  contractExpiringDraft,
  contractTerminatedDraft,
  KEY_NOTICE_LEAD_MS,
  keyExpiringDraft,
} from "./notice_drafts.ts";
export {
  NoticeScheduler,
  type NoticeSchedulerOptions,
  type TickReport,
} from "./notice_scheduler.ts";
export { formatNoticeDate, type RenderedNotice, renderNotice } from "./notice_templates.ts";
export {
  applicationNoticeDraft,
  type ApplicationNoticeKind,
  isApplicationNotice,
  renderApplicationNotice,
} from "./application_notices.ts";
