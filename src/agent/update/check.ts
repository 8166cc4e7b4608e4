/**
 * Checking for an update (docs/install.md): fetch the signed manifest from the token service
 * (`GET /api/v1/agent-update`, docs/token-service.md § Agent updates), verify it with the keys
 * built into the agent, and compare its version with the running one (semver). A newer version
 * is offered; the same one is "up to date"; an older one is a downgrade, which `agent update`
 * refuses (a replayed old manifest cannot take an agent back to a version with known faults).
 * @module
 */
import compare from "semver/functions/compare.js";
import { AppError } from "../../contract/mod.ts";
import type { UpdatePublicKey } from "./keys.ts";
import { MAX_MANIFEST_BYTES, type UpdateManifest, verifyManifest } from "./manifest.ts";

/** What a check found. */
export interface UpdateCheck {
  /** The running agent's version. */
  readonly current: string;
  /** The published version. */
  readonly latest: string;
  /** "newer": an update is available; "same": up to date; "older": a downgrade (refused). */
  readonly relation: "newer" | "same" | "older";
  readonly manifest: UpdateManifest;
}

/** Side effects and settings of {@link checkForUpdate}. */
export interface CheckOptions {
  /** The token service's base URL (SVC_TOKEN_SERVICE_URL). */
  readonly tokenServiceUrl: string;
  readonly currentVersion: string;
  readonly keys: readonly UpdatePublicKey[];
  readonly fetch?: typeof fetch;
  /** Timeout of the manifest request, ms (default 10 000). */
  readonly timeoutMs?: number;
}

/**
 * Fetch the signed manifest's text.
 * @param tokenServiceUrl the token service's base URL
 * @param fetchFn injected fetch
 * @param timeoutMs request timeout
 * @returns the compact JWS
 * @throws AppError UPDATE_NOT_PUBLISHED (the service publishes none), UPDATE_CHECK_FAILED (not
 *   reachable, another status, or larger than 64 KiB)
 */
export async function fetchManifest(
  tokenServiceUrl: string,
  fetchFn: typeof fetch = fetch,
  timeoutMs = 10_000,
): Promise<string> {
  const url = new URL("/api/v1/agent-update", tokenServiceUrl);
  let res: Response;
  try {
    res = await fetchFn(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    throw new AppError(
      "UPDATE_CHECK_FAILED",
      `Cannot reach the token service at ${url.origin} to check for updates`,
      { url: url.href },
      e,
    );
  }
  if (res.status === 404) {
    const body = await res.json().catch(() => null);
    if (body?.errorCode === "UPDATE_NOT_PUBLISHED") {
      throw new AppError(
        "UPDATE_NOT_PUBLISHED",
        `The token service at ${url.origin} publishes no agent update`,
      );
    }
    throw new AppError(
      "UPDATE_CHECK_FAILED",
      `The token service at ${url.origin} has no update route (HTTP 404); it may be older`,
      { status: 404 },
    );
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new AppError(
      "UPDATE_CHECK_FAILED",
      `The token service answered HTTP ${res.status} to the update check`,
      { status: res.status },
    );
  }
  const bytes = new Uint8Array(await res.arrayBuffer().catch(() => new ArrayBuffer(0)));
  if (bytes.length === 0 || bytes.length > MAX_MANIFEST_BYTES) {
    throw new AppError(
      "UPDATE_CHECK_FAILED",
      `The update manifest is ${bytes.length} bytes (at most ${MAX_MANIFEST_BYTES})`,
    );
  }
  return new TextDecoder().decode(bytes);
}

/**
 * How a published version relates to the running one.
 * @param current the running version
 * @param latest the published version
 * @returns "newer", "same" or "older"
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(versionRelation("0.1.0", "0.1.1"), "newer");
 * equal(versionRelation("0.2.0", "0.1.9"), "older");
 * ```
 */
export function versionRelation(current: string, latest: string): UpdateCheck["relation"] {
  const c = compare(latest, current);
  return c > 0 ? "newer" : c === 0 ? "same" : "older";
}

/**
 * Check for an update: fetch, verify, compare.
 * @param o token service URL, running version, trusted keys, fetch
 * @returns what was found (`relation` says whether it is an update)
 * @throws AppError UPDATE_NOT_PUBLISHED, UPDATE_CHECK_FAILED, UPDATE_SIGNATURE_INVALID,
 *   UPDATE_MANIFEST_INVALID
 */
export async function checkForUpdate(o: CheckOptions): Promise<UpdateCheck> {
  const jws = await fetchManifest(o.tokenServiceUrl, o.fetch, o.timeoutMs);
  const manifest = await verifyManifest(jws, o.keys);
  return {
    current: o.currentVersion,
    latest: manifest.version,
    relation: versionRelation(o.currentVersion, manifest.version),
    manifest,
  };
}

/**
 * Refuse anything but a newer version.
 * @param c the check
 * @returns nothing when `c` is an update
 * @throws AppError UPDATE_DOWNGRADE when the published version is older (`details.current`,
 *   `details.latest`)
 */
export function requireNotDowngrade(c: UpdateCheck): void {
  if (c.relation === "older") {
    throw new AppError(
      "UPDATE_DOWNGRADE",
      `Refusing to downgrade from ${c.current} to ${c.latest}`,
      { current: c.current, latest: c.latest },
    );
  }
}
