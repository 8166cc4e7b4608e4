/**
 * `senders add|list|test|remove`: the senders of this agent (issue #5 § 2). A sender is a person
 * with a QES: a display name plus a private key-store reference in agent.json. Adding one reads
 * the certificate and shows the certificate checks (validity, key usage, qualified-certificate
 * statements, Bulgarian QES issuer) with their reasons; a failing check refuses the sender unless
 * `--force`. PINs and passwords are read from standard input (`--pin-stdin`), used once, never
 * stored or printed.
 * @module
 */
import { Command, Option } from "commander";
import type { KeystoreRef } from "../agent/senders/mod.ts";
import type { Cli } from "./context.ts";
import { dataDirOf, dataDirOption, jsonOption, textArg } from "./options.ts";
import { printJson, say } from "./output.ts";

interface AddFlags {
  id: string;
  name: string;
  pkcs12?: string;
  pkcs11?: string;
  slot?: string;
  certId?: string;
  windows?: string;
  macos?: string | true;
  pinStdin?: boolean;
  force?: boolean;
}

const senders = () => import("../agent/senders/mod.ts");

async function list(cli: Cli, cmd: Command): Promise<void> {
  const { parseKeystoreRef, readAgentFile } = await senders();
  const file = await readAgentFile(dataDirOf(cli, cmd));
  const rows = file.senders.map((s) => ({
    id: s.id,
    displayName: s.displayName,
    active: s.active,
    keystore: parseKeystoreRef(s.keystore)?.type ?? null,
  }));
  if (cmd.opts().json) return printJson(cli, rows);
  if (rows.length === 0) say(cli, "No senders configured (test mode uses a built-in test sender).");
  for (const r of rows) {
    say(
      cli,
      `${r.id}\t${r.displayName}\t${r.active ? "active" : "inactive"}\t${
        r.keystore ?? "no key store"
      }`,
    );
  }
}

async function remove(cli: Cli, id: string, cmd: Command): Promise<void> {
  const { readAgentFile, writeAgentFile } = await senders();
  const dataDir = dataDirOf(cli, cmd);
  const file = await readAgentFile(dataDir);
  if (!file.senders.some((s) => s.id === id)) throw new Error(`No sender "${id}".`);
  await writeAgentFile(dataDir, { ...file, senders: file.senders.filter((s) => s.id !== id) });
  say(cli, `Removed sender ${id}.`);
}

async function add(cli: Cli, cmd: Command): Promise<void> {
  const v = cmd.opts<AddFlags>();
  const { openSenderKeyStore, pickCertificate, readAgentFile, writeAgentFile } = await senders();
  const { resolve } = await import("node:path");
  const ref: KeystoreRef | null = v.pkcs12
    ? { type: "pkcs12", file: resolve(v.pkcs12) }
    : v.pkcs11
    ? {
      type: "pkcs11",
      module: v.pkcs11,
      ...(v.slot ? { tokenLabel: v.slot } : {}),
      ...(v.certId ? { certId: v.certId } : {}),
    }
    : v.windows
    ? { type: "windows", thumbprint: v.windows }
    : v.macos !== undefined
    ? { type: "macos", ...(typeof v.macos === "string" ? { label: v.macos } : {}) }
    : null;
  if (!ref) {
    cmd.error("error: name the key store: --pkcs12, --pkcs11, --windows or --macos", {
      exitCode: 2,
    });
  }
  const dataDir = dataDirOf(cli, cmd);
  const file = await readAgentFile(dataDir);
  if (file.senders.some((s) => s.id === v.id)) {
    throw new Error(`A sender "${v.id}" already exists; remove it first.`);
  }
  const pin = v.pinStdin ? await cli.readLine() : undefined;
  const { checkCertificate } = await import("../signing/mod.ts");
  const store = await openSenderKeyStore(ref);
  try {
    const cert = await pickCertificate(store, ref, pin);
    say(cli, `Certificate: ${cert.subject}`);
    say(cli, `  issuer ${cert.issuer}`);
    say(cli, `  valid ${cert.notBefore.toISOString()} – ${cert.notAfter.toISOString()}`);
    const checks = checkCertificate(cert.der, () => new Date(cli.clock.now()));
    for (const c of checks) say(cli, `  [${c.ok ? "ok" : "!!"}] ${c.check}: ${c.reason}`);
    if (checks.some((c) => !c.ok) && !v.force) {
      throw new Error(
        "Refused: a check failed (use --force to add it anyway, e.g. for a test certificate).",
      );
    }
    await writeAgentFile(dataDir, {
      ...file,
      senders: [...file.senders, {
        id: v.id,
        displayName: v.name,
        active: true,
        keystore: { ...ref, certId: cert.id },
      }],
    });
    say(cli, `Added sender ${v.id} (${v.name}).`);
  } finally {
    store.close();
  }
}

