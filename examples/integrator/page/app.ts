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
  type BatchProgress,
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
async function fetchToken(
  typeId: string,
  eik: string | undefined,
  bodyText: string,
  eiks?: string[],
) {
  const res = await fetch("/token", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      typeId,
      ...(eik ? { eik } : {}),
      ...(eiks ? { eiks } : {}),
      body: bodyText,
    }),
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
  $<HTMLButtonElement>("run-batch").disabled = busy;
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

/** A folder-wide filing's progress, as the accountant reads it. */
function showProgress(p: BatchProgress): void {
  const bar = $<HTMLProgressElement>("batch-bar");
  bar.hidden = false;
  bar.max = Math.max(1, p.total);
  bar.value = p.filed + p.skipped + p.failed + p.unknown;
  const el = $("batch-progress");
  el.dataset.state = p.state;
  el.dataset.reads = String(Number(el.dataset.reads ?? 0) + 1);
  el.textContent = p.state === "done"
    ? `Done: ${p.filed} filed of ${p.total} companies found.`
    : p.waiting
    ? `The NRA asked to wait ${p.waiting.retryAfterSeconds} s.`
    : p.total === 0
    ? "Waiting for the accountant's confirmation…"
    : `${bar.value} of ${p.total} companies` + (p.current ? `, filing ${p.current.eik}` : "") +
      (p.etaSeconds !== null ? `, about ${p.etaSeconds} s left` : "") + ".";
}

$("run-batch").addEventListener("click", async () => {
  const reachable = checkAgent();
  const rootFolder = $<HTMLInputElement>("batch-root").value.trim();
  const eiks = $<HTMLInputElement>("batch-eiks").value.split(/[\s,;]+/).filter((e) => e);
  const year = Number($<HTMLInputElement>("batch-year").value);
  const month = Number($<HTMLInputElement>("batch-month").value);
  if (!rootFolder || eiks.length === 0 || !eiks.every((e) => /^[0-9]{9,13}$/.test(e))) {
    showMessage({ kind: "error", text: "Enter the folder and the EIKs (9 to 13 digits each)." });
    return;
  }
  showMessage(null);
  batchId = crypto.randomUUID();
  $("batch-id").textContent = batchId;
  const out = $("result-batch");
  $("batch-progress").textContent = "";
  delete $("batch-progress").dataset.reads;
  setBusy(true);
  try {
    if (!(await reachable)) return;
    const req = operationRequest("dec1_6_batch", { rootFolder, year, month });
    out.dataset.state = "pending";
    out.textContent = "dec1_6_batch: working…";
    const token = await fetchToken(req.typeId, undefined, req.bodyText, eiks);
    // The progress is read with this same token while the filing runs: no new token.
    const stop = new AbortController();
    const watching = agent.watchBatch(batchId, showProgress, {
      intervalMs: 500,
      signal: stop.signal,
    }).catch(() => null);
    const res = await agent.run(req, { token, batchId });
    // The batch has ended: one more read shows it done; a refused request has no progress.
    setTimeout(() => stop.abort(), 2000);
    await watching;
    showResult(
      out,
      res.ok
        ? describeResult(req.typeId, res.data as Record<string, unknown>, res.noData)
        : describeFailure(req.typeId, res.status, res.error),
    );
  } catch (e) {
    showResult(out, {
      state: "error",
      line: `dec1_6_batch: ${(e as Error).message}`,
      message: { kind: "error", text: (e as Error).message },
    });
  } finally {
    setBusy(false);
  }
});

document.body.dataset.ready = "true";
