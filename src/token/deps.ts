/**
 * What the token service's operations are given (docs/token-service.md § Access phases): the store,
 * the clock and the random source, injected so tests run on a fake clock and a deterministic
 * random source. Shared by the admin API and CLI (`admin/`), the contract operations
 * (`contracts/contracts.ts`) and the integrator's application route (`app.ts`); it lives here so
 * that none of them imports the other's folder for it.
 * @module
 */
import type { Clock } from "../clock.ts";
import type { RandomBytes } from "./access/mod.ts";
import type { TokenStore } from "./store/mod.ts";

/** Dependencies of the admin and contract operations. */
export interface AdminDeps {
  readonly store: TokenStore;
  readonly clock: Clock;
  /** Ids and secrets (default: the system random source). */
  readonly random?: RandomBytes | undefined;
}

/** Log function of the service (never given secrets). */
export type AppLog = (
  level: "info" | "warn" | "error",
  msg: string,
  fields?: Record<string, unknown>,
) => void;
