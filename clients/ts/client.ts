/**
 * A tiny typed client of the local agent: openapi-fetch over the types generated from the
 * agent's OpenAPI document (`agent.d.ts`, by `scripts/gen_client.ts`). Runs in browsers, in
 * Node ≥ 18 and in Deno; has no dependency besides openapi-fetch. Published as the npm package
 * `@svc-filing/agent-client` (clients/ts/package.json, built by `deno task build:client`).
 *
 * ```ts
 * // `myServer.token` asks your own server, which calls the token service with its secret key.
 * type MyServer = { token(typeId: string, eik?: string, bodyText?: string): Promise<string> };
 * async function showDebts(myServer: MyServer) {
 *   const agent = createAgentClient("http://127.0.0.1:17470", {
 *     // Called right before every operation: your server issues a 5-second token for it.
 *     tokenProvider: ({ typeId, eik, bodyText }) => myServer.token(typeId, eik, bodyText),
 *   });
 *   const batch = agent.batch(); // one per user action: X-Svc-Batch-Id on every call in it
 *   try {
 *     const debts = await batch.call("debt_payments", { eik: "121212121", year: 2025 });
 *     console.log(isNoData(debts) ? "no data" : debts.items);
 *   } catch (e) {
 *     if (isAgentError(e, "SENDER_NOT_CHOSEN")) console.log("the user declined");
 *     else throw e;
 *   }
 * }
 * console.log(typeof showDebts); // compiled against the client's types; runs with an agent
 * ```
 * @module
 */
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./agent.d.ts";
import { AgentError } from "./errors.ts";
import type { AgentErrorBody } from "./errors.ts";
import { type BatchProgress, batchWatcher, type WatchBatchOptions } from "./batch_watch.ts";

export type { components, paths };
export {
  AgentError,
  type AgentErrorOf,
  type AnyAgentError,
  type ErrorCode,
  type ErrorKind,
  isAgentError,
} from "./errors.ts";
export type { AgentErrorBody };
export type { BatchProgress, WatchBatchOptions };

/** The raw openapi-fetch client over the agent's paths. */
export type RawAgentClient = Client<paths>;

/** Every operation's typeId (`POST /api/v1/operations/<typeId>`). */
export type OperationTypeId = {
  [P in keyof paths]: P extends `/api/v1/operations/${infer T}` ? T : never;
}[keyof paths];

type OpPath<T extends OperationTypeId> = `/api/v1/operations/${T}`;

/** The request body of an operation. */
export type OperationBody<T extends OperationTypeId> = NonNullable<
  paths[OpPath<T>]["post"]["requestBody"]
>["content"]["application/json"];

/** The 200 result of an operation. */
export type OperationResult<T extends OperationTypeId> =
  paths[OpPath<T>]["post"]["responses"][200]["content"]["application/json"];

/** The error body of a 401 or 502 (`{error, errorCode, errorKind}`). */
export type AgentFailure = components["schemas"]["AgentFailure"];
/** The 426 body: the token service requires a newer agent. */
export type AgentUpdateRequired = components["schemas"]["AgentUpdateRequired"];
/**
 * An operation call prepared once: the body is serialised exactly once, so the text the
 * integrator's server hashes into the token (`bodySha256`) is the text the agent receives.
 */
export interface PreparedOperation<T extends OperationTypeId> {
  readonly typeId: T;
  readonly body: OperationBody<T>;
  /** `JSON.stringify(body)`: send this to your server to bind the token to the body. */
  readonly bodyText: string;
}

/** Headers of one operation call. */
export interface CallOptions {
  /** The 5-second JWT issued for exactly this operation (and, if bound, this body). */
  readonly token: string;
  /** `X-Svc-Batch-Id`: one GUID per user action, the same on every request of the action. */
  readonly batchId?: string;
  /** `X-Svc-Sender-Id`: a sender id from `GET /api/senders`. */
  readonly senderId?: string;
  /** `X-Svc-File-Path`: a path from the pick endpoints (operations with local input). */
  readonly filePath?: string;
  readonly signal?: AbortSignal;
}

