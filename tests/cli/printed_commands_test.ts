/**
 * Instructions that run where they are printed: the demo's examples in Windows PowerShell 5.1 on
 * Windows and in sh elsewhere, and usage hints that name the program as the person has it (the
 * package's launcher, or main.ts from source). The Windows launcher's own hint is executed
 * under Wine in tests/windows/launcher_test.ts.
 */
import { equal, match, ok } from "node:assert/strict";
import { programName, runCli } from "../../src/cli/program.ts";
import { demoExample } from "../../src/cli/texts.ts";
import { systemClock } from "../../src/clock.ts";

Deno.test("the demo's examples on Windows are PowerShell 5.1 one-liners", () => {
  const text = demoExample("http://127.0.0.1:1", "http://127.0.0.1:2", "svc_test_k", "windows");
  const lines = text.split("\n").filter((l) => l.startsWith("$t="));
  equal(lines.length, 2);
  for (const l of lines) {
    match(
      l,
      /^\$t=\(Invoke-RestMethod -Method Post -Uri http:\/\/127\.0\.0\.1:1\/api\/v1\/tokens\/issue /,
    );
    match(l, /Authorization='Bearer svc_test_k'/);
    match(l, /Invoke-RestMethod -Method Post -Uri http:\/\/127\.0\.0\.1:2\/api\/v1\/operations\//);
    // Nothing of sh: no curl, no $(…), no sed, no backslash line continuation.
    ok(!/curl|\$\(|sed |uuidgen|\/proc\//.test(l), l);
    // Only ASCII: the console's code page cannot change what is sent.
    ok(/^[\x20-\x7e]+$/.test(l), l);
  }
  // The JSON bodies stay valid JSON once PowerShell's single quotes are taken off.
  for (const body of lines.flatMap((l) => [...l.matchAll(/-Body '([^']*)'/g)].map((m) => m[1]!))) {
    JSON.parse(body);
  }
  equal(JSON.parse('{"filter":"\\u0414\\u0414\\u0421"}').filter, "ДДС");
  match(lines[0]!, /"filter":"\\u0414\\u0414\\u0421"/);
  match(lines[1]!, /'X-Svc-Batch-Id'=\[guid\]::NewGuid\(\)\.ToString\(\)/);
});

Deno.test("the demo's examples on Linux and macOS are sh with curl", () => {
  for (const os of ["linux", "darwin"]) {
    const text = demoExample("http://127.0.0.1:1", "http://127.0.0.1:2", "svc_test_k", os);
    ok(!text.includes("Invoke-RestMethod"));
    match(text, /TOKEN=\$\(curl -s http:\/\/127\.0\.0\.1:1\/api\/v1\/tokens\/issue/);
  }
});

Deno.test("usage hints name the package's launcher, or main.ts from source", async () => {
  const pkg = "file:///C:/Users/a/svc-filing/app/svc-filing.js";
  equal(programName({ mainModule: pkg, os: "windows" }), "svc-filing.cmd");
  equal(
    programName({ mainModule: "file:///opt/svc-filing/app/svc-filing.js", os: "linux" }),
    "svc-filing",
  );
  equal(programName({ mainModule: "file:///work/main.ts", os: "linux" }), "main.ts");
  let err = "";
  const r = await runCli(["agnt"], {
    env: {},
    os: "windows",
    clock: systemClock,
    stdout: () => {},
    stderr: (s) => err += s,
    readLine: () => Promise.resolve(""),
    execPath: "C:\\Users\\a\\svc-filing\\runtime\\deno.exe",
    mainModule: pkg,
  });
  equal(r.code, 2);
  match(err, /Run 'svc-filing\.cmd --help' for usage\./);
});
