/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The example page's script (bundled with `deno bundle` by the example server). One click on
 * "1." is one user action: a new batch id; "2." runs a second operation of the same batch.
 * Before each action a click-time `GET /health` lets Chrome show its Local Network Access prompt.
 * Every operation gets a fresh token from this site's server (bound to the page origin and the
 * exact body) and is sent to the agent with the generated client.
 * @module
 */
import {
  createAgentClient,
  operationRequest,
  type OperationTypeId,
  type PreparedOperation,
} from "../../../clients/ts/client.ts";
import { describeLnaState, type LnaState, watchLoopbackPermission } from "./lna.ts";
import {
  type Described,
  describeFailure,
  describeResult,
  describeUnreachable,
  type UserMessage,
} from "./messages.ts";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

const agentUrl = document.body.dataset.agentUrl ?? "http://127.0.0.1:17470";
const agent = createAgentClient(agentUrl);
let lna: LnaState = "unsupported";
let batchId: string | null = null;

$("agent-url").textContent = agentUrl;
watchLoopbackPermission((s) => {
  lna = s;
  const local = ["127.0.0.1", "localhost", "[::1]"].includes(location.hostname);
  $("lna-state").textContent = describeLnaState(s, local);
  $("lna-state").dataset.state = s;
});

function showMessage(m: UserMessage | null): void {
  const el = $("message");
  el.hidden = !m;
  el.textContent = m?.text ?? "";
  if (m) el.dataset.kind = m.kind;
  else delete el.dataset.kind;
}

function showResult(el: HTMLElement, d: Described): void {
  el.dataset.state = d.state;
  el.textContent = d.line;
  if (d.errorCode) el.dataset.errorCode = d.errorCode;
  else delete el.dataset.errorCode;
  if (d.message) showMessage(d.message);
}

/** Ask this site's server for a token for one call (never cached: 5-second lifetime). */
async function fetchToken(typeId: string, eik: string | undefined, bodyText: string) {
  const res = await fetch("/token", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ typeId, ...(eik ? { eik } : {}), body: bodyText }),
  });
  const j = await res.json().catch(() => ({}));
  if (!res.ok) {
    throw new Error(`This site could not get a token (${j.errorCode ?? res.status}): ${j.error}`);
  }
  return j.token as string;
}

/** GET /health, started inside the click handler (user activation: Chrome's LNA prompt). */
async function checkAgent(): Promise<boolean> {
  const state = $("agent-state");
  state.textContent = "checking…";
  try {
    const h = await agent.health(AbortSignal.timeout(60_000));
    state.textContent = `running, version ${h.version}`;
    state.dataset.state = "ok";
    return true;
  } catch {
    state.textContent = "not reachable";
    state.dataset.state = "unreachable";
    showMessage(describeUnreachable(lna));
    return false;
  }
}

/** One operation of the current batch: token, call, result. */
async function runOne<T extends OperationTypeId>(
  req: PreparedOperation<T>,
  eik: string | undefined,
  out: HTMLElement,
): Promise<void> {
  out.dataset.state = "pending";
  out.textContent = `${req.typeId}: working…`;
  const hint = setTimeout(() => {
    showMessage({
      kind: "info",
      text: "Confirm the sender in the agent's page that opened in your browser.",
    });
  }, 1500);
  try {
    const token = await fetchToken(req.typeId, eik, req.bodyText);
    const res = await agent.run(req, { token, ...(batchId ? { batchId } : {}) });
    clearTimeout(hint);
    showMessage(null);
    showResult(
      out,
      res.ok
        ? describeResult(req.typeId, res.data as Record<string, unknown>, res.noData)
        : describeFailure(req.typeId, res.status, res.error),
    );
  } catch (e) {
    clearTimeout(hint);
    if (e instanceof TypeError) {
      showResult(out, { state: "error", line: `${req.typeId}: the agent did not answer` });
      showMessage(describeUnreachable(lna));
    } else {
      showResult(out, {
        state: "error",
        line: `${req.typeId}: ${(e as Error).message}`,
        message: { kind: "error", text: (e as Error).message },
      });
    }
  }
}

function readInput(): { eik: string; year: number } | null {
  const eik = $<HTMLInputElement>("eik").value.trim();
  const year = Number($<HTMLInputElement>("year").value);
  if (!/^[0-9]{9,13}$/.test(eik) || !Number.isInteger(year) || year < 1900 || year > 2999) {
    showMessage({ kind: "error", text: "Enter an EIK of 9 to 13 digits and a year 1900–2999." });
    return null;
  }
  return { eik, year };
}

function setBusy(busy: boolean): void {
  $<HTMLButtonElement>("run-first").disabled = busy;
  $<HTMLButtonElement>("run-second").disabled = busy || !batchId;
  $<HTMLButtonElement>("check").disabled = busy;
}

$("check").addEventListener("click", async () => {
  showMessage(null);
  if (await checkAgent()) showMessage({ kind: "info", text: "The agent answers." });
});

$("run-first").addEventListener("click", async () => {
  const reachable = checkAgent();
  const input = readInput();
  if (!input) return;
  showMessage(null);
  batchId = crypto.randomUUID();
  $("batch-id").textContent = batchId;
  for (const id of ["result-first", "result-second"]) $(id).dataset.state = "idle";
  setBusy(true);
  try {
    if (!(await reachable)) return;
    await runOne(operationRequest("debt_payments", input), input.eik, $("result-first"));
  } finally {
    setBusy(false);
  }
});

$("run-second").addEventListener("click", async () => {
  const reachable = checkAgent();
  const input = readInput();
  if (!input || !batchId) return;
  setBusy(true);
  try {
    if (!(await reachable)) return;
    // Due amounts of every year still open (the year filter is optional).
    await runOne(
      operationRequest("due_amounts", { eik: input.eik }),
      input.eik,
      $("result-second"),
    );
  } finally {
    setBusy(false);
  }
});

document.body.dataset.ready = "true";
