import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const mockDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "mock");
const sources = readdirSync(mockDir).filter((f) => f.endsWith(".ts")).map((f) => ({
  file: f,
  code: readFileSync(join(mockDir, f), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ""),
}));

Deno.test("src/mock never calls Math.random, Date.now, crypto.randomUUID or new Date()", () => {
  assert.ok(sources.length > 10);
  for (const { file, code } of sources) {
    for (const banned of [/Math\.random/, /Date\.now/, /randomUUID/, /new Date\(\s*\)/]) {
      assert.doesNotMatch(code, banned, `${file} uses ${banned}`);
    }
  }
});

Deno.test("src/mock imports only the contract, node:crypto, pure-rand, hono/utils/html, record_count.ts, local_time.ts and itself", () => {
  for (const { file, code } of sources) {
    for (const [, spec = ""] of code.matchAll(/from\s+"([^"]+)"/g)) {
      const ok = spec.startsWith("./") || spec.startsWith("../contract/") ||
        spec === "node:crypto" || spec.startsWith("pure-rand/") ||
        spec === "hono/utils/html" || // escapeToBuffer, a pure function
        spec === "../record_count.ts" || // recordCount, a pure function
        spec === "../local_time.ts"; // Sofia-time formatting of a given instant; reads no clock
      assert.ok(ok, `${file} imports ${spec}`);
    }
  }
});
