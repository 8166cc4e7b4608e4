/**
 * The agent's own settings file `agent.json` in its data directory: senders (with private
 * key store references) and, for live mode, the portal API settings. Validated with zod; every
 * problem is reported at once.
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { SenderConfig } from "./senders.ts";
import { UserError } from "../../user_error.ts";
import { writePrivateFile } from "../../private_files.ts";

/** Live portal settings (NRA public API, OAuth2 client credentials). */
export const PortalSettings = z.object({
  baseUrl: z.string().url().default("https://public-api.nra.bg"),
  environment: z.enum(["production", "test"]).default("test"),
  tokenUrl: z.string().url().optional(),
  clientId: z.string().min(1).optional(),
  clientSecret: z.string().min(1).optional(),
  /** A pre-issued JWT used directly as the Bearer token (the form seen in public code). */
  accessToken: z.string().min(1).optional(),
  timeoutSeconds: z.number().int().min(1).max(600).default(30),
  /** Extra CA certificates (PEM file) to trust for the portal (simulator in tests). */
  caFile: z.string().optional(),
  /**
   * File live `vat` / `vat_batch` as the assumed `DEC_VAT` service, which the NRA public
   * reference does not list (docs/live-portal.md). Off: they are refused with
   * PORTAL_OPERATION_UNSUPPORTED before any confirmation or PIN.
   */
  experimentalVatService: z.boolean().default(false),
});

/** The whole `agent.json`. */
export const AgentFile = z.object({
  senders: z.array(SenderConfig).default([]),
  /** Page origins allowed to call the agent besides those the token service publishes. */
  allowedOrigins: z.array(
    z.string().regex(/^https?:\/\/[^/\s]+$/, "must be an origin like https://app.example"),
  ).default([]),
  portal: PortalSettings.optional(),
});
/** Parsed agent.json. */
export type AgentFile = z.infer<typeof AgentFile>;

/**
 * Path of agent.json.
 * @param dataDir the agent's data directory
 */
export function agentFilePath(dataDir: string): string {
  return join(dataDir, "agent.json");
}

/**
 * Read and validate agent.json (absent file = defaults).
 * @param dataDir data directory
 * @returns the parsed file
 * @throws Error naming the file and every invalid field
 */
export async function readAgentFile(dataDir: string): Promise<AgentFile> {
  const path = agentFilePath(dataDir);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return AgentFile.parse({});
    throw new UserError(`Cannot read ${path}: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new UserError(`${path} is not valid JSON: ${(e as Error).message}`);
  }
  const r = AgentFile.safeParse(raw);
  if (!r.success) {
    throw new UserError(
      `Invalid ${path}:\n` +
        r.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n"),
    );
  }
  const ids = r.data.senders.map((s) => s.id);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw new UserError(`Invalid ${path}:\n  senders: duplicate id "${dup}"`);
  return r.data;
}

/**
 * Write agent.json atomically (temp file + rename).
 * @param dataDir data directory
 * @param file contents
 */
export async function writeAgentFile(dataDir: string, file: AgentFile): Promise<void> {
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writePrivateFile(agentFilePath(dataDir), JSON.stringify(file, null, 2) + "\n");
}