/** The outcome of an operation call (network failures throw a `TypeError`, as fetch does). */
export type OperationOutcome<T extends OperationTypeId> =
  | {
    readonly ok: true;
    readonly status: 200;
    readonly data: OperationResult<T>;
    /** true when the result is empty (`metadata.errorCode === "NO_DATA"`): not an error. */
    readonly noData: boolean;
    readonly response: Response;
  }
  | {
    readonly ok: false;
    /** 401 token problem, 426 agent too old, 502 every other error. */
    readonly status: number;
    readonly error: AgentErrorBody;
    readonly response: Response;
  };

/** What the token provider gets: everything your server needs to issue the token. */
export interface TokenRequest<T extends OperationTypeId = OperationTypeId> {
  readonly typeId: T;
  readonly body: OperationBody<T>;
  /** The exact body text the agent receives: hash it into the token (`bodySha256`). */
  readonly bodyText: string;
  /** The token's `eik`: the call's `eik` option, else `body.eik` when the body names one. */
  readonly eik?: string;
  /** The token's `eiks` (folder-wide operations such as `vat_batch`): the call's `eiks` option. */
  readonly eiks?: readonly string[];
  /** The batch the call belongs to, if any. */
  readonly batchId?: string;
  readonly signal?: AbortSignal;
}

/**
 * Fetches a fresh token from the integrator's own backend. Called once per operation, right
 * before the request (and once more only when the agent answers `TOKEN_EXPIRED`); the client
 * keeps no token beyond the call it was fetched for, except the last one sent with each batch
 * id: `watchBatch` shows it to read that batch's progress (the agent only compares it — its
 * `jti` is spent, its 5 seconds pass — and it opens nothing else). Errors it throws reach the caller as
 * they are.
 */
export type TokenProvider = (
  req: TokenRequest,
) => Promise<string | { readonly token: string }>;

/** Options of {@link createAgentClient}. */
export interface ClientOptions {
  /** Where `call()` gets each operation's token (needed by `call()`, not by `run()`). */
  readonly tokenProvider?: TokenProvider;
  /** Another fetch (tests, instrumentation); the global fetch by default. */
  readonly fetch?: (input: Request) => Promise<Response>;
  /** Ask the provider for a new token and send once more on `TOKEN_EXPIRED` (default true). */
  readonly retryExpiredToken?: boolean;
}

/** Per-call options of `call()`. */
export interface OperationCallOptions {
  /** `X-Svc-Sender-Id`: a sender id from `GET /api/senders`. */
  readonly senderId?: string;
  /** `X-Svc-File-Path`: a path from the pick endpoints (operations with local input). */
  readonly filePath?: string;
  /** Passed to the token provider as the token's `eik` (default: `body.eik`). */
  readonly eik?: string;
  /** Passed to the token provider as the token's `eiks` (folder-wide operations). */
  readonly eiks?: readonly string[];
  readonly signal?: AbortSignal;
}

/** One user action: every call made through it carries the same `X-Svc-Batch-Id`. */
export interface BatchScope {
  /** The batch id (a GUID) sent as `X-Svc-Batch-Id`. */
  readonly batchId: string;
  /** Like {@link AgentClient.call}, inside this batch. */
  call<T extends OperationTypeId>(
    typeId: T,
    body: OperationBody<T>,
    opts?: OperationCallOptions,
  ): Promise<OperationResult<T>>;
  /** Like {@link AgentClient.run}, inside this batch (`batchId` is this scope's). */
  run<T extends OperationTypeId>(
    req: PreparedOperation<T>,
    opts: Omit<CallOptions, "batchId">,
  ): Promise<OperationOutcome<T>>;
  /** Like {@link AgentClient.watchBatch}, for this scope's batch id. */
  watch(
    onProgress: (p: BatchProgress) => void,
    opts?: WatchBatchOptions,
  ): Promise<BatchProgress>;
}

