/** A valid request body for every operation, from the registry's samples (end-to-end suites). */
import { OPERATIONS, SAMPLE_EIK, sampleRequest } from "../../src/contract/operations.ts";

/** The EIK the sample bodies use. */
export { SAMPLE_EIK };

/** typeId → a valid request body (result operations get theirs from a submission). */
export const SAMPLE_BODIES: Readonly<Record<string, Record<string, unknown>>> = Object
  .fromEntries(OPERATIONS.map((o) => [o.typeId, sampleRequest(o.typeId)]));
