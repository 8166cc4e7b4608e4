/**
 * A filing's file must be the declaration it claims, against the real token service and agent:
 * every filing operation (`vat`, `dec1_6`, `dec731`, `dec736`, `etz62`, `etz123`,
 * `high_fisc_risk`, `odit`) refuses a file that is no NRA format, a file of another declaration
 * and a file of another EIK with a PARAMETER error before any confirmation page — in test mode,
 * and in live mode where the NRA API simulator receives nothing (no token grant, no submission).
 * The same operations accept their own files (test mode files them).
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import type { SingleFileKind } from "../../src/formats/mod.ts";
import { payrollFiles, validEik, vatFiles } from "../_helpers/company_tree.ts";
import {
  createKeyCli,
  decideNext,
  issueToken,
  type Proc,
  startAgent,
  startTokenService,
} from "../_helpers/e2e.ts";
import { startLiveWorld } from "../_helpers/live_agent.ts";
import { SIM_EIK } from "../_helpers/nra_simulator.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import {
  otherDeclarationFile,
  sampleDeclarationFile,
  SYSTEM_FILE,
} from "../_helpers/sample_files.ts";
import { fixtureBytes } from "../formats/_helpers.ts";

const SINGLE: SingleFileKind[] = ["dec731", "dec736", "etz62", "etz123", "high_fisc_risk", "odit"];
const OTHER = validEik(20_000_000);

/** A request of one filing operation: its body (with the files inline). */
type Body = Record<string, unknown>;

const dir = (files: Record<string, Uint8Array>, name = "upload") => ({
  name,
  files: Object.entries(files).map(([path, b]) => ({ path, contentBase64: b.toBase64() })),
});

function baseBody(typeId: string, eik: string): Body {
  switch (typeId) {
    case "vat":
    case "odit":
      return { eik, year: 2026, month: 9 };
    case "dec1_6":
      return { eik, year: 2026, month: 9 };
    case "dec731":
    case "dec736":
      return { eik, year: 2025 };
    case "high_fisc_risk":
      return { eik, subtype: "EU_BG" };
    default:
      return { eik };
  }
}

/** The three bad inputs of each filing operation, with the codes each may answer. */
async function badInputs(typeId: string, eik: string): Promise<[string, Body, string[]][]> {
  const d6 = await otherDeclarationFile();
  const base = baseBody(typeId, eik);
  if (typeId === "vat") {
    const own = (await vatFiles(eik, 2026, 9))!;
    const other = (await vatFiles(OTHER, 2026, 9))!;
    const set = (deklar: Uint8Array) => dir({ ...Object.fromEntries(own), "DEKLAR.TXT": deklar });
    return [
      // A system file saved as DEKLAR.TXT: not a VAT return's layout.
      ["no NRA format", { ...base, _inlineDir: set(SYSTEM_FILE) }, ["FILE_PARSE_ERROR"]],
      ["another declaration", { ...base, _inlineDir: set(d6.bytes) }, ["FILE_KIND_MISMATCH"]],
      ["another EIK", { ...base, _inlineDir: dir(Object.fromEntries(other)) }, [
        "FILE_EIK_MISMATCH",
      ]],
    ];
  }
  if (typeId === "dec1_6") {
    const other = (await payrollFiles(OTHER, 2026, 9))!;
    const deklar = await fixtureBytes("deklar/DEKLAR.TXT");
    return [
      ["no NRA format", { ...base, _inlineDir: dir({ "EMPL2021.TXT": SYSTEM_FILE }) }, [
        "FILE_KIND_UNKNOWN",
      ]],
      ["another declaration", { ...base, _inlineDir: dir({ "EMPL2021.TXT": deklar }) }, [
        "FILE_KIND_MISMATCH",
      ]],
      ["another EIK", { ...base, _inlineDir: dir(Object.fromEntries(other)) }, [
        "FILE_EIK_MISMATCH",
      ]],
    ];
  }
  const kind = typeId as SingleFileKind;
  const inline = (name: string, bytes: Uint8Array) => ({
    ...base,
    _inlineFile: { name, contentBase64: bytes.toBase64() },
  });
  const other = sampleDeclarationFile(kind, OTHER);
  return [
    ["no NRA format", inline("passwd.xml", SYSTEM_FILE), ["FILE_KIND_UNKNOWN"]],
    ["another declaration", inline(d6.name, d6.bytes), ["FILE_KIND_MISMATCH"]],
    ["another EIK", inline(other.name, other.bytes), ["FILE_EIK_MISMATCH"]],
  ];
}

