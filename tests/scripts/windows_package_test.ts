/**
 * The Windows parts of the package build, without Windows (docs/install.md § Windows: the
 * installed program): the icons' ICO format, the installer's GUIDs (one UpgradeCode for every
 * version, a ProductCode per version), the WiX source's per-user scope, upgrade and
 * registrations, the version resource, the tray's state from the console's batches, and the
 * MSI's marker that keeps `agent update` from swapping an installed program's folder.
 */
import * as assert from "node:assert/strict";
import { ICON_STATES, iconFile } from "../../scripts/package/icon.ts";
import { resourceScript, versionQuad } from "../../scripts/package/launcher_exe.ts";
import {
  bulgarianTexts,
  nameGuid,
  START_MENU_NAME,
  UPGRADE_CODE,
  wixSource,
} from "../../scripts/package/msi.ts";
import { trayState } from "../../src/agent/console/tray_state.ts";
import { installedByMsi, MSI_MARKER } from "../../src/agent/update/mod.ts";
import { join } from "node:path";

Deno.test("iconFile() writes an ICO with a 16×16 and a 32×32 image in the state's colour", () => {
  for (const state of Object.keys(ICON_STATES) as (keyof typeof ICON_STATES)[]) {
    const ico = iconFile(state);
    const v = new DataView(ico.buffer);
    assert.equal(v.getUint16(0, true), 0);
    assert.equal(v.getUint16(2, true), 1, "type icon");
    assert.equal(v.getUint16(4, true), 2, "two images");
    const sizes = [];
    for (let i = 0; i < 2; i++) {
      const e = 6 + 16 * i;
      const size = ico[e]!;
      const bytes = v.getUint32(e + 8, true);
      const offset = v.getUint32(e + 12, true);
      assert.ok(offset + bytes <= ico.length);
      assert.equal(v.getUint32(offset, true), 40, "BITMAPINFOHEADER");
      assert.equal(v.getInt32(offset + 8, true), size * 2, "height holds the AND mask");
      assert.equal(v.getUint16(offset + 14, true), 32, "32-bit");
      // A pixel on the badge's rim (left middle, inside the circle, outside the sheet): BGRA.
      const y = Math.floor(size / 2), x = 2;
      const at = offset + 40 + ((size - 1 - y) * size + x) * 4;
      const [r, g, b] = ICON_STATES[state];
      assert.deepEqual([ico[at + 2], ico[at + 1], ico[at]], [r, g, b], `${state} ${size}`);
      sizes.push(size);
    }
    assert.deepEqual(sizes, [16, 32]);
  }
});

Deno.test("the MSI's GUIDs: one UpgradeCode, a ProductCode per version, stable", () => {
  assert.match(
    UPGRADE_CODE,
    /^\{[0-9A-F]{8}-[0-9A-F]{4}-5[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}\}$/,
  );
  assert.equal(nameGuid("upgrade-code"), UPGRADE_CODE);
  assert.notEqual(nameGuid("product:0.1.0"), nameGuid("product:0.1.1"));
  const a = wixSource("0.1.0", [{ path: "svc-filing.exe", source: "files/svc-filing.exe" }], "i");
  const b = wixSource("0.1.1", [{ path: "svc-filing.exe", source: "files/svc-filing.exe" }], "i");
  const code = (s: string) => /UpgradeCode="([^"]+)"/.exec(s)![1];
  const product = (s: string) => /<Product Id="([^"]+)"/.exec(s)![1];
  assert.equal(code(a), UPGRADE_CODE);
  assert.equal(code(b), UPGRADE_CODE);
  assert.notEqual(product(a), product(b));
});