async function test(cli: Cli, id: string, cmd: Command): Promise<void> {
  const { openSenderKeyStore, parseKeystoreRef, pickCertificate, readAgentFile } = await senders();
  const file = await readAgentFile(dataDirOf(cli, cmd));
  const s = file.senders.find((x) => x.id === id);
  const ref = s ? parseKeystoreRef(s.keystore) : null;
  if (!s || !ref) throw new Error(`No sender "${id}" with a key store.`);
  const pin = cmd.opts().pinStdin ? await cli.readLine() : undefined;
  const { keyStoreSigner, signDetached } = await import("../signing/mod.ts");
  const store = await openSenderKeyStore(ref);
  try {
    const cert = await pickCertificate(store, ref, pin);
    const now = new Date(cli.clock.now()).toISOString();
    const data = new TextEncoder().encode(`svc-filing sender test ${now}`);
    const cms = await signDetached(data, keyStoreSigner(store, cert, pin));
    say(cli, `OK: a ${cms.length}-byte CMS signature was made and verified with ${cert.subject}.`);
  } finally {
    store.close();
  }
}

const pinOption = () =>
  new Option("--pin-stdin", "read the PIN or password from standard input (one line)");

/**
 * The `senders` command group.
 * @param cli the run's context
 * @returns the command
 */
export function sendersCommand(cli: Cli): Command {
  const group = new Command("senders").summary("add, list, test and remove the agent's senders")
    .description(
      "The senders of this agent (QES holders, kept in agent.json in the data directory).",
    );
  const stores = ["pkcs12", "pkcs11", "windows", "macos"];
  const store = (flags: string, what: string) =>
    new Option(flags, what).conflicts(stores.filter((s) => !flags.startsWith(`--${s} `)));
  group.command("add")
    .summary("add a sender after the certificate checks")
    .description(
      "Add a sender: read its certificate from the key store, show the certificate checks, " +
        "refuse it when a check fails (unless --force).",
    )
    .addOption(new Option("--id <id>", "the sender's id").argParser(textArg).makeOptionMandatory())
    .addOption(
      new Option("--name <name>", "the name shown on the confirmation page").argParser(textArg)
        .makeOptionMandatory(),
    )
    .addOption(store("--pkcs12 <file>", "a PKCS#12 (.p12/.pfx) file"))
    .addOption(store("--pkcs11 <module>", "a PKCS#11 module (the QES middleware library)"))
    .option("--slot <label>", "PKCS#11: the token label")
    .option("--cert-id <id>", "PKCS#11: the certificate's id (e.g. id=01)")
    .addOption(store("--windows <thumbprint>", "the Windows certificate store, by thumbprint"))
    .addOption(store("--macos [label]", "the macOS Keychain (optionally by label)"))
    .addOption(pinOption())
    .option("--force", "add it even when a certificate check fails (test certificates)")
    .addOption(dataDirOption())
    .action((_o, cmd: Command) => add(cli, cmd));
  group.command("list")
    .description("one line per sender: id, name, active, key store type")
    .addOption(jsonOption("print the senders as a JSON array"))
    .addOption(dataDirOption())
    .action((_o, cmd: Command) => list(cli, cmd));
  group.command("test")
    .description("make and verify a CMS signature with the sender's key")
    .argument("<id>", "the sender's id")
    .addOption(pinOption())
    .addOption(dataDirOption())
    .action((id: string, _o, cmd: Command) => test(cli, id, cmd));
  group.command("remove")
    .description("remove a sender from agent.json (the key store is not touched)")
    .argument("<id>", "the sender's id")
    .addOption(dataDirOption())
    .action((id: string, _o, cmd: Command) => remove(cli, id, cmd));
  return group;
}
