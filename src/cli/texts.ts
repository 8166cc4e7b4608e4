/**
 * Texts the CLI prints: the demo's copy-paste examples (README § Two commands). The usage of
 * every command is commander's help (`--help`).
 * @module
 */

/**
 * The two copy-paste examples `deno task start` prints: each one line that gets a 5-second
 * token from the token service and calls the agent with it at once, in the shell of the OS it
 * is printed on: Windows PowerShell 5.1 on Windows (`Invoke-RestMethod`, `[guid]::NewGuid()`;
 * the Cyrillic filter as JSON escapes, so the console's code page cannot change it), POSIX sh
 * with curl elsewhere.
 * @param tokenUrl the token service's base URL
 * @param agentUrl the agent's base URL
 * @param key the fresh test key
 * @param os Deno.build.os of the machine (default: sh)
 * @returns the text
 */
export function demoExample(
  tokenUrl: string,
  agentUrl: string,
  key: string,
  os: string = "linux",
): string {
  if (os === "windows") return powershellExample(tokenUrl, agentUrl, key);
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

/** The examples in Windows PowerShell 5.1 (also PowerShell 7): one line each. */
function powershellExample(tokenUrl: string, agentUrl: string, key: string): string {
  const token = (body: string) =>
    `$t=(Invoke-RestMethod -Method Post -Uri ${tokenUrl}/api/v1/tokens/issue -Headers @{Authorization='Bearer ${key}'} -ContentType 'application/json' -Body '${body}').token`;
  const call = (typeId: string, headers: string, body: string) =>
    `Invoke-RestMethod -Method Post -Uri ${agentUrl}/api/v1/operations/${typeId} -Headers @{Authorization="Bearer $t"${headers}} -ContentType 'application/json' -Body '${body}' | ConvertTo-Json -Depth 8`;
  return [
    "",
    "Example 1 — the catalog of portal services (no sender confirmation needed); paste into",
    "Windows PowerShell as one line:",
    `${token('{"typeId":"nap_catalog"}')}; ${
      call("nap_catalog", "", '{"filter":"\\u0414\\u0414\\u0421"}')
    }`,
    "",
    "Example 2 — debts and payments of a company (acts in a sender's name: the agent opens a",
    "confirmation page in your browser; if none opens, open the URL the agent logs):",
    `${token('{"typeId":"debt_payments","eik":"121212121"}')}; ${
      call(
        "debt_payments",
        ";'X-Svc-Batch-Id'=[guid]::NewGuid().ToString()",
        '{"eik":"121212121","year":2025}',
      )
    }`,
    "",
    `OpenAPI: ${agentUrl}/api/v1/openapi.json    Stop with Ctrl+C.`,
  ].join("\n");
}

/** The test-mode filing `demo --agent-data-dir` prints an example of. */
export interface DemoFiling {
  readonly eik: string;
  readonly year: number;
  readonly month: number;
  /** The sender to file in the name of (`X-Svc-Sender-Id`), or null: the page offers them. */
  readonly senderId: string | null;
}

/**
 * The example `demo --agent-data-dir` prints (docs/running.md § The demo with your own agent):
 * one line that gets a 5-second `vat` token and files a test-mode VAT return for a company and
 * month in a sender's name; the agent opens its confirmation page, which follows the filing to
 * its receipt. Windows PowerShell 5.1 on Windows, POSIX sh with curl elsewhere.
 * @param tokenUrl the demo's token service
 * @param agentUrl the accountant's agent
 * @param key the demo's test key
 * @param os Deno.build.os of the machine
 * @param f company, period and sender
 * @returns the text
 */
export function demoFilingExample(
  tokenUrl: string,
  agentUrl: string,
  key: string,
  os: string,
  f: DemoFiling,
): string {
  const tokenBody = JSON.stringify({ typeId: "vat", eik: f.eik });
  const body = JSON.stringify({ eik: f.eik, year: f.year, month: f.month });
  const period = `${f.year}-${String(f.month).padStart(2, "0")}`;
  const intro = [
    "",
    `Example — file a test-mode VAT return of ${f.eik} for ${period}${
      f.senderId ? ` in the name of sender ${f.senderId}` : ""
    }: the agent opens`,
    "its confirmation page in your browser (if none opens, open the URL the agent logs);",
    "confirm it, and the page follows the filing to its receipt. Then see it in the console:",
    "Filings (click the row for the receipt), and export the month as CSV or Excel.",
  ];
  if (os === "windows") {
    const sender = f.senderId ? `;'X-Svc-Sender-Id'='${f.senderId}'` : "";
    return [
      ...intro,
      "Paste into Windows PowerShell as one line:",
      `$t=(Invoke-RestMethod -Method Post -Uri ${tokenUrl}/api/v1/tokens/issue -Headers @{Authorization='Bearer ${key}'} -ContentType 'application/json' -Body '${tokenBody}').token; Invoke-RestMethod -Method Post -Uri ${agentUrl}/api/v1/operations/vat -Headers @{Authorization="Bearer $t";'X-Svc-Batch-Id'=[guid]::NewGuid().ToString()${sender}} -ContentType 'application/json' -Body '${body}' | ConvertTo-Json -Depth 8`,
    ].join("\n");
  }
  const sender = f.senderId ? ` -H "X-Svc-Sender-Id: ${f.senderId}"` : "";
  return [
    ...intro,
    "Paste as one line:",
    `TOKEN=$(curl -s ${tokenUrl}/api/v1/tokens/issue -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" -d '${tokenBody}' | sed -E 's/.*"token":"([^"]+)".*/\\1/') && curl -s ${agentUrl}/api/v1/operations/vat -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" -H "X-Svc-Batch-Id: $(cat /proc/sys/kernel/random/uuid 2>/dev/null || uuidgen)"${sender} -d '${body}'`,
  ].join("\n");
}
