/**
 * Non-operation wire shapes: token issue request/response, error bodies, senders, pickers and
 * health (docs/tokens.md § Issuing, docs/errors.md § Wire format).
 * @module
 */
import { z } from "zod";
import { Eik } from "./common.ts";
import { ERROR_CODES, ERROR_KINDS } from "./errors.ts";

/** Stable error codes (components.schemas.ErrorCode). */
export const ErrorCodeSchema = z.enum(ERROR_CODES as [string, ...string[]]).meta({
  id: "ErrorCode",
  description:
    "Stable error constants. Client code relies on these, never on `error` text. The kind and HTTP status of each are listed in docs/errors.md and in `x-error-catalog`.",
});

/** Error kinds (components.schemas.ErrorKind). */
export const ErrorKindSchema = z.enum(ERROR_KINDS as [string, ...string[]]).meta({
  id: "ErrorKind",
  description:
    "PARAMETER: the caller can fix it; CREDENTIALS: the machine's user must act; PORTAL: the authority's portal answered unexpectedly",
});

/** 502 (and other catalogued errors) body: error, errorCode, errorKind. */
export const AgentFailure = z.object({
  error: z.string().meta({ description: "Text for the user; may change" }),
  errorCode: ErrorCodeSchema,
  errorKind: ErrorKindSchema,
  details: z.record(z.string(), z.unknown()).optional().meta({
    description: "Structured details, e.g. `field` for VALIDATION_FAILED",
  }),
  requestId: z.string().optional(),
}).meta({ id: "AgentFailure" });

/** Generic error body: error (Req). Our errors also carry errorCode and errorKind: the
 * {@link AgentFailure} fields but `details`, with only `error` required (and not described). */
export const AgentError = AgentFailure.omit({ details: true })
  .partial({ errorCode: true, errorKind: true })
  .extend({ error: z.string() })
  .meta({ id: "AgentError" });

/** 426 body. */
export const AgentUpdateRequired = z.object({
  agentVersion: z.string(),
  error: z.string(),
  requiredVersion: z.string(),
  errorCode: z.literal("AGENT_UPDATE_REQUIRED").optional(),
  errorKind: z.literal("CREDENTIALS").optional(),
}).meta({ id: "AgentUpdateRequired" });

/** Token issue request: typeId and eik or eiks. */
export const TokenIssueRequest = z.object({
  typeId: z.string().min(1).max(64),
  eik: Eik.optional(),
  eiks: z.array(Eik).min(1).max(10_000).optional(),
  origin: z.string().url().optional().meta({
    description:
      "Bind the token to the calling page's origin (checked by the agent): an http(s) origin, " +
      "scheme://host[:port], no path",
  }),
  bodySha256: z.string().regex(/^[0-9a-f]{64}$/).optional().meta({
    description: "Bind the token to the SHA-256 (hex) of the exact request body",
  }),
}).meta({ id: "TokenIssueRequest" });

/** Token issue response. */
export const TokenIssueResponse = z.object({
  token: z.string(),
  expiresAt: z.string().meta({ format: "date-time" }),
  jti: z.string(),
  issuer: z.string(),
}).meta({ id: "TokenIssueResponse" });

/** Token service error body (every 4xx/5xx of the token service and its admin API). */
export const TokenServiceError = z.object({
  error: z.string(),
  errorCode: ErrorCodeSchema,
  errorKind: ErrorKindSchema,
  rejectedEiks: z.array(z.string()).optional().meta({
    description: "EIK_NOT_ALLOWED: the EIKs not on the key's allowed list",
  }),
  details: z.record(z.string(), z.unknown()).optional().meta({
    description: "Structured details, e.g. `field` for VALIDATION_FAILED",
  }),
  requestId: z.string().meta({
    description: "The request's id, also sent as `X-Request-Id`; quote it when reporting a problem",
  }),
}).meta({ id: "TokenServiceError" });

/** `GET /.well-known/jwks.json`: the public keys agents verify tokens with (RFC 7517). */
export const Jwks = z.object({
  keys: z.array(
    z.object({
      kty: z.string(),
      kid: z.string(),
      crv: z.string().optional(),
      x: z.string().optional(),
      alg: z.string().optional(),
      use: z.string().optional(),
    }).meta({ id: "Jwk" }),
  ),
}).meta({ id: "Jwks" });

/** `GET /api/v1/allowed-origins`: every page origin integrators registered (agents' CORS list). */
export const AllowedOriginsResponse = z.object({
  origins: z.array(z.string()),
}).meta({ id: "AllowedOriginsResponse" });