const FILINGS = ["vat", "dec1_6", ...SINGLE];

async function withTestAgent(fn: (e: { ts: Proc; agent: Proc; key: string }) => Promise<void>) {
  const d = await Deno.makeTempDir({ prefix: "svc-e2e-files-" });
  const ts = await startTokenService(`${d}/ts`);
  const agent = await startAgent(`${d}/agent`, ts.url);
  try {
    await fn({ ts, agent, key: await createKeyCli(`${d}/ts`, "test") });
  } finally {
    await agent.stop();
    await ts.stop();
    await Deno.remove(d, { recursive: true }).catch(() => {});
  }
}

async function post(agentUrl: string, token: string, typeId: string, body: Body) {
  const r = await fetch(`${agentUrl}/api/v1/operations/${typeId}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "x-svc-batch-id": crypto.randomUUID(),
    },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: await r.json() };
}

Deno.test("[e2e] test mode: every filing refuses a non-NRA file, another declaration's file and another EIK's, before any page", async () => {
  const EIK = "121212121";
  await withTestAgent(async ({ ts, agent, key }) => {
    for (const typeId of FILINGS) {
      for (const [what, body, codes] of await badInputs(typeId, EIK)) {
        const token = await issueToken(ts.url, key, { typeId, eik: EIK });
        const r = await post(agent.url, token, typeId, body);
        equal(r.status, 502, `${typeId}, ${what}: ${JSON.stringify(r.json)}`);
        ok(codes.includes(r.json.errorCode), `${typeId}, ${what}: ${JSON.stringify(r.json)}`);
        equal(r.json.errorKind, "PARAMETER");
      }
    }
    equal(agent.logs.filter((l) => l.msg === "confirmation page opened").length, 0);
  });
});

Deno.test("[e2e] test mode: each single-file filing accepts its own declaration and files it", async () => {
  const EIK = "121212121";
  await withTestAgent(async ({ ts, agent, key }) => {
    for (const kind of SINGLE) {
      const f = sampleDeclarationFile(kind, EIK);
      const token = await issueToken(ts.url, key, { typeId: kind, eik: EIK });
      const pending = post(agent.url, token, kind, {
        ...baseBody(kind, EIK),
        _inlineFile: { name: f.name, contentBase64: f.bytes.toBase64() },
      });
      await decideNext(agent, "confirm");
      const r = await pending;
      deepStrictEqual(
        [r.status, r.json.success],
        [200, true],
        `${kind}: ${JSON.stringify(r.json)}`,
      );
    }
  });
});

Deno.test({
  name: "[e2e] live mode: the same refusals, and the NRA simulator receives nothing",
  ignore: skipUnless(["openssl"], "live-mode end-to-end tests"),
  async fn() {
    const w = await startLiveWorld();
    try {
      for (const typeId of FILINGS) {
        for (const [what, body, codes] of await badInputs(typeId, SIM_EIK)) {
          const r = await w.file(typeId, SIM_EIK, body, { "x-svc-batch-id": crypto.randomUUID() });
          equal(r.status, 502, `${typeId}, ${what}: ${JSON.stringify(r.json)}`);
          ok(
            codes.includes(String(r.json.errorCode)),
            `${typeId}, ${what}: ${JSON.stringify(r.json)}`,
          );
          equal(r.json.errorKind, "PARAMETER");
        }
      }
      equal(w.agent.logs.filter((l) => l.msg === "confirmation page opened").length, 0);
      deepStrictEqual(
        [w.sim.stats.tokenRequests, w.sim.stats.submitCalls, w.sim.received.length],
        [0, 0, 0],
      );
      // A path on the disk is read only after the user's consent, and refused before any PIN
      // is asked (the consent page has no PIN field; no PIN step opens): the simulator still
      // sees nothing.
      const passwd = join(w.dir, "passwd.xml");
      await Deno.writeFile(passwd, SYSTEM_FILE);
      const pending = w.file("etz62", SIM_EIK, { eik: SIM_EIK }, {
        "x-svc-batch-id": crypto.randomUUID(),
        "x-svc-file-path": passwd,
      });
      const after = await w.confirmWithPin();
      deepStrictEqual(after, { checking: 0, failed: 1, passed: 0, next: null });
      const r = await pending;
      deepStrictEqual([r.status, r.json.errorCode], [502, "FILE_KIND_UNKNOWN"]);
      deepStrictEqual([w.sim.stats.submitCalls, w.sim.received.length], [0, 0]);
    } finally {
      await w.stop();
    }
  },
});
