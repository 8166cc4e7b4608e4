/**
 * Nothing is read before consent (docs/confirmation.md), against the real agent and token service:
 * a submission naming a path on the user's disk — a system-like folder of 64 entries, a missing
 * folder, an XML notice holding another EIK, a password-hash file — opens the confirmation first,
 * and every answer before the user's consent is the same whatever the path is. The page shows the
 * resolved path; the files are read and checked only after the user confirms.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { validEik } from "../_helpers/company_tree.ts";
import {
  createKeyCli,
  decideNext,
  issueToken,
  type Proc,
  startAgent,
  startTokenService,
} from "../_helpers/e2e.ts";

const EIK = validEik(20_000_000);

interface Probe {
  readonly typeId: string;
  readonly scope: "eik" | "eiks";
  /** Body and headers naming `path`. */
  readonly request: (path: string) => { body: Record<string, unknown>; header?: string };
}

/** The three probes of the issue, and a folder-wide filing. */
const PROBES: Probe[] = [
  {
    typeId: "dec731",
    scope: "eik",
    request: () => ({ body: { eik: EIK, year: 2025 }, header: "" }),
  },
  { typeId: "etz62", scope: "eik", request: () => ({ body: { eik: EIK }, header: "" }) },
  {
    typeId: "dec1_6",
    scope: "eik",
    request: (p) => ({ body: { year: 2026, month: 9, dec1FilePath: p } }),
  },
  {
    typeId: "dec1_6_batch",
    scope: "eiks",
    request: (p) => ({ body: { rootFolder: p, year: 2026, month: 9 } }),
  },
];

async function withAgent(
  fn: (e: { ts: Proc; agent: Proc; key: string; dir: string }) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "svc-e2e-consent-" });
  const ts = await startTokenService(`${dir}/ts`);
  const agent = await startAgent(`${dir}/agent`, ts.url);
  try {
    await fn({ ts, agent, key: await createKeyCli(`${dir}/ts`, "test"), dir });
  } finally {
    await agent.stop();
    await ts.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** The paths a page may name: a folder of 64 entries, a missing one, a file, a non-NRA file. */
async function probePaths(dir: string): Promise<Record<string, string>> {
  const system = join(dir, "system");
  await Deno.mkdir(system);
  for (let i = 0; i < 64; i++) await Deno.writeTextFile(join(system, `conf${i}`), "x=1\n");
  const xml = join(dir, "notice.xml");
  await Deno.writeTextFile(xml, "<etzemploy><eik>831234567</eik></etzemploy>");
  const shadow = join(dir, "shadow");
  await Deno.writeTextFile(shadow, "root:$6$salt$0123456789abcdef:19000:0:99999:7:::\n");
  return { system, missing: join(dir, "missing"), xml, shadow };
}

/** Send one probe; returns a promise of its answer without the request id. */
async function send(
  e: { ts: Proc; agent: Proc; key: string },
  probe: Probe,
  path: string,
  batch: string,
) {
  const { body, header } = probe.request(path);
  const token = await issueToken(e.ts.url, e.key, {
    typeId: probe.typeId,
    ...(probe.scope === "eik" ? { eik: EIK } : { eiks: [EIK] }),
  });
  const res = await fetch(`${e.agent.url}/api/v1/operations/${probe.typeId}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "x-svc-batch-id": batch,
      ...(header !== undefined ? { "x-svc-file-path": path } : {}),
    },
    body: JSON.stringify(body),
  });
  const { requestId: _, ...json } = await res.json();
  return { status: res.status, json };
}

Deno.test("[e2e] a submission naming a disk path asks first: before consent every answer is the same, whatever the path", async () => {
  await withAgent(async (e) => {
    const paths = await probePaths(e.dir);
    const answers: unknown[] = [];
    for (const probe of PROBES) {
      for (const [what, path] of Object.entries(paths)) {
        const pending = send(e, probe, path, crypto.randomUUID());
        // The page opens (nothing was answered yet) and shows the path it would read.
        const { html } = await decideNext(e.agent, "decline");
        // (the page wraps paths after their separators: its text, without the markup)
        const text = html.replace(/<[^>]*>/g, "");
        ok(text.includes(path), `${probe.typeId} ${what}: the page shows ${path}`);
        answers.push(await pending);
      }
    }
    for (const a of answers) {
      deepStrictEqual(a, answers[0], "the same answer for every path");
    }
    deepStrictEqual(
      (answers[0] as { json: { errorCode: string } }).json.errorCode,
      "SENDER_NOT_CHOSEN",
    );
    // A refused batch answers at once, and the same, for every path.
    const batch = crypto.randomUUID();
    const first = send(e, PROBES[0]!, paths.system!, batch);
    await decideNext(e.agent, "decline");
    const refused = [await first];
    for (const probe of PROBES) {
      for (const path of Object.values(paths)) refused.push(await send(e, probe, path, batch));
    }
    for (const r of refused) deepStrictEqual(r, answers[0]);
  });
});

Deno.test("[e2e] after consent the files are read and checked: the probes' errors come only then", async () => {
  await withAgent(async (e) => {
    const paths = await probePaths(e.dir);
    const after = async (probe: Probe, path: string) => {
      const pending = send(e, probe, path, crypto.randomUUID());
      await decideNext(e.agent, "confirm");
      return await pending;
    };
    const [dec731, etz62, dec16] = PROBES as [Probe, Probe, Probe];
    const folder = await after(dec731, paths.system!);
    equal(folder.json.errorCode, "LOCAL_INPUT_REQUIRED");
    equal(folder.json.details.files, 64);
    const xml = await after(etz62, paths.xml!);
    deepStrictEqual([xml.status, xml.json.errorCode], [502, "FILE_EIK_MISMATCH"]);
    equal((await after(dec16, paths.shadow!)).json.errorCode, "FILE_KIND_UNKNOWN");
    equal((await after(dec16, paths.missing!)).json.errorCode, "LOCAL_PATH_NOT_FOUND");
    // Only the path's syntax is checked before the page: a relative path is refused at once.
    const relative = await send(e, dec16, "relative/EMPL2021.TXT", crypto.randomUUID());
    equal(relative.json.errorCode, "LOCAL_PATH_INVALID");
    equal(e.agent.logs.filter((l) => l.msg === "confirmation page opened").length, 4);
  });
});