Deno.test("wixSource(): per user, upgrade, Start menu, Apps, Run value and svc-agent:// handler", () => {
  const wxs = wixSource("1.2.3-rc.1", [
    { path: "svc-filing.exe", source: "files/svc-filing.exe" },
    { path: "runtime/deno.exe", source: "files/runtime/deno.exe" },
    {
      path: "app/assets/swagger-ui-dist/a&b.css",
      source: "files/app/assets/swagger-ui-dist/a&b.css",
    },
  ], "svc.ico");
  assert.match(wxs, /InstallScope="perUser"/);
  assert.match(wxs, /Version="1\.2\.3"/);
  assert.match(wxs, /<MajorUpgrade /);
  assert.match(
    wxs,
    /<Directory Id="LocalAppDataFolder">\s*<Directory Id="d_programs" Name="Programs">\s*<Directory Id="INSTALLDIR" Name="svc-filing">/,
  );
  assert.match(
    wxs,
    /Key="Software\\Microsoft\\Windows\\CurrentVersion\\Run" Name="SvcFilingAgent" Type="string"\s+Value="&quot;\[INSTALLDIR\]svc-filing\.exe&quot; agent"/,
  );
  assert.match(
    wxs,
    /Key="Software\\Classes\\svc-agent\\shell\\open\\command" Type="string" Value="&quot;\[INSTALLDIR\]svc-filing\.exe&quot; &quot;%1&quot;"/,
  );
  assert.match(
    wxs,
    /Uninstall\\svc-filing" Name="DisplayVersion" Type="string" Value="1\.2\.3-rc\.1"/,
  );
  assert.match(wxs, /Name="a&amp;b\.css"/);
  // Every component is in the feature.
  const components = [...wxs.matchAll(/<Component Id="([^"]+)"/g)].map((m) => m[1]);
  const refs = new Set([...wxs.matchAll(/<ComponentRef Id="([^"]+)"/g)].map((m) => m[1]));
  assert.deepEqual(components.filter((c) => !refs.has(c)), []);
  assert.throws(() => wixSource("one", [], "i"), /not major\.minor\.patch/);
  // The Bulgarian names are set afterwards (wixl keeps Latin text only).
  assert.doesNotMatch(wxs, /[а-я]/i);
  assert.ok(bulgarianTexts().some((q) => q.includes(`svcagent|${START_MENU_NAME}`)));
});

Deno.test("the version resource's numbers come from the semantic version", () => {
  assert.equal(versionQuad("0.1.0"), "0,1,0,0");
  assert.equal(versionQuad("12.3.45-rc.1+b7"), "12,3,45,0");
  const rc = resourceScript("0.2.0");
  assert.match(rc, /^1 ICON "icon-running\.ico"$/m);
  assert.match(rc, /^4 ICON "icon-starting\.ico"$/m);
  assert.match(rc, /FILEVERSION 0,2,0,0/);
  assert.match(rc, /VALUE "ProductVersion", "0\.2\.0"/);
});

Deno.test("trayState(): filing with its count, attention after failures, else running", () => {
  const batch = (state: string, n: Partial<Record<string, number>> = {}) => ({
    progress: {
      batchId: `b-${state}`,
      state,
      total: n.total ?? 10,
      filed: n.filed ?? 0,
      skipped: n.skipped ?? 0,
      failed: n.failed ?? 0,
      unknown: n.unknown ?? 0,
    },
  });
  assert.deepEqual(trayState([]), { state: "running" });
  assert.deepEqual(trayState([batch("done", { filed: 10 })]), { state: "running" });
  assert.deepEqual(trayState([batch("done", { filed: 9, unknown: 1 })]), { state: "attention" });
  assert.deepEqual(
    trayState([
      batch("running", { filed: 2, skipped: 1, failed: 1 }),
      batch("done", { failed: 2 }),
    ]),
    { state: "filing", batchId: "b-running", done: 4, total: 10 },
  );
});

Deno.test("installedByMsi(): only an install with the MSI's marker is the installer's", async () => {
  const root = await Deno.makeTempDir({ prefix: "svc-msi-marker-" });
  try {
    const install = { root, launcher: join(root, "svc-filing") };
    assert.equal(await installedByMsi(install, "linux"), false);
    await Deno.writeTextFile(
      join(root, MSI_MARKER),
      "Installed by svc-filing-0.1.0-win-x64.msi\r\n",
    );
    assert.equal(await installedByMsi(install, "linux"), true);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
