/**
 * Small helpers of the Wine tests (tests/_helpers/wine.ts): waiting for a condition, and removing
 * what a stopped wineserver leaves in /tmp.
 */
import { join } from "node:path";

/**
 * Remove the wineserver's socket folder of a prefix (`server-<dev>-<inode>` in a `/tmp/wine-…` folder, which
 * Wine leaves behind), once its server has stopped.
 * @param prefix the prefix
 */
export async function removeServerDir(prefix: string): Promise<void> {
  const st = await Deno.stat(prefix).catch(() => null);
  if (!st?.dev || !st.ino) return;
  const name = `server-${st.dev.toString(16)}-${st.ino.toString(16)}`;
  for await (const e of Deno.readDir("/tmp")) {
    if (!e.isDirectory || !e.name.startsWith("wine-")) continue;
    const dir = join("/tmp", e.name);
    if (await Deno.stat(join(dir, name)).then(() => true, () => false)) {
      await Deno.remove(join(dir, name), { recursive: true }).catch(() => {});
      await Deno.remove(dir).catch(() => {}); // only when empty
    }
  }
}

/**
 * Wait until a condition holds.
 * @param what for the error
 * @param cond the condition
 * @param ms at most this long
 * @throws Error naming `what` after `ms`
 */
export async function waitFor(
  what: string,
  cond: () => boolean | Promise<boolean>,
  ms = 30_000,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
