/** The product version, stamped into `--version`, `/health`, the OpenAPI `info.version` and
 * compared against the token's `minAgentVersion` claim (semver). */
export const VERSION = "0.1.0";
