/**
 * A virtual X display (Xvfb) for the native dialogs (zenity), and xdotool to answer them as a
 * user would: type the path, Enter; or Escape.
 */

/** Run `fn` with a fresh Xvfb display (`:N`), killed afterwards. */
export async function withDisplay(fn: (display: string) => Promise<void>) {
  const n = 90 + Math.floor(Math.random() * 400);
  const display = `:${n}`;
  const xvfb = new Deno.Command("Xvfb", {
    args: [display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    for (let i = 0; i < 100; i++) {
      try {
        await Deno.stat(`/tmp/.X11-unix/X${n}`);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    await fn(display);
  } finally {
    xvfb.kill();
    await xvfb.status;
  }
}

/** Run xdotool on a display; its stdout. */
export async function xdo(display: string, ...args: string[]) {
  const out = await new Deno.Command("xdotool", {
    args,
    env: { DISPLAY: display },
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

/**
 * Answer the dialog as a user would, and again (up to three times) while `pending` has not
 * settled: on a loaded machine a keystroke sent before the dialog was ready can be lost.
 */
export async function answer(
  display: string,
  title: string,
  keys: { type?: string; key: string },
  pending: Promise<unknown>,
) {
  const settled = pending.then(() => true, () => true);
  for (let attempt = 0; attempt < 3; attempt++) {
    const ids = (await xdo(display, "search", "--sync", "--onlyvisible", "--name", title)).split(
      "\n",
    );
    await new Promise((r) => setTimeout(r, 1200));
    // No window manager under Xvfb: give the dialog the keyboard focus explicitly.
    await xdo(display, "windowfocus", "--sync", ids.at(-1)!);
    // A retry opens the location entry with its text selected (Ctrl+L), so typing replaces it.
    if (keys.type && attempt > 0) await xdo(display, "key", "ctrl+l");
    if (keys.type) await xdo(display, "type", "--delay", "40", keys.type);
    await new Promise((r) => setTimeout(r, 800));
    await xdo(display, "key", keys.key);
    const done = await Promise.race([
      settled,
      new Promise<false>((r) => setTimeout(() => r(false), 8000)),
    ]);
    if (done) return;
  }
}
