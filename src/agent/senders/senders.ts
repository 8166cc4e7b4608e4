/**
 * Senders: the people (with their QES) on whose behalf the agent files. Loaded from the agent's
 * config; `GET /api/senders` exposes only id, displayName and active (certificates,
 * personal ids and keys are never returned: docs/signing.md). Test mode works
 * without configured senders through one built-in fictitious sender.
 * @module
 */
import { z } from "zod";
import { AppError, type KeyMode } from "../../contract/mod.ts";

/** A configured sender; `keystore` is private and never leaves the agent. */
export const SenderConfig = z.object({
  id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1-64 letters, digits, _ . -"),
  displayName: z.string().min(1).max(200),
  active: z.boolean().default(true),
  keystore: z.record(z.string(), z.unknown()).optional(),
  /** Whether its certificate passed the qualified-certificate check (QcStatements) when it was
   * added; absent for senders added before this was recorded. Pages mark `false`. */
  qualified: z.boolean().optional(),
});
/** Parsed sender config. */
export type SenderConfig = z.infer<typeof SenderConfig>;

/** The built-in fictitious sender of test mode. */
export const TEST_SENDER: SenderConfig = {
  id: "test-sender",
  displayName: "Тестов подател (фиктивен) / Test sender (fictitious)",
  active: true,
};

/** The senders a mode may use: live uses configured active senders; test uses the configured
 * ones, or the built-in test sender when none is configured. */
export function sendersFor(
  configured: readonly SenderConfig[],
  mode: KeyMode,
): SenderConfig[] {
  const active = configured.filter((s) => s.active);
  if (mode === "live") return active;
  return active.length > 0 ? active : [TEST_SENDER];
}

/**
 * The public list for `GET /api/senders`.
 * @param configured senders from config
 * @returns `{ senders: [{id, displayName, active}], activeSenderId }`
 */
export function publicSenders(configured: readonly SenderConfig[]) {
  const list = configured.length > 0 ? configured : [TEST_SENDER];
  const active = list.filter((s) => s.active);
  return {
    senders: list.map((s) => ({ id: s.id, displayName: s.displayName, active: s.active })),
    // non-null: active.length === 1
    activeSenderId: active.length === 1 ? active[0]!.id : null,
  };
}

/**
 * Check the X-Svc-Sender-Id header against the senders usable in a mode.
 * @param usable senders of the mode
 * @param requested header value or null
 * @throws AppError NO_SENDER_CONFIGURED, SENDER_NOT_FOUND, SENDER_INACTIVE
 */
export function checkRequestedSender(
  configured: readonly SenderConfig[],
  usable: readonly SenderConfig[],
  requested: string | null,
): void {
  if (usable.length === 0) {
    throw new AppError(
      "NO_SENDER_CONFIGURED",
      "No sender is configured; add one with `senders add`",
    );
  }
  if (requested === null) return;
  if (usable.some((s) => s.id === requested)) return;
  if (configured.some((s) => s.id === requested)) {
    throw new AppError("SENDER_INACTIVE", `Sender "${requested}" is not active`);
  }
  throw new AppError("SENDER_NOT_FOUND", `No sender with id "${requested}"`, {
    senderId: requested,
  });
}