/** The agent client: typed helpers plus the raw openapi-fetch client. */
export interface AgentClient {
  readonly raw: RawAgentClient;
  /**
   * Run one operation outside any batch: fetch its token from the provider, send it, and
   * return the 200 result (check `isNoData(result)` for an empty one).
   * @throws AgentError for every refusal (`isAgentError(e, code)` narrows by `errorCode`);
   *   a `TypeError` from fetch when the agent cannot be reached; the provider's own errors
   */
  call<T extends OperationTypeId>(
    typeId: T,
    body: OperationBody<T>,
    opts?: OperationCallOptions,
  ): Promise<OperationResult<T>>;
  /**
   * Start one user action: a new batch id (or `batchId`), sent on every call of the scope. The
   * user confirms the sender once per batch; a new click is a new batch.
   */
  batch(opts?: { readonly batchId?: string; readonly senderId?: string }): BatchScope;
  /** `GET /health` (open to every origin; a click-time call triggers Chrome's LNA prompt). */
  health(signal?: AbortSignal): Promise<components["schemas"]["HealthResponse"]>;
  /** `GET /api/senders`. */
  senders(): Promise<components["schemas"]["SendersResponse"]>;
  /** Run one prepared operation with its token and headers. */
  run<T extends OperationTypeId>(
    req: PreparedOperation<T>,
    opts: CallOptions,
  ): Promise<OperationOutcome<T>>;
  /**
   * Follow a folder-wide filing while its request runs: reads `GET /api/v1/batches/{batchId}`
   * every `intervalMs` with the token of one of the batch's requests (the last one this client
   * sent with the id, or `opts.token`) and calls `onProgress` with each answer.
   * @returns the last progress, once the batch is `done`
   * @throws AgentError BATCH_NOT_FOUND (another page or integrator, or the batch was
   *   forgotten 10 minutes after its end; a batch not yet known is waited for `graceMs`);
   *   Error when no token is known for the batch; the signal's reason when aborted
   * @example
   * ```ts
   * // `agent` from createAgentClient; `bar` a <progress> element of the page
   * async function fileFolder(agent: AgentClient, bar: { value: number }) {
   *   const rootFolder = "C:\\Счетоводство\\2026-09";
   *   const batch = agent.batch();
   *   const filing = batch.call("dec1_6_batch", { rootFolder, year: 2026, month: 9 }, {
   *     eiks: ["121212121", "200000001"],
   *   });
   *   await batch.watch((p) => bar.value = (p.filed + p.failed + p.unknown + p.skipped) / p.total);
   *   return await filing;
   * }
   * console.log(typeof fileFolder);
   * ```
   */
  watchBatch(
    batchId: string,
    onProgress: (p: BatchProgress) => void,
    opts?: WatchBatchOptions,
  ): Promise<BatchProgress>;
}

/**
 * Prepare an operation call (typed body, serialised once).
 * @param typeId the operation
 * @param body its request body
 * @returns the prepared call
 */
export function operationRequest<T extends OperationTypeId>(
  typeId: T,
  body: OperationBody<T>,
): PreparedOperation<T> {
  return { typeId, body, bodyText: JSON.stringify(body) };
}

/**
 * Whether a 200 result is empty (`metadata.errorCode === "NO_DATA"`): not an error.
 * @param result an operation's result
 * @returns true for an empty result
 */
export function isNoData(result: unknown): boolean {
  const meta = (result as { metadata?: { errorCode?: string } } | null)?.metadata;
  return meta?.errorCode === "NO_DATA";
}

/**
 * A new batch id: a random GUID (version 4), from `crypto.randomUUID` where the page is a
 * secure context, else from `crypto.getRandomValues`.
 * @returns the GUID
 * @throws Error where the runtime has no Web Crypto (Node 18 without it: pass `batchId`)
 */
