import { equal, rejects } from "node:assert/strict";
import { writePrivateFile } from "../src/private_files.ts";

Deno.test("writePrivateFile: replaces the file whole, owner-only, no temporary file left", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/agent.json`;
    await Deno.writeTextFile(path, "old contents, longer than the new ones\n", { mode: 0o644 });
    await writePrivateFile(path, new TextEncoder().encode("new\n"));
    equal(await Deno.readTextFile(path), "new\n");
    if (Deno.build.os !== "windows") equal(Deno.statSync(path).mode! & 0o777, 0o600);
    equal([...Deno.readDirSync(dir)].map((e) => e.name).join(), "agent.json");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writePrivateFile: a failed rename leaves the old file and no temporary file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // A folder in the file's place: the temporary file is written, the rename over it fails.
    await Deno.mkdir(`${dir}/last.json`);
    await Deno.writeTextFile(`${dir}/last.json/inside`, "kept");
    await rejects(writePrivateFile(`${dir}/last.json`, "{}\n"));
    equal([...Deno.readDirSync(dir)].map((e) => e.name).join(), "last.json");
    equal(await Deno.readTextFile(`${dir}/last.json/inside`), "kept");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
