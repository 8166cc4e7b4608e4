/**
 * An application's history on the profile's contract page (docs/token-service.md § Mails to
 * the integrator): every step of the integrator's applications, newest first — submitted (and
 * by which member), approved or rejected (with the note or reason), and each mail about it
 * (received, approved, rejected) with where it went and whether it was sent. Read from the
 * audit log and the notice queue, the integrator's own rows only.
 * @module
 */
import { html } from "hono/html";
import { type Markup, t } from "../../web_page.ts";
import { columnTable } from "../web/mod.ts";
import type { AuditEntry, NoticeRecord } from "../store/mod.ts";

const when = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");

const STEPS: Record<string, [string, string]> = {
  "application.submit": ["подадена", "submitted"],
  "application.approve": ["одобрена", "approved"],
  "application.reject": ["отказана", "rejected"],
};

const MAILS: Record<string, [string, string]> = {
  application_received: ["писмо: получена", "mail: received"],
  application_approved: ["писмо: одобрена", "mail: approved"],
  application_rejected: ["писмо: отказана", "mail: rejected"],
};

const MAIL_STATES: Record<string, [string, string]> = {
  pending: ["чака изпращане", "waiting to be sent"],
  sending: ["изпраща се", "being sent"],
  sent: ["изпратено", "sent"],
  failed: ["неуспешно", "failed"],
  cancelled: ["отменено", "cancelled"],
  skipped: ["без адрес", "no address"],
};

interface Step {
  readonly at: number;
  readonly kind: string;
  readonly what: Markup;
  readonly applicationId: string;
  readonly who: string;
  readonly detail: string;
}

/**
 * The history table (`#application-history`, a row `tr[data-step]` each).
 * @param audit the integrator's audit entries (any actions; the applications' are picked)
 * @param notices the integrator's notices (the applications' are picked)
 * @returns the table, or a "none yet" line
 */
export function applicationHistory(
  audit: readonly AuditEntry[],
  notices: readonly NoticeRecord[],
): Markup {
  const steps: Step[] = [
    ...audit.filter((a) => STEPS[a.action]).map((a): Step => {
      const d = JSON.parse(a.detail || "{}") as { note?: string | null; contractId?: string };
      return {
        at: a.at,
        kind: a.action,
        // non-null: filtered by STEPS[a.action] above
        what: t(...STEPS[a.action]!),
        applicationId: a.target,
        who: a.actorKind === "admin" || a.actorKind === "admin-api" ? "" : a.actor,
        detail: [d.contractId, d.note].filter(Boolean).join(" — "),
      };
    }),
    ...notices.filter((n) => MAILS[n.kind]).map((n): Step => ({
      at: n.sentAt ?? n.createdAt,
      kind: n.kind,
      // non-null: filtered by MAILS[n.kind] above
      what: html`${t(...MAILS[n.kind]!)} (${
        t(...(MAIL_STATES[n.status] ?? [n.status, n.status]))
      })`,
      applicationId: n.subjectId,
      who: "",
      detail: n.recipient ?? "",
    })),
  ].sort((a, b) => b.at - a.at);
  return columnTable("application-history", {
    columns: [
      [["Кога (UTC)", "When (UTC)"], (s) => when(s.at)],
      [["Заявка", "Application"], (s) => s.applicationId, "mono"],
      [["Стъпка", "Step"], (s) => s.what],
      [
        ["Кой", "Who"],
        (s) =>
          s.who || (s.kind.startsWith("application.") ? t("администратор", "administrator") : "—"),
      ],
      [["Подробности", "Details"], (s) => s.detail],
    ],
    rows: steps,
    mark: (s) => ["data-step", s.kind],
    empty: t("Още няма история.", "No history yet."),
  });
}
