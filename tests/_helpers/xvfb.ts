/**
 * A virtual X display (Xvfb) for the native dialogs (zenity), and xdotool to answer them as a
 * user would: paste the path (xclip), Enter; or Escape.
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
 * Put `text` on the display's clipboard (xclip stays in the background to serve it, until the
 * display ends). Pasting is what a user does with a long path, and unlike `xdotool type` it
 * cannot drop a Cyrillic letter: xdotool types a letter outside the keymap by remapping a spare
 * keycode for a moment, a race the dialog can lose on a loaded machine.
 */
async function toClipboard(display: string, text: string) {
  const child = new Deno.Command("xclip", {
    args: ["-selection", "clipboard", "-i"],
    env: { DISPLAY: display },
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(text));
  await w.close();
  await child.status; // xclip forks: the parent ends once the text is read.
}

/**
 * Answer the dialog as a user would (paste the path into the location entry, then the key), and
 * again (up to four times) while `pending` has not settled: on a loaded machine a keystroke sent
 * before the dialog was ready can be lost.
 */
export async function answer(
  display: string,
  title: string,
  keys: { type?: string; key: string },
  pending: Promise<unknown>,
) {
  const settled = pending.then(() => true, () => true);
  if (keys.type) await toClipboard(display, keys.type);
  for (let attempt = 0; attempt < 4; attempt++) {
    const ids = (await xdo(display, "search", "--sync", "--onlyvisible", "--name", title)).split(
      "\n",
    );
    await new Promise((r) => setTimeout(r, 1200));
    // No window manager under Xvfb: give the dialog the keyboard focus explicitly.
    await xdo(display, "windowfocus", "--sync", ids.at(-1)!);
    if (keys.type) {
      // Ctrl+L opens (or focuses) the file chooser's location entry; select all, paste over it.
      await xdo(display, "key", "ctrl+l");
      await new Promise((r) => setTimeout(r, 300));
      await xdo(display, "key", "ctrl+a");
      await xdo(display, "key", "ctrl+v");
    }
    await new Promise((r) => setTimeout(r, 800));
    await xdo(display, "key", keys.key);
    const done = await Promise.race([
      settled,
      new Promise<false>((r) => setTimeout(() => r(false), 8000)),
    ]);
    if (done) return;
  }
}
