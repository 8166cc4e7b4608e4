/**
 * Following a folder-wide filing from the page: `GET /api/v1/batches/{batchId}` read every
 * `intervalMs` with the token of one of the batch's requests, until the batch is done
 * (docs/local-input.md § Progress). Used by `createAgentClient` (`watchBatch`, `batch.watch`).
 * @module
 */
import type { Client } from "openapi-fetch";
import type { components, paths } from "./agent.d.ts";
import { AgentError } from "./errors.ts";
import type { AgentErrorBody } from "./errors.ts";

/** `GET /api/v1/batches/{batchId}`: a folder-wide filing's progress (counts and EIKs only). */
export type BatchProgress = components["schemas"]["BatchProgress"];

/** Options of `watchBatch`. */
export interface WatchBatchOptions {
  /** The token of one of the batch's requests (default: the last one this client sent with
   * this batch id). Its 5 seconds may have passed: the agent only compares it. */
  readonly token?: string;
  /** Time between two reads, ms (default 1000). */
  readonly intervalMs?: number;
  /** How long a batch the agent does not know yet (its POST is on its way) is waited for, ms
   * (default 15000); then the 404 is thrown. */
  readonly graceMs?: number;
  /** Stops watching (the promise rejects with the signal's reason). */
  readonly signal?: AbortSignal;
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });

/**
 * The `watchBatch` of a client.
 * @param raw the client's openapi-fetch client
 * @param tokens the last token the client sent with each batch id
 * @returns `watchBatch(batchId, onProgress, opts)`: resolves with the last progress once the
 *   batch is done; throws AgentError BATCH_NOT_FOUND (another page or integrator, a batch
 *   forgotten 10 minutes after its end, or one still unknown after `graceMs`), Error when no
 *   token is known for the batch, the signal's reason when aborted
 */
export function batchWatcher(
  raw: Client<paths>,
  tokens: ReadonlyMap<string, string>,
): (
  batchId: string,
  onProgress: (p: BatchProgress) => void,
  opts?: WatchBatchOptions,
) => Promise<BatchProgress> {
  return async (batchId, onProgress, opts = {}) => {
    const interval = opts.intervalMs ?? 1000;
    const until = Date.now() + (opts.graceMs ?? 15_000);
    for (;;) {
      opts.signal?.throwIfAborted();
      // The batch's POST may not have gone out yet: its token appears with it.
      const token = opts.token ?? tokens.get(batchId);
      if (token) {
        const { data, error, response } = await raw.GET("/api/v1/batches/{batchId}", {
          params: { path: { batchId } },
          headers: { Authorization: `Bearer ${token}` },
          ...(opts.signal ? { signal: opts.signal } : {}),
        });
        if (response.status === 200 && data) {
          onProgress(data);
          if (data.state !== "running") return data; // done, or interrupted (with `remaining`)
        } else if (response.status !== 404 || Date.now() > until) {
          const b = (error && typeof error === "object" ? error : {}) as Partial<AgentErrorBody>;
          throw new AgentError(
            response.status,
            { ...b, error: b.error ?? `HTTP ${response.status}` },
            response,
          );
        }
      } else if (Date.now() > until) {
        throw new Error(`no request of batch ${batchId} was sent through this client`);
      }
      await pause(interval, opts.signal);
    }
  };
}
