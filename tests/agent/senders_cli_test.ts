/**
 * `main.ts senders add|list|test|remove|discover|activate` (src/cli/senders.ts) in process, with real key stores:
 * a PKCS#12 file made by openssl and a SoftHSM2 token (PKCS#11 through Deno.dlopen).
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { readAgentFile } from "../../src/agent/senders/agent_file.ts";
import { runInProcess } from "../cli/_run.ts";
import { writePkcs12, writeTestPki } from "../_helpers/pki.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import { createSoftHsmToken, holdSoftHsm, TOKEN_PIN } from "../signing/softhsm_fixture.ts";

const ignore = skipUnless(["openssl", "softhsm2-util", "pkcs11-tool"], "senders CLI tests");

/** `senders …` on `dataDir` in process; `lines` holds stdout then stderr, line by line. */
function cli(dataDir: string, pin = "") {
  const lines: string[] = [];
  return {
    lines,
    run: async (args: string[]) => {
      const r = await runInProcess(["senders", ...args, "--data-dir", dataDir], { stdin: pin });
      lines.push(...`${r.stdout}${r.stderr}`.split("\n").filter(Boolean));
      return r.code;
    },
  };
}

Deno.test({
  name:
    "senders add/list/test/remove with a PKCS#12 file; a wrong password fails; agent.json keeps only a reference",
  ignore,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "svc-senders-" });
    const pki = await writeTestPki(dir);
    const p12 = join(dir, "ivan.p12");
    await writePkcs12(pki.rsa, p12, "s3cret");
    const ok1 = cli(dir, "s3cret");
    equal(
      await ok1.run([
        "add",
        "--id",
        "ivan",
        "--name",
        "Иван Петров",
        "--pkcs12",
        p12,
        "--pin-stdin",
      ]),
      0,
      ok1.lines.join("\n"),
    );
    match(ok1.lines.join("\n"), /\[ok\] qcStatements/);
    const file = await readAgentFile(dir);
    equal(file.senders[0]!.id, "ivan");
    equal(file.senders[0]!.keystore!.type, "pkcs12");
    ok(!JSON.stringify(file).includes("s3cret"), "the password is never stored");
    const list = cli(dir);
    equal(await list.run(["list"]), 0);
    match(list.lines[0]!, /^ivan\tИван Петров\tactive\tpkcs12$/);
    const t = cli(dir, "s3cret");
    equal(await t.run(["test", "ivan", "--pin-stdin"]), 0, t.lines.join("\n"));
    match(t.lines[0]!, /^OK: a \d+-byte CMS signature/);
    const bad = cli(dir, "wrong");
    equal(await bad.run(["test", "ivan", "--pin-stdin"]), 1);
    match(bad.lines[0]!, /PIN_INCORRECT/);
    ok(!bad.lines.join("").includes("wrong"), "the PIN is never printed");
    const dup = cli(dir, "s3cret");
    equal(await dup.run(["add", "--id", "ivan", "--name", "x", "--pkcs12", p12, "--pin-stdin"]), 1);
    const rm = cli(dir);
    equal(await rm.run(["remove", "ivan"]), 0);
    equal((await readAgentFile(dir)).senders.length, 0);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name:
    "senders add --pkcs11 reads the certificate from a SoftHSM2 token and test signs with the PIN",
  ignore,
  sanitizeResources: false,
  fn: async () => {
    await using hsm = await holdSoftHsm();
    const dir = await Deno.makeTempDir({ prefix: "svc-senders-hsm-" });
    const pki = await writeTestPki(dir);
    const token = hsm.use(await createSoftHsmToken(pki, dir));
    const c = cli(dir, TOKEN_PIN);
    const code = await c.run([
      "add",
      "--id",
      "maria",
      "--name",
      "Мария (SoftHSM)",
      "--pkcs11",
      token.module,
      "--slot",
      "test",
      "--cert-id",
      "id=02",
    ]);
    equal(code, 0, c.lines.join("\n"));
    const t = cli(dir, TOKEN_PIN);
    equal(await t.run(["test", "maria", "--pin-stdin"]), 0, t.lines.join("\n"));
    const w = cli(dir, "0000");
    equal(await w.run(["test", "maria", "--pin-stdin"]), 1);
    match(w.lines[0]!, /PIN_INCORRECT/);
    // `senders discover` finds the token through the default module list (the Debian path).
    const found = await runInProcess(["senders", "discover", "--json"]);
    equal(found.code, 0, found.stderr);
    const certs = found.json().certificates as { holderName: string; personalIdMasked: string }[];
    deepEqual(certs.map((c) => c.holderName).sort(), ["Ivan Petrov ec", "Ivan Petrov rsa"]);
    equal(certs[0]!.personalIdMasked, "80******08");
    const text = await runInProcess(["senders", "discover"]);
    match(text.stdout, /^SoftHSM2, token "test": C=BG, serialNumber=PNOBG-80\*{6}08, CN=Ivan/m);
    const two = cli(dir);
    equal(
      await two.run(["add", "--name", "Мария 2", "--pkcs11", token.module, "--cert-id", "id=01"]),
      0,
      two.lines.join("\n"),
    );
    match(two.lines.at(-1)!, /^Added sender mariya-2 \(Мария 2\)\.$/);
    const act = cli(dir);
    equal(await act.run(["activate", "mariya-2"]), 0, act.lines.join("\n"));
    deepEqual((await readAgentFile(dir)).senders.map((s) => [s.id, s.active]), [
      ["maria", false],
      ["mariya-2", true],
    ]);
    await Deno.remove(dir, { recursive: true });
  },
});
