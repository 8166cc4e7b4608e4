import { runReport } from "../_helpers/report.ts";
import assert from "node:assert/strict";
import fc from "fast-check";
import { getOperation, REPORT_OPERATIONS, sampleRequest } from "../../src/contract/operations.ts";
import { createTestPortal } from "../../src/portal/test/adapter.ts";
import { eikArb, FC_PARAMS, NOW } from "./_support.ts";

const CTX = { sender: null };
/** Every report of the registry that answers for one EIK, with its sample request. */
const EIK_REPORTS = (eik: string) =>
  Object.fromEntries(
    REPORT_OPERATIONS.filter((o) => o.scope === "eik").map((o) => [
      o.typeId,
      sampleRequest(o.typeId, eik),
    ]),
  );

async function answers(eik: string): Promise<Record<string, unknown>> {
  const portal = createTestPortal({ now: () => NOW });
  const out: Record<string, unknown> = {};
  for (const [typeId, body] of Object.entries(EIK_REPORTS(eik))) {
    out[typeId] = await runReport(portal, typeId, body, CTX);
  }
  return out;
}

Deno.test("test portal: every EIK report satisfies its contract schema", async () => {
  await fc.assert(
    fc.asyncProperty(eikArb, async (eik) => {
      for (const [typeId, result] of Object.entries(await answers(eik))) {
        getOperation(typeId)!.result.parse(result);
      }
    }),
    { ...FC_PARAMS, numRuns: 100 },
  );
});

Deno.test("test portal: the same EIK gets deep-equal answers from separate instances", async () => {
  await fc.assert(
    fc.asyncProperty(eikArb, async (eik) => {
      assert.deepEqual(await answers(eik), await answers(eik));
    }),
    { ...FC_PARAMS, numRuns: 25 },
  );
});

Deno.test("test portal: different EIKs get different answers", async () => {
  await fc.assert(
    fc.asyncProperty(eikArb, eikArb, async (a, b) => {
      fc.pre(a !== b);
      const [ra, rb] = [await answers(a), await answers(b)];
      assert.notDeepEqual(ra, rb);
      for (const typeId of ["vat_portal_files", "dec1_6_portal_files"]) {
        const fa = ra[typeId] as { status: string; files: unknown[] };
        const fb = rb[typeId] as { status: string; files: unknown[] };
        if (fa.status === "ok" && fb.status === "ok") assert.notDeepEqual(fa.files, fb.files);
      }
    }),
    { ...FC_PARAMS, numRuns: 25 },
  );
});

Deno.test("test portal: any 9–13 digit EIK the contract accepts gets a schema-valid answer", async () => {
  await fc.assert(
    fc.asyncProperty(fc.stringMatching(/^[0-9]{9,13}$/), async (eik) => {
      fc.pre(!eik.startsWith("99999999"));
      const all = await answers(eik);
      for (const [typeId, result] of Object.entries(all)) {
        getOperation(typeId)!.result.parse(result);
      }
      if (eik.length === 11 || eik.length === 12) {
        assert.deepEqual((all.debt_payments as { items: unknown[] }).items, []);
        assert.equal((all.vat_portal_files as { status: string }).status, "error");
      }
    }),
    { ...FC_PARAMS, numRuns: 100 },
  );
});