export function newBatchId(): string {
  const c = (globalThis as { crypto?: Crypto }).crypto;
  if (typeof c?.randomUUID === "function") return c.randomUUID();
  if (typeof c?.getRandomValues !== "function") {
    throw new Error("no Web Crypto here: pass batch({ batchId }) with a GUID");
  }
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * Create a client of the agent at `baseUrl`.
 * @param baseUrl e.g. `http://127.0.0.1:17470`
 * @param options `{ tokenProvider, fetch, retryExpiredToken }`, or (older form) a fetch
 * @returns the client
 */
export function createAgentClient(
  baseUrl: string,
  options?: ClientOptions | ((input: Request) => Promise<Response>),
): AgentClient {
  const o: ClientOptions = typeof options === "function" ? { fetch: options } : options ?? {};
  const raw = createClient<paths>({
    baseUrl: baseUrl.replace(/\/$/, ""),
    ...(o.fetch ? { fetch: o.fetch } : {}),
  });

  async function call<T extends OperationTypeId>(
    typeId: T,
    body: OperationBody<T>,
    opts: OperationCallOptions & { batchId?: string } = {},
  ): Promise<OperationResult<T>> {
    const provider = o.tokenProvider;
    if (!provider) {
      throw new Error("call() needs createAgentClient(baseUrl, { tokenProvider })");
    }
    const req = operationRequest(typeId, body);
    const bodyEik = (body as { eik?: unknown } | null)?.eik;
    const eik = opts.eik ?? (typeof bodyEik === "string" ? bodyEik : undefined);
    const tokenReq: TokenRequest<T> = {
      typeId,
      body,
      bodyText: req.bodyText,
      ...(eik !== undefined ? { eik } : {}),
      ...(opts.eiks ? { eiks: opts.eiks } : {}),
      ...(opts.batchId ? { batchId: opts.batchId } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    };
    for (let attempt = 0;; attempt++) {
      // A fresh token for this one request; it is not kept after it.
      const got = await provider(tokenReq as unknown as TokenRequest);
      const token = typeof got === "string" ? got : got.token;
      const out = await run(req, { ...opts, token });
      if (out.ok) return out.data;
      const err = new AgentError(out.status, out.error, out.response);
      if (err.errorCode === "TOKEN_EXPIRED" && attempt === 0 && o.retryExpiredToken !== false) {
        continue;
      }
      throw err;
    }
  }

  /** The last token sent with each batch id (they may read the batch's progress). */
  const batchTokens = new Map<string, string>();

  async function run<T extends OperationTypeId>(
    req: PreparedOperation<T>,
    opts: CallOptions,
  ): Promise<OperationOutcome<T>> {
    if (opts.batchId) {
      batchTokens.delete(opts.batchId);
      batchTokens.set(opts.batchId, opts.token);
      if (batchTokens.size > 64) batchTokens.delete(batchTokens.keys().next().value!);
    }
    const header: Record<string, string> = {};
    if (opts.batchId) header["X-Svc-Batch-Id"] = opts.batchId;
    if (opts.senderId) header["X-Svc-Sender-Id"] = opts.senderId;
    if (opts.filePath) header["X-Svc-File-Path"] = opts.filePath;
    // One generic call site for every operation path; the types above keep callers exact.
    const post = raw.POST as unknown as (
      path: string,
      init: Record<string, unknown>,
    ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const { data, error, response } = await post(`/api/v1/operations/${req.typeId}`, {
      params: { header },
      headers: { Authorization: `Bearer ${opts.token}` },
      body: req.body,
      bodySerializer: () => req.bodyText,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    if (response.status === 200 && data !== undefined) {
      return {
        ok: true,
        status: 200,
        data: data as OperationResult<T>,
        noData: isNoData(data),
        response,
      };
    }
    const b = (error && typeof error === "object" ? error : {}) as Partial<AgentErrorBody>;
    return {
      ok: false,
      status: response.status,
      error: { ...b, error: b.error ?? `HTTP ${response.status}` },
      response,
    };
  }

  const watchBatch = batchWatcher(raw, batchTokens);

  return {
    raw,
    watchBatch,
    call: (typeId, body, opts) => call(typeId, body, opts),
    batch(bo = {}) {
      const batchId = bo.batchId ?? newBatchId();
      const sender = bo.senderId ? { senderId: bo.senderId } : {};
      return {
        batchId,
        call: (typeId, body, opts) => call(typeId, body, { ...sender, ...opts, batchId }),
        run: (req, opts) => run(req, { ...sender, ...opts, batchId }),
        watch: (onProgress, opts) => watchBatch(batchId, onProgress, opts),
      };
    },
    run,
    async health(signal) {
      const { data, error, response } = await raw.GET("/health", signal ? { signal } : {});
      if (!data) throw new Error(`GET /health: HTTP ${response.status} ${JSON.stringify(error)}`);
      return data;
    },
    async senders() {
      const { data, error, response } = await raw.GET("/api/senders");
      if (!data) {
        throw new Error(`GET /api/senders: HTTP ${response.status} ${JSON.stringify(error)}`);
      }
      return data;
    },
  };
}
