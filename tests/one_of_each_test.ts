/**
 * docs/architecture.md § One of each: what is written once in src/ stays written once. Each rule
 * names the one file that may hold the code; any other file of src/ that holds it fails here.
 */
import { deepEqual } from "node:assert/strict";

const RULES: readonly { what: string; code: RegExp; home: string }[] = [
  {
    what: "the message of anything thrown (errorMessage)",
    code: /\b(\w+) instanceof Error \? \1\.message : String\(\1\)/,
    home: "src/error_message.ts",
  },
  {
    what: "a time in Bulgaria (local_time.ts)",
    code: /new Intl\.DateTimeFormat/,
    home: "src/local_time.ts",
  },
];

/** Every .ts file below `dir`, with `/` separators. */
async function* sources(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* sources(path);
    else if (e.isFile && path.endsWith(".ts")) yield path;
  }
}

Deno.test("one of each: no second copy of a shared helper in src/", async () => {
  const found: string[] = [];
  for await (const path of sources("src")) {
    const text = await Deno.readTextFile(path);
    for (const r of RULES) {
      if (path !== r.home && r.code.test(text)) found.push(`${path}: ${r.what}`);
    }
  }
  deepEqual(found, []);
});

Deno.test("one of each: each rule's home holds the code (the rule can fire)", async () => {
  for (const r of RULES) {
    const text = await Deno.readTextFile(r.home);
    deepEqual([r.home, r.code.test(text)], [r.home, true]);
  }
});
