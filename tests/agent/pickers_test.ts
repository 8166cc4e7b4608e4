/**
 * The native pickers with the real dialog program: zenity under Xvfb, driven by xdotool and xclip as a
 * user would (paste the path, Enter; or Escape to cancel).
 */
import { deepStrictEqual, equal, rejects } from "node:assert/strict";
import { join } from "node:path";
import { createNativePickers, pickerCommands } from "../../src/agent/host/pickers_native.ts";
import { isAppError } from "../../src/contract/errors.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import { answer, withDisplay } from "../_helpers/xvfb.ts";

const ignore = skipUnless(["Xvfb", "zenity", "xdotool", "xclip"], "native picker tests");

Deno.test({
  name:
    "createNativePickers() returns the path chosen in zenity, a cancel, and refuses a second dialog",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withDisplay(async (display) => {
      const dir = await Deno.makeTempDir({ prefix: "svc-pick-" });
      const file = join(dir, "Декларация 1.TXT");
      await Deno.writeTextFile(file, "x");
      // A dialog that is never answered fails the test in a minute, not the default 600 s.
      const pickers = createNativePickers({
        env: { DISPLAY: display, NO_AT_BRIDGE: "1" },
        timeoutMs: 60_000,
      });
      const p = pickers.pick("file");
      await rejects(pickers.pick("folder"), (e) => isAppError(e) && e.code === "PICKER_BUSY");
      await answer(display, "Choose a file", { type: file, key: "Return" }, p);
      deepStrictEqual(await p, { path: file, cancelled: false });

      const f = pickers.pick("folder");
      await answer(display, "Choose a folder", { type: dir + "/", key: "Return" }, f);
      const folder = await f;
      equal(folder.cancelled, false);
      equal(folder.path?.replace(/\/$/, ""), dir);

      const c = pickers.pick("file");
      await answer(display, "Choose a file", { key: "Escape" }, c);
      deepStrictEqual(await c, { path: null, cancelled: true });
      await Deno.remove(dir, { recursive: true });
    }),
});

Deno.test({
  name: "createNativePickers() kills an unanswered dialog at the time-out (PICKER_TIMEOUT)",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withDisplay(async (display) => {
      const pickers = createNativePickers({ env: { DISPLAY: display }, timeoutMs: 1500 });
      await rejects(pickers.pick("file"), (e) => isAppError(e) && e.code === "PICKER_TIMEOUT");
    }),
});

Deno.test("createNativePickers() answers PICKER_UNAVAILABLE when no dialog program exists", async () => {
  const pickers = createNativePickers({
    os: "linux",
    env: { PATH: "/nonexistent", DISPLAY: ":0" },
  });
  await rejects(pickers.pick("file"), (e) => isAppError(e) && e.code === "PICKER_UNAVAILABLE");
});

Deno.test("createNativePickers() says a dialog cannot open without a display (not a cancel)", async () => {
  const none = createNativePickers({ os: "linux", env: { PATH: "/usr/bin:/bin" } });
  await rejects(
    none.pick("file"),
    (e) => isAppError(e) && e.code === "PICKER_UNAVAILABLE" && e.details?.reason === "no_display",
  );
});

Deno.test({
  name: "createNativePickers() reads zenity's 'cannot open display' as PICKER_UNAVAILABLE",
  ignore: skipUnless(["zenity"], "zenity without a display"),
  fn: async () => {
    // A display number nothing serves: zenity exits 1 (its cancel code) and says why on stderr.
    const gone = createNativePickers({
      os: "linux",
      env: { PATH: "/usr/bin:/bin", DISPLAY: ":919" },
      timeoutMs: 20_000,
    });
    await rejects(
      gone.pick("file"),
      (e) => isAppError(e) && e.code === "PICKER_UNAVAILABLE" && e.details?.reason === "no_display",
    );
  },
});

Deno.test("pickerCommands() uses osascript on macOS, PowerShell on Windows, zenity then kdialog on Linux", () => {
  equal(pickerCommands("darwin", "folder")[0]!.cmd, "osascript");
  equal(pickerCommands("darwin", "folder")[0]!.args[1]!.includes("choose folder"), true);
  equal(pickerCommands("windows", "file")[0]!.cmd, "powershell.exe");
  equal(pickerCommands("windows", "folder")[0]!.args.at(-1)!.includes("FolderBrowserDialog"), true);
  deepStrictEqual(pickerCommands("linux", "folder").map((c) => c.cmd), ["zenity", "kdialog"]);
  equal(pickerCommands("linux", "folder")[0]!.args.includes("--directory"), true);
});
