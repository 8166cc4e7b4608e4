/**
 * The audit log (docs/token-service.md § The administrator's desk, audit log): who changed what
 * through the desk, the profile or the admin API (`audit_log.ts`).
 * @module
 */
export { audit, type AuditActor, auditAdminApi, type AuditChange } from "./audit_log.ts";
