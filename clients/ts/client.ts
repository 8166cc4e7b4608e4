/**
 * A tiny typed client of the local agent: openapi-fetch over the types generated from the
 * agent's OpenAPI document (`agent.d.ts`, by `scripts/gen_client.ts`). Runs in browsers and in
 * Deno; has no dependency besides openapi-fetch.
 *
 * ```ts
 * const agent = createAgentClient("http://127.0.0.1:17470");
 * const req = operationRequest("debt_payments", { eik: "121212121", year: 2025 });
 * const token = await myServer.token(req.typeId, "121212121", req.bodyText); // bodySha256 of bodyText
 * const out = await agent.run(req, { token, batchId });
 * if (out.ok) console.log(out.data.rowCount, out.noData);
 * else console.log(out.status, out.error.errorCode);
 * ```
 * @module
 */
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./agent.d.ts";

export type { components, paths };

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
/** Any error body the agent sends (`errorCode` is absent only on generic errors). */
export type AgentErrorBody = {
  error: string;
  errorCode?: string;
  errorKind?: string;
  requiredVersion?: string;
  agentVersion?: string;
};

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

/** The agent client: typed helpers plus the raw openapi-fetch client. */
export interface AgentClient {
  readonly raw: RawAgentClient;
  /** `GET /health` (open to every origin; a click-time call triggers Chrome's LNA prompt). */
  health(signal?: AbortSignal): Promise<components["schemas"]["HealthResponse"]>;
  /** `GET /api/senders`. */
  senders(): Promise<components["schemas"]["SendersResponse"]>;
  /** Run one prepared operation with its token and headers. */
  run<T extends OperationTypeId>(
    req: PreparedOperation<T>,
    opts: CallOptions,
  ): Promise<OperationOutcome<T>>;
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
 * Create a client of the agent at `baseUrl`.
 * @param baseUrl e.g. `http://127.0.0.1:17470`
 * @param fetchImpl optional fetch (tests)
 * @returns the client
 */
export function createAgentClient(
  baseUrl: string,
  fetchImpl?: (input: Request) => Promise<Response>,
): AgentClient {
  const raw = createClient<paths>({
    baseUrl: baseUrl.replace(/\/$/, ""),
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  return {
    raw,
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
    async run(req, opts) {
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
        const meta = (data as { metadata?: { errorCode?: string } }).metadata;
        return {
          ok: true,
          status: 200,
          data: data as OperationResult<typeof req.typeId>,
          noData: meta?.errorCode === "NO_DATA",
          response,
        };
      }
      const body = (error && typeof error === "object" ? error : {}) as Partial<AgentErrorBody>;
      return {
        ok: false,
        status: response.status,
        error: { ...body, error: body.error ?? `HTTP ${response.status}` },
        response,
      };
    },
  };
}
