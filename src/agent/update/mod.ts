/**
 * Signed updates with rollback (docs/install.md § Updates): check the token
 * service's signed manifest against the keys built into the agent, download and verify the
 * package for this system, unpack it, and swap the installed package with a rollback when the
 * new version does not answer `/health` within 30 s. `src/cli/update.ts` runs it (`agent update`,
 * `agent update-swap`).
 * @module
 */
export { UPDATE_PUBLIC_KEYS, type UpdatePublicKey } from "./keys.ts";
export {
  allowedPackageUrl,
  archiveKind,
  MANIFEST_TYP,
  MAX_MANIFEST_BYTES,
  MAX_PACKAGE_BYTES,
  packageFor,
  UpdateManifest,
  UpdatePackage,
  verifyManifest,
} from "./manifest.ts";
export {
  checkForUpdate,
  type CheckOptions,
  fetchManifest,
  requireNotDowngrade,
  type UpdateCheck,
  versionRelation,
} from "./check.ts";
export { diskFullError, isDiskFull, removeLeftovers, updatesDir } from "./disk.ts";
export { type DownloadOptions, downloadPackage } from "./download.ts";
export { type ExtractOptions, extractPackage } from "./extract.ts";
export {
  asideOf,
  fileUrlPath,
  installedByMsi,
  launcherName,
  MSI_MARKER,
  type PackagedInstall,
  packagedInstall,
  requireSwappable,
  requireVersion,
} from "./install.ts";
export { acquireUpdateLock, type UpdateLock, type UpdateLockDeps } from "./lock.ts";
export {
  fileLogger,
  lastOutcomePath,
  readOutcome,
  type UpdateOutcome,
  type UpdateOutcomeKind,
  writeOutcome,
} from "./outcome.ts";
export { probeHealth, readAgentLock } from "./processes.ts";
export {
  type PreparedBase,
  type PreparedUpdate,
  type PrepareOptions,
  type PrepareOptionsBase,
  prepareUpdate,
  readSwapPlan,
  runningAgent,
} from "./prepare.ts";
export { runSwap, type SwapDeps, type SwapPlan } from "./swap.ts";
export { type UpdateRunDeps } from "./plan.ts";
export { spawnDetached, systemProcessDeps } from "./system.ts";
export {
  APPS_KEY,
  appsEntry,
  installSource,
  msiexec,
  type MsiTools,
  msiTools,
  packedGuid,
  parseRegValue,
  regValue,
} from "./msi.ts";
export {
  keptMsiDir,
  keptMsiPath,
  MSI_LAUNCHER,
  type MsiDeps,
  type MsiPlan,
  runMsiUpgrade,
} from "./msi_upgrade.ts";
export {
  type MsiPrepareOptions,
  type PreparedMsiUpdate,
  prepareMsiUpdate,
  readMsiPlan,
} from "./msi_prepare.ts";
