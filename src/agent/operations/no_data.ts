/**
 * The NO_DATA rule (docs/errors.md § Wire format: "An empty result is reported as NO_DATA in
 * metadata.errorCode"; the full condition is ours, docs/errors.md § NO_DATA):
 * a result gets `metadata: { errorCode: "NO_DATA" }` exactly when its `status` is "ok" and its
 * list — `items` (reports, monthly files, batches) or `files` (portal files, scans) — is empty.
 * Submission results, result payloads and VatFilesParseResult (always three rows) never carry
 * it. The HTTP status stays 200; errors are never reported as NO_DATA.
 * @module
 */

/**
 * Apply the rule.
 * @param result an operation result object
 * @returns the same object, with `metadata.errorCode = "NO_DATA"` when empty
 */
export function markNoData<T extends Record<string, unknown>>(result: T): T {
  if (result.status !== "ok") return result;
  const list = Array.isArray(result.items)
    ? result.items
    : Array.isArray(result.files)
    ? result.files
    : null;
  if (list === null || list.length > 0) return result;
  return { ...result, metadata: { errorCode: "NO_DATA" } };
}
