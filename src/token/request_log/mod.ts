/**
 * The request log (docs/token-service.md § The request log): the recorder that notes every
 * answered token request and hands batches to the store's writer (`recorder.ts`).
 * @module
 */
export {
  MAX_REQUEST_LOG_ENTRIES,
  REQUEST_LOG_DAYS,
  RequestLogRecorder,
  USAGE_DAYS,
} from "./recorder.ts";
