import * as assert from "node:assert/strict";
import {
  detectFileKind,
  kindFromFileName,
  NRA_FILE_KINDS,
  NRA_FORMATS,
  parseNraFile,
} from "../../src/formats/mod.ts";

const FIXTURES = new URL("../../fixtures/formats/", import.meta.url);

Deno.test("NRA_FORMATS: each kind is known by its canonical file name", () => {
  for (const kind of NRA_FILE_KINDS) {
    assert.equal(kindFromFileName(NRA_FORMATS[kind].fileName), kind);
    assert.equal(kindFromFileName(`/x/${NRA_FORMATS[kind].fileName.toLowerCase()}`), kind);
  }
});

Deno.test("NRA_FORMATS: every fixture of a kind is detected and parsed as that kind", async () => {
  for (const kind of NRA_FILE_KINDS) {
    const dir = new URL(`${kind}/`, FIXTURES);
    let seen = 0;
    for await (const e of Deno.readDir(dir)) {
      if (!/\.txt$/i.test(e.name) || /bad|invalid|broken/i.test(e.name)) continue;
      const bytes = await Deno.readFile(new URL(e.name, dir));
      if (detectFileKind(bytes) !== kind) continue; // fixtures of malformed content
      const parsed = parseNraFile(bytes, e.name);
      assert.equal(parsed.kind, kind, e.name);
      assert.ok(parsed.records.length > 0, e.name);
      seen++;
    }
    assert.ok(seen > 0, `no readable fixture of ${kind}`);
  }
});

Deno.test("parseNraFile() names every readable format when none matches", () => {
  assert.throws(
    () => parseNraFile(new TextEncoder().encode("hello\r\n"), "notes.txt"),
    (e: Error & { code?: string }) => {
      assert.equal(e.code, "FILE_KIND_UNKNOWN");
      for (const k of NRA_FILE_KINDS) assert.ok(e.message.includes(NRA_FORMATS[k].fileName));
      return true;
    },
  );
});
