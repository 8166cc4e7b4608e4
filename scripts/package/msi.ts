/**
 * The per-user Windows installer `svc-filing-<version>-win-x64.msi` (docs/install.md § Windows:
 * the installer), built with `wixl` (Debian `wixl`, from msitools) from the same files as the
 * win-x64 zip. What it does, without administrator rights and without a question:
 *
 * - installs the package into `%LOCALAPPDATA%\Programs\svc-filing` (InstallScope perUser);
 * - adds the Start-menu entry "Агент за подаване към НАП" (svc-filing.exe: starts the agent and
 *   opens its console);
 * - registers the program in "Apps" with its own entry,
 *   `HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\svc-filing` (name, version,
 *   publisher, icon, how to uninstall; Windows Installer's own entry is hidden so that the
 *   program is listed once);
 * - starts the agent at login (`HKCU\…\Run` value `SvcFilingAgent` = `"…\svc-filing.exe" agent`)
 *   and lets pages start it (`HKCU\Software\Classes\svc-agent`, the `svc-agent://` handler);
 * - upgrades an older version in place (MajorUpgrade, one UpgradeCode for every version); the
 *   data folder (`%LOCALAPPDATA%\svc-filing`: journal, senders, settings) is never the
 *   installer's, so an upgrade and an uninstall keep it;
 * - uninstall (`msiexec /x`, or "Apps") removes the program, the Start-menu entry, the Run value
 *   and the `svc-agent://` handler.
 *
 * wixl stores only Latin text in the database: the Bulgarian names (the product's, the Start-menu
 * entry's and its description, "Apps"' display name) are written afterwards with `msibuild`
 * (msitools) into a UTF-8 database (`_ForceCodepage` 65001), replacing ASCII placeholders.
 *
 * GUIDs are derived from names (the UpgradeCode from the product's name; the ProductCode from the
 * version; each component's from its path), so builds of one version agree.
 * @module
 */
import { createHash } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import type { ArchiveEntry } from "./archive.ts";
import { iconFile } from "./icon.ts";
import { runCommand, type Runner } from "./runtime.ts";
import { LAUNCHER_EXE } from "./launcher_exe.ts";
import { MSI_MARKER } from "../../src/agent/update/install.ts";

/** The Start-menu entry's name (and the name "Apps" shows). */
export const START_MENU_NAME = "Агент за подаване към НАП";
/** The Start-menu entry's description. */
export const START_MENU_DESCRIPTION = "Отваря конзолата на агента (стартира го, ако не работи)";
/** The publisher "Apps" shows. */
export const PUBLISHER = "SVC";
/** The "Apps" entry this installer writes. */
export const UNINSTALL_KEY = "Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\svc-filing";
/** The start-at-login value (the same name `agent install-autostart` uses). */
export const RUN_KEY = "Software\\Microsoft\\Windows\\CurrentVersion\\Run";
export const RUN_VALUE = "SvcFilingAgent";

/**
 * A GUID derived from a name (SHA-256, shaped as a version-5-like GUID), upper case in braces.
 * @param name what it identifies
 * @returns e.g. `{1B4E28BA-2FA1-5D2A-83C0-1F8C8E1C2B3D}`
 */
export function nameGuid(name: string): string {
  const h = createHash("sha256").update(`svc-filing msi:${name}`).digest("hex").toUpperCase();
  const v = `5${h.slice(13, 16)}`;
  const r = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16).toUpperCase() + h.slice(17, 20);
  return `{${h.slice(0, 8)}-${h.slice(8, 12)}-${v}-${r}-${h.slice(20, 32)}}`;
}

/** The UpgradeCode: the same for every version, so a newer MSI replaces an older one. */
export const UPGRADE_CODE = nameGuid("upgrade-code");

const id = (kind: string, s: string) =>
  `${kind}_${createHash("sha256").update(s).digest("hex").slice(0, 16)}`;
