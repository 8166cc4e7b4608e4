/**
 * What the example page tells the user for each outcome of an agent call. Client code relies on
 * `errorCode` (stable), never on the `error` text (which may change).
 * @module
 */
import type { AgentErrorBody } from "../../../clients/ts/client.ts";
import type { LnaState } from "./lna.ts";

/** How a result line is shown. */
export type ResultState = "ok" | "no-data" | "error";

/** A message above the results. */
export interface UserMessage {
  readonly kind: "error" | "warn" | "info";
  readonly text: string;
}

/** A described outcome. */
export interface Described {
  readonly state: ResultState;
  readonly line: string;
  readonly errorCode?: string;
  readonly message?: UserMessage;
}

/** Text for SENDER_NOT_CHOSEN (the user declined, or the confirmation timed out). */
export const SENDER_NOT_CHOSEN_TEXT =
  "The sender was not confirmed: the confirmation page in your browser was declined or timed " +
  "out. Nothing was sent to the NRA, and the whole action is refused. Click “1.” to start a " +
  "new action.";

/**
 * Describe a successful (HTTP 200) result.
 * @param typeId the operation
 * @param data its result
 * @param noData whether the agent marked it NO_DATA
 * @returns the line to show
 */
export function describeResult(
  typeId: string,
  data: Record<string, unknown>,
  noData: boolean,
): Described {
  if (data.status === "error") {
    return { state: "error", line: `${typeId}: the portal answered with an error: ${data.error}` };
  }
  if (noData) {
    return {
      state: "no-data",
      line: `${typeId}: no data for this request (NO_DATA). This is not an error.`,
    };
  }
  if (typeId === "dec1_6_batch") {
    const unknown = Number(data.unknown ?? 0);
    return {
      state: Number(data.failed) + unknown > 0 ? "error" : "ok",
      line: `${typeId}: ${data.submitted} filed, ${data.skipped} skipped (not listed), ` +
        `${data.failed} failed, ${unknown} unknown` +
        (unknown > 0 ? " — check those on the NRA portal (the agent's console lists them)." : "."),
    };
  }
  if (typeId === "debt_payments") {
    return {
      state: "ok",
      line: `${typeId}: ${data.rowCount} debt and payment records for ${data.year}.`,
    };
  }
  if (typeId === "due_amounts") {
    return {
      state: "ok",
      line: `${typeId}: ${data.rowCount} due amounts; outstanding ${data.totalOutstanding}, ` +
        `interest ${data.totalInterest}.`,
    };
  }
  return { state: "ok", line: `${typeId}: done.` };
}

/**
 * Describe an error answer of the agent (401, 426, 502, other).
 * @param typeId the operation
 * @param status HTTP status
 * @param body the error body
 * @returns the line and the message
 */
export function describeFailure(typeId: string, status: number, body: AgentErrorBody): Described {
  const code = body.errorCode ?? `HTTP_${status}`;
  const line = `${typeId}: ${code} — ${body.error}`;
  const fail = (kind: UserMessage["kind"], text: string): Described => ({
    state: "error",
    line,
    errorCode: code,
    message: { kind, text },
  });
  if (code === "SENDER_NOT_CHOSEN") return fail("warn", SENDER_NOT_CHOSEN_TEXT);
  if (status === 426) {
    return fail(
      "error",
      `Your filing agent (version ${body.agentVersion}) is too old; version ` +
        `${body.requiredVersion} is required. Please update it and try again.`,
    );
  }
  if (status === 401) {
    return fail(
      "error",
      `The agent refused the token (${code}). Tokens live 5 seconds and open one call; ` +
        "click again to get a fresh one.",
    );
  }
  if (code === "RATE_LIMITED") {
    return fail("warn", "Too many requests from this site; wait a few seconds and try again.");
  }
  if (code === "ORIGIN_NOT_ALLOWED") {
    return fail("error", "This site is not on the agent's list of allowed sites.");
  }
  if (body.errorKind === "PARAMETER") return fail("error", `Please check the input: ${body.error}`);
  if (body.errorKind === "CREDENTIALS") {
    return fail("error", `Action is needed on this computer: ${body.error}`);
  }
  if (body.errorKind === "PORTAL") {
    return fail("error", `The NRA portal answered unexpectedly; try again later. (${code})`);
  }
  return fail("error", `The agent answered ${status}: ${body.error}`);
}

/**
 * The message when the agent cannot be reached at all (fetch failed).
 * @param lna the Local Network Access permission state
 * @returns the message
 */
export function describeUnreachable(lna: LnaState): UserMessage {
  if (lna === "denied") {
    return {
      kind: "error",
      text: "Your browser blocks this site from reaching apps on this device (Local Network " +
        "Access). Click the icon left of the address, open Site settings, set “Local network " +
        "access” (or “Apps on this device”) to Allow, reload and click again.",
    };
  }
  if (lna === "prompt") {
    return {
      kind: "warn",
      text: "Your browser asks whether this site may reach apps on this device: choose Allow, " +
        "then click again.",
    };
  }
  return {
    kind: "error",
    text: "The filing agent does not answer on this computer. Make sure it is installed and " +
      "running, then click again.",
  };
}
