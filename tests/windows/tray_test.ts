/**
 * The tray icon of `svc-filing.exe` under Wine (docs/install.md § The tray icon): Wine's explorer
 * desktop with its taskbar (`explorer /desktop=shell,…`) on a virtual X display (Xvfb); the
 * package's `svc-filing.exe` (at `C:\svc-filing`) starts the agent and adds its icon; the icon is
 * found on the screen by its colour (running: green), its menu opened with a right click and
 * kept as `docs/tray-wine.png`; "Отвори конзолата" from the menu runs `agent open` (a fresh
 * one-time link, in the agent's log) and "Спри агента" runs `agent stop`. Needs Xvfb, xdotool and
 * ImageMagick's `import`; skips without them, fails instead under CI=true.
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ICON_STATES } from "../../scripts/package/icon.ts";
import { skipUnless } from "../_helpers/require_tool.ts";
import { skipWithoutWine, waitFor, wineMachine } from "../_helpers/wine.ts";
import { withDisplay, xdo } from "../_helpers/xvfb.ts";

const DOCS = fileURLToPath(new URL("../../docs/", import.meta.url));
const ignore = skipWithoutWine("the tray icon under Wine") ||
  skipUnless(["Xvfb", "xdotool", "import"], "the tray icon under Wine");

/** The desktop fills the virtual screen (tests/_helpers/xvfb.ts). */
const W = 1280, H = 800;

/** The screen as RGB bytes (ImageMagick's `import`). */
async function screen(display: string, png?: string): Promise<Uint8Array> {
  if (png) {
    const o = await new Deno.Command("import", {
      args: ["-display", display, "-window", "root", png],
    }).output();
    assert.ok(o.success, new TextDecoder().decode(o.stderr));
  }
  const o = await new Deno.Command("import", {
    args: ["-display", display, "-window", "root", "-depth", "8", "rgb:-"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(o.success, new TextDecoder().decode(o.stderr));
  return o.stdout;
}

/** Where the running icon's green is on the screen (the centre of those pixels), or null. */
function findIcon(rgb: Uint8Array, width: number): { x: number; y: number; n: number } | null {
  const [r, g, b] = ICON_STATES.running;
  let sx = 0, sy = 0, n = 0;
  for (let i = 0; i + 2 < rgb.length; i += 3) {
    if (
      Math.abs(rgb[i]! - r) < 6 && Math.abs(rgb[i + 1]! - g) < 6 && Math.abs(rgb[i + 2]! - b) < 6
    ) {
      const p = i / 3;
      sx += p % width;
      sy += Math.floor(p / width);
      n++;
    }
  }
  return n > 20 ? { x: Math.round(sx / n), y: Math.round(sy / n), n } : null;
}

Deno.test({
  name: "[wine] the tray icon: created, its menu opened (docs/tray-wine.png), open and stop",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const mm = await wineMachine();
    const data = join(mm.localAppData, "svc-filing");
    const log = () => Deno.readTextFile(join(data, "agent.log")).catch(() => "");
    try {
      await withDisplay(async (display) => {
        const env = { DISPLAY: display, SVC_OPEN_BROWSER: "never", SVC_AGENT_PORT: "0" };
        // Wine's desktop with its taskbar, the launcher started in it (its icon in the taskbar's
        // notification area, at the bottom right).
        const desktop = mm.start([
          "explorer",
          `/desktop=shell,${W}x${H}`,
          "C:\\svc-filing\\svc-filing.exe",
          "agent",
        ], env);
        await desktop.child.stdin.close();
        await waitFor(
          "the tray icon added",
          async () => /tray icon added/.test(await log()),
          90_000,
        )
          .catch(async (e) => {
            throw new Error(`${e.message}\n${await log()}`);
          });
        await waitFor(
          "the agent answers",
          async () => /answers \/health/.test(await log()),
          90_000,
        );
        // The icon turns green once /health answers (polled every 1.5 s).
        let icon: ReturnType<typeof findIcon> = null;
        await waitFor("the green icon on the screen", async () => {
          icon = findIcon(await screen(display), W);
          return icon !== null;
        }, 30_000);
        const at = icon!;
        assert.ok(at.y > H - 30 && at.x > W - 60, `not in the taskbar: ${JSON.stringify(at)}`);
        /** Right click on the icon; the menu's left and bottom edges (from what changed). */
        const openMenu = async (png?: string) => {
          const before = await screen(display);
          await xdo(display, "mousemove", String(at.x), String(at.y));
          await xdo(display, "click", "3");
          await new Promise((r) => setTimeout(r, 1500));
          const after = await screen(display, png);
          let left = W, bottom = 0, changed = 0;
          for (let p = 0; p < W * (H - 20); p++) { // above the taskbar (20 px)
            const i = p * 3;
            if (before[i] === after[i] && before[i + 1] === after[i + 1]) continue;
            changed++;
            left = Math.min(left, p % W);
            bottom = Math.max(bottom, Math.floor(p / W));
          }
          assert.ok(changed > 3000, `no menu appeared (${changed} pixels changed)`);
          return { left, bottom };
        };
        /** Point at a menu row (the menu highlights it on the motion), then click it. */
        const choose = async (x: number, y: number) => {
          await xdo(display, "mousemove", String(x - 10), String(y));
          await new Promise((r) => setTimeout(r, 500));
          await xdo(display, "mousemove", String(x), String(y));
          await new Promise((r) => setTimeout(r, 500));
          await xdo(display, "click", "1");
        };
        // The menu, kept as the docs' screenshot (and looked at).
        const menu = await openMenu(join(DOCS, "tray-wine.png"));
        // "Отвори конзолата" (the fourth row from the bottom: Open, Language, a line, Stop).
        await choose(menu.left + 50, menu.bottom - 54);
        await waitFor(
          "the console link from the tray",
          async () =>
            /started agent open --lang bg[\s\S]*The console: http\S+lang=bg/.test(await log()),
          60_000,
        ).catch(async (e) => {
          await screen(display, "/tmp/svc-tray-after-click.png");
          throw new Error(`${e.message} (menu ${JSON.stringify(menu)})\n${await log()}`);
        });
        // "Спри агента": the last row.
        const again = await openMenu();
        await choose(again.left + 50, again.bottom - 11);
        await waitFor(
          "agent stop from the tray",
          async () => /stop asked from the tray[\s\S]*started agent stop/.test(await log()),
          30_000,
        );
        // `agent stop` is the CLI's (docs/running.md); where it is not there yet, the agent is
        // stopped here (Ctrl+C), and the launcher ends with it either way.
        if (!/the agent ended/.test(await log())) {
          await new Promise((r) => setTimeout(r, 5000));
          for (const pid of await mm.denoPids()) Deno.kill(pid, "SIGINT");
        }
        await waitFor(
          "the tray's launcher ends with its agent",
          async () => /the agent ended/.test(await log()),
          60_000,
        );
        try {
          desktop.child.kill("SIGKILL");
        } catch { /* gone */ }
        await desktop.child.status;
      });
    } finally {
      for (const pid of await mm.denoPids()) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* gone */ }
      }
      await mm.close();
    }
  },
});