const xml = (s: string) =>
  s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll(
    '"',
    "&quot;",
  );

/** ASCII placeholders wixl writes, replaced by {@link bulgarianTexts}. */
const PH = {
  product: "SVCPLACEHOLDERPRODUCT",
  shortcut: "svcagent",
  description: "SVCPLACEHOLDERDESCRIPTION",
  display: "SVCPLACEHOLDERDISPLAY",
} as const;

/**
 * The SQL that puts the Bulgarian texts in place of the placeholders (msibuild `-q`), after the
 * database's codepage is set to UTF-8.
 * @returns the queries
 */
export function bulgarianTexts(): string[] {
  const q = (s: string) => `'${s.replaceAll("'", "''")}'`;
  return [
    `UPDATE Property SET Value=${q(START_MENU_NAME)} WHERE Property='ProductName'`,
    // A Filename column: the short name, then the long one.
    `UPDATE Shortcut SET Name=${q(`svcagent|${START_MENU_NAME}`)}, ` +
    `Description=${q(START_MENU_DESCRIPTION)} WHERE Shortcut='s_start'`,
    `UPDATE Registry SET Value=${q(START_MENU_NAME)} WHERE Name='DisplayName'`,
  ];
}

/** A file of the installer: its path in the package (`svc-filing/…` dropped) and on disk. */
export interface MsiFile {
  /** `/`-separated, relative to the install folder (e.g. `runtime/deno.exe`). */
  readonly path: string;
  /** Where wixl reads it (relative to its working folder). */
  readonly source: string;
}

/**
 * The WiX source of the installer.
 * @param version the app version (ProductVersion; `major.minor.patch`)
 * @param files the files, relative to the install folder
 * @param icon the icon's path (relative to wixl's working folder)
 * @returns the `.wxs` text
 * @throws Error when the version is not `major.minor.patch[-…]`
 */
