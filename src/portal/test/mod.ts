/**
 * The test portal: deterministic fictitious answers for `svc_test_` keys (docs/test-portal.md).
 * @module
 */
export * from "./adapter.ts";