/** `GET /api/v1/agent-version`: the oldest agent tokens accept, and the newest released. */
export const AgentVersionResponse = z.object({
  minimum: z.string().nullable(),
  latest: z.string().nullable(),
}).meta({ id: "AgentVersionResponse" });

/** `GET /health` of the token service. */
export const TokenHealthResponse = z.object({
  status: z.string(),
  service: z.literal("svc-token-service"),
  version: z.string(),
}).meta({ id: "TokenHealthResponse" });

/** `POST /api/v1/applications` (the integrator applies for a contract with its own key). */
export const ApplicationSubmit = z.object({
  company: z.string().min(1).max(200),
  contactEmail: z.string().max(254).regex(
    /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
    "must be an e-mail address",
  ),
  intendedUse: z.string().min(1).max(4000),
}).meta({ id: "ApplicationSubmit" });

/** An application for a contract as the integrator and administrators see it. */
export const ApplicationView = z.object({
  id: z.string(),
  integratorId: z.string(),
  company: z.string(),
  contactEmail: z.string(),
  intendedUse: z.string(),
  status: z.enum(["pending", "approved", "rejected"]),
  submittedAt: z.string().meta({ format: "date-time" }),
  decidedAt: z.string().nullable().meta({ format: "date-time" }),
  decisionNote: z.string().nullable(),
  contractId: z.string().nullable(),
}).meta({ id: "ApplicationView" });

/** A list of applications. */
export const ApplicationList = z.object({ items: z.array(ApplicationView) }).meta({
  id: "ApplicationList",
});

/** A sender as the page sees it: never certificates, personal ids or keys. */
export const Sender = z.object({
  id: z.string(),
  displayName: z.string(),
  active: z.boolean(),
}).meta({ id: "Sender" });

/** GET /api/senders. */
export const SendersResponse = z.object({
  senders: z.array(Sender),
  activeSenderId: z.string().nullable(),
}).meta({ id: "SendersResponse" });

/** POST /api/pick-file and /api/pick-folder. */
export const PickResponse = z.object({
  path: z.string().nullable().meta({ description: "Full path, null when cancelled" }),
  cancelled: z.boolean(),
}).meta({ id: "PickResponse" });

/** GET /health. */
export const HealthResponse = z.object({
  status: z.enum(["ok", "starting"]).meta({
    description: "`starting` while the agent loads its modules after a cold start (requests are " +
      "accepted and wait); `ok` once it serves operations",
  }),
  service: z.literal("svc-agent"),
  version: z.string(),
  port: z.number().int(),
  latestVersion: z.string().nullable().optional(),
  updateAvailable: z.boolean().optional(),
}).meta({ id: "HealthResponse" });

/** GET /api/v1/batches/{batchId}: a folder-wide filing's progress (counts and EIKs only). */
export const BatchProgress = z.object({
  batchId: z.string(),
  typeId: z.string(),
  state: z.enum(["running", "done", "interrupted"]).meta({
    description: "`interrupted`: the agent was stopped or killed while the batch ran; " +
      "`remaining` lists the companies not yet filed. Resend the same request with the same " +
      "X-Svc-Batch-Id: the companies filed before are answered from the journal, only the " +
      "remaining ones are filed",
  }),
  total: z.number().int().meta({ description: "Companies found (listed or skipped)" }),
  filed: z.number().int(),
  skipped: z.number().int(),
  failed: z.number().int(),
  unknown: z.number().int().meta({
    description: "Sent, outcome unknown: check on the NRA portal, then `journal resolve`",
  }),
  waiting: z.object({
    reason: z.enum(["retry_after"]).meta({
      description: "`retry_after`: the NRA portal asked to wait (HTTP 429 / Retry-After)",
    }),
    retryAfterSeconds: z.number().int(),
  }).optional(),
  current: z.object({ eik: Eik }).optional().meta({
    description: "The company being signed or filed now",
  }),
  startedAt: z.string().meta({ description: "ISO 8601" }),
  updatedAt: z.string().meta({ description: "ISO 8601" }),
  etaSeconds: z.number().int().nullable().meta({
    description: "Seconds left at the pace so far; null before the first company is done",
  }),
  remaining: z.array(Eik).optional().meta({
    description: "An interrupted batch: the companies it was to file and did not (sorted)",
  }),
}).meta({ id: "BatchProgress" });