export function wixSource(version: string, files: readonly MsiFile[], icon: string): string {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) throw new Error(`version ${version} is not major.minor.patch`);
  const msiVersion = `${m[1]}.${m[2]}.${m[3]}`;
  // The folder tree, each folder with its files' components.
  interface Dir {
    readonly path: string;
    readonly dirs: Map<string, Dir>;
    readonly files: MsiFile[];
  }
  const root: Dir = { path: "", dirs: new Map(), files: [] };
  for (const f of files) {
    let d = root;
    const parts = f.path.split("/");
    for (const p of parts.slice(0, -1)) {
      const path = d.path ? `${d.path}/${p}` : p;
      if (!d.dirs.has(p)) d.dirs.set(p, { path, dirs: new Map(), files: [] });
      d = d.dirs.get(p)!;
    }
    d.files.push(f);
  }
  const refs: string[] = [];
  const dirId = (d: Dir) => d.path ? id("d", d.path) : "INSTALLDIR";
  const render = (d: Dir, indent: string): string[] => {
    const out: string[] = [];
    for (const f of d.files) {
      const c = id("c", f.path);
      refs.push(c);
      out.push(
        `${indent}<Component Id="${c}" Guid="${nameGuid(`component:${f.path}`)}">`,
        `${indent}  <File Id="${id("f", f.path)}" Name="${xml(f.path.split("/").at(-1)!)}" ` +
          `Source="${xml(f.source)}" KeyPath="yes"/>`,
        `${indent}</Component>`,
      );
    }
    for (const [name, sub] of [...d.dirs].sort(([a], [b]) => a < b ? -1 : 1)) {
      const c = id("r", sub.path);
      refs.push(c);
      out.push(
        `${indent}<Directory Id="${dirId(sub)}" Name="${xml(name)}">`,
        // The folder goes on uninstall (Windows Installer removes only what it lists).
        `${indent}  <Component Id="${c}" Guid="${nameGuid(`folder:${sub.path}`)}">`,
        `${indent}    <RemoveFolder Id="${id("x", sub.path)}" On="uninstall"/>`,
        `${indent}    <RegistryValue Root="HKCU" Key="Software\\svc-filing\\Folders" ` +
          `Name="${xml(sub.path)}" Type="integer" Value="1" KeyPath="yes"/>`,
        `${indent}  </Component>`,
        ...render(sub, `${indent}  `),
        `${indent}</Directory>`,
      );
    }
    return out;
  };
  const tree = render(root, "            ");
  const exe = `[INSTALLDIR]${LAUNCHER_EXE}`;
  const reg = (key: string, name: string | null, value: string, type = "string") =>
    `          <RegistryValue Root="HKCU" Key="${xml(key)}"${
      name === null ? "" : ` Name="${xml(name)}"`
    } Type="${type}" Value="${xml(value)}"/>`;
  return `<?xml version="1.0" encoding="utf-8"?>
<Wix xmlns="http://schemas.microsoft.com/wix/2006/wi">
  <Product Id="${
    nameGuid(`product:${msiVersion}`)
  }" Name="${PH.product}" Language="1026" Version="${msiVersion}" Manufacturer="${PUBLISHER}"
      UpgradeCode="${UPGRADE_CODE}">
    <Package InstallerVersion="500" Compressed="yes" InstallScope="perUser"
        Languages="1026"
        Description="svc-filing ${xml(version)}" Manufacturer="${PUBLISHER}"/>
    <Media Id="1" Cabinet="svc.cab" EmbedCab="yes"/>
    <MajorUpgrade DowngradeErrorMessage="A newer version of svc-filing is already installed."/>
    <Icon Id="svc.ico" SourceFile="${xml(icon)}"/>
    <Property Id="ARPPRODUCTICON" Value="svc.ico"/>
    <Property Id="ARPSYSTEMCOMPONENT" Value="1"/>
    <Property Id="MSIINSTALLPERUSER" Value="1"/>
    <Directory Id="TARGETDIR" Name="SourceDir">
      <Directory Id="LocalAppDataFolder">
        <Directory Id="d_programs" Name="Programs">
          <Directory Id="INSTALLDIR" Name="svc-filing">
            <Component Id="c_installdir" Guid="${nameGuid("folder:")}">
              <RemoveFolder Id="x_installdir" On="uninstall"/>
              <RegistryValue Root="HKCU" Key="Software\\svc-filing\\Folders" Name="."
                  Type="integer" Value="1" KeyPath="yes"/>
            </Component>
${tree.join("\n")}
          </Directory>
        </Directory>
      </Directory>
      <Directory Id="ProgramMenuFolder">
        <Component Id="c_startmenu" Guid="${nameGuid("start-menu")}">
          <Shortcut Id="s_start" Name="${PH.shortcut}" Target="${xml(exe)}"
              WorkingDirectory="INSTALLDIR" Icon="svc.ico"
              Description="${PH.description}"/>
          <RegistryValue Root="HKCU" Key="Software\\svc-filing" Name="StartMenu" Type="integer"
              Value="1" KeyPath="yes"/>
        </Component>
      </Directory>
    </Directory>
    <DirectoryRef Id="INSTALLDIR">
      <Component Id="c_registry" Guid="${nameGuid("registry")}">
        <RegistryValue Root="HKCU" Key="${RUN_KEY}" Name="${RUN_VALUE}" Type="string"
            Value="${xml(`"${exe}" agent`)}" KeyPath="yes"/>
${reg("Software\\Classes\\svc-agent", null, "URL:svc-agent Protocol")}
${reg("Software\\Classes\\svc-agent", "URL Protocol", "")}
${reg("Software\\Classes\\svc-agent\\DefaultIcon", null, `${exe},0`)}
${reg("Software\\Classes\\svc-agent\\shell\\open\\command", null, `"${exe}" "%1"`)}
${reg(UNINSTALL_KEY, "DisplayName", PH.display)}
${reg(UNINSTALL_KEY, "DisplayVersion", version)}
${reg(UNINSTALL_KEY, "Publisher", PUBLISHER)}
${reg(UNINSTALL_KEY, "DisplayIcon", `${exe},0`)}
${reg(UNINSTALL_KEY, "InstallLocation", "[INSTALLDIR]")}
${reg(UNINSTALL_KEY, "UninstallString", "MsiExec.exe /X[ProductCode]")}
${reg(UNINSTALL_KEY, "QuietUninstallString", "MsiExec.exe /X[ProductCode] /qn")}
${reg(UNINSTALL_KEY, "NoModify", "1", "integer")}
${reg(UNINSTALL_KEY, "NoRepair", "1", "integer")}
      </Component>
    </DirectoryRef>
    <Feature Id="Main" Level="1">
      <ComponentRef Id="c_installdir"/>
      <ComponentRef Id="c_startmenu"/>
      <ComponentRef Id="c_registry"/>
${refs.map((r) => `      <ComponentRef Id="${r}"/>`).join("\n")}
    </Feature>
  </Product>
</Wix>
`;
}

