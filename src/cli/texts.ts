/**
 * Texts the CLI prints: the usage and the demo's copy-paste examples (README § Two commands).
 * @module
 */
import { VERSION } from "../version.ts";

/** `main.ts help`. */
export const USAGE = `svc-filing ${VERSION} — local filing agent and token service

Usage:
  main.ts demo                         token service + agent on loopback, a fresh test key, examples
  main.ts agent [--port N] [--token-service URL] [--data-dir DIR]
  main.ts agent trust-certificate      trust the agent's loopback HTTPS CA (SVC_AGENT_TLS_PORT)
  main.ts agent install-autostart | uninstall-autostart | doctor
  main.ts token-service [--port N] [--data-dir DIR] [--min-agent-version X.Y.Z]
  main.ts keys create --mode test|live [--eik EIK]... [--origin URL]... [--integrator ID] [--label TEXT]
  main.ts senders add|list|test|remove …   (run "senders" alone for details)
  main.ts admin integrators|keys|applications|contracts|usage …   (main.ts admin help)
  main.ts journal list|export [--format csv|json] [--out FILE]
  main.ts openapi [--service agent|token]
  main.ts --version

Environment: SVC_DATA_DIR, SVC_AGENT_PORT, SVC_TOKEN_SERVICE_URL, SVC_TOKEN_PORT,
SVC_DATABASE_URL, SVC_MIN_AGENT_VERSION, SVC_CONFIRM_TIMEOUT_SECONDS, SVC_OPEN_BROWSER=never,
SVC_AGENT_TLS_PORT, SVC_ADMIN_TOKEN, SVC_SMTP_HOST/PORT/SECURE/USER/PASS/FROM,
SVC_NOTICE_INTERVAL_SECONDS, SVC_USAGE_FLUSH_SECONDS, SVC_LOG_LEVEL. See README.md.`;

/**
 * The two copy-paste examples `deno task start` prints: each one line that gets a 5-second
 * token from the token service and calls the agent with it at once.
 * @param tokenUrl the token service's base URL
 * @param agentUrl the agent's base URL
 * @param key the fresh test key
 * @returns the text
 */
export function demoExample(tokenUrl: string, agentUrl: string, key: string): string {
  const token = (body: string) =>
    `TOKEN=$(curl -s ${tokenUrl}/api/v1/tokens/issue -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" -d '${body}' | sed -E 's/.*"token":"([^"]+)".*/\\1/')`;
  return [
    "",
    "Example 1 — the catalog of portal services (no sender confirmation needed); paste as one line:",
    `${
      token('{"typeId":"nap_catalog"}')
    } && curl -s ${agentUrl}/api/v1/operations/nap_catalog -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" -d '{"filter":"ДДС"}'`,
    "",
    "Example 2 — debts and payments of a company (acts in a sender's name: the agent opens a",
    "confirmation page in your browser; if none opens, open the URL the agent logs):",
    `${
      token('{"typeId":"debt_payments","eik":"121212121"}')
    } && curl -s ${agentUrl}/api/v1/operations/debt_payments -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" -H "X-Svc-Batch-Id: $(cat /proc/sys/kernel/random/uuid 2>/dev/null || uuidgen)" -d '{"eik":"121212121","year":2025}'`,
    "",
    `OpenAPI: ${agentUrl}/api/v1/openapi.json    Stop with Ctrl+C.`,
  ].join("\n");
}