/**
 * Build the MSI from the package's entries (those under `svc-filing/`).
 * @param version the app version
 * @param entries the win-x64 package's entries (with `svc-filing.exe`)
 * @param out the `.msi` path
 * @param run the command runner (wixl)
 * @returns when written
 * @throws Error with wixl's message when it fails, or when svc-filing.exe is not among the entries
 */
export async function buildMsi(
  version: string,
  entries: readonly ArchiveEntry[],
  out: string,
  run: Runner = runCommand,
): Promise<void> {
  if (!entries.some((e) => e.path === `svc-filing/${LAUNCHER_EXE}`)) {
    throw new Error(`the MSI needs ${LAUNCHER_EXE} in the package`);
  }
  const stage = await Deno.makeTempDir({ prefix: "svc-msi-" });
  try {
    const files: MsiFile[] = [];
    // The installer's own marker: `agent update` leaves an MSI install to the MSI.
    const marker = new TextEncoder().encode(
      `Installed by svc-filing-${version}-win-x64.msi. \`agent update\` updates it through a newer MSI.\r\n`,
    );
    for (const e of [...entries, { path: `svc-filing/${MSI_MARKER}`, bytes: marker }]) {
      const rel = e.path.replace(/^svc-filing\//, "");
      // wixl reads sources relative to its working folder.
      const source = join("files", ...rel.split("/"));
      await Deno.mkdir(dirname(join(stage, source)), { recursive: true });
      await Deno.writeFile(join(stage, source), e.bytes);
      files.push({ path: rel, source });
    }
    files.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
    await Deno.writeFile(join(stage, "svc.ico"), iconFile("running"));
    await Deno.writeTextFile(join(stage, "svc-filing.wxs"), wixSource(version, files, "svc.ico"));
    const r = await run("wixl", ["-a", "x64", "-o", resolve(out), "svc-filing.wxs"], stage);
    if (r.code !== 0) throw new Error(`wixl failed: ${(r.err || r.out).trim()}`);
    await Deno.writeTextFile(join(stage, "cp.idt"), "\r\n\r\n65001\t_ForceCodepage\r\n");
    const m = await run("msibuild", [
      resolve(out),
      "-i",
      "cp.idt",
      ...bulgarianTexts().flatMap((q) => ["-q", q]),
    ], stage);
    if (m.code !== 0) throw new Error(`msibuild failed: ${(m.err || m.out).trim()}`);
    const check = await run("msiinfo", ["export", resolve(out), "Shortcut"], stage);
    if (!check.out.includes(START_MENU_NAME)) {
      throw new Error(`the MSI's Start-menu entry is not named ${START_MENU_NAME}`);
    }
  } finally {
    await Deno.remove(stage, { recursive: true });
  }
}
