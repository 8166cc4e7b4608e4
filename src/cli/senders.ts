/**
 * `senders add|list|test|remove|activate|discover`: the senders of this agent (docs/signing.md). A
 * sender is a person with a QES: a display name plus a private key store reference in agent.json.
 * `discover` lists the certificates this computer offers without a PIN. Adding one reads
 * the certificate and shows the certificate checks (validity, key usage, qualified-certificate
 * statements, Bulgarian QES issuer) with their reasons; a failing check refuses the sender unless
 * `--force`. The actions themselves are src/agent/senders/actions.ts, shared with the console's
 * Senders page. PINs and passwords are read from standard input (`--pin-stdin`), used once, never
 * stored or printed.
 * @module
 */
import { Command, Option } from "commander";
import type { FoundCertificate, KeyStoreRef } from "../agent/senders/mod.ts";
import type { Cli } from "./context.ts";
import { dataDirOf, dataDirOption, jsonOption, textArg } from "./options.ts";
import { note, printJson, say } from "./output.ts";

interface AddFlags {
  id?: string;
  name: string;
  pkcs12?: string;
  pkcs11?: string;
  slot?: string;
  certId?: string;
  windows?: string;
  macos?: string | true;
  pinStdin?: boolean;
  force?: boolean;
  csc?: string;
  clientId?: string;
  credentialId?: string;
  caFile?: string;
}

const senders = () => import("../agent/senders/mod.ts");

async function list(cli: Cli, cmd: Command): Promise<void> {
  const { parseKeyStoreRef, readAgentFile } = await senders();
  const file = await readAgentFile(dataDirOf(cli, cmd));
  const rows = file.senders.map((s) => ({
    id: s.id,
    displayName: s.displayName,
    active: s.active,
    keystore: parseKeyStoreRef(s.keystore)?.type ?? null,
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

/** The certificate lines of `add` and `discover` (personal id masked). */
function showCertificate(cli: Cli, c: FoundCertificate, head = "Certificate"): void {
  say(cli, `${head}: ${c.subject}`);
  say(cli, `  issuer ${c.issuer}`);
  say(cli, `  valid ${c.notBefore} – ${c.notAfter}`);
  for (const k of c.checks) say(cli, `  [${k.ok ? "ok" : "!!"}] ${k.check}: ${k.reason}`);
}

async function discover(cli: Cli, cmd: Command): Promise<void> {
  const { scanCertificates } = await senders();
  const scan = await scanCertificates({ now: () => cli.clock.now() });
  if (cmd.opts().json) return printJson(cli, scan);
  for (const c of scan.certificates) {
    showCertificate(cli, c, c.sourceLabel);
    say(cli, `  ref ${JSON.stringify(c.ref)}`);
  }
  for (const s of scan.sources) {
    if (s.reason) say(cli, `${s.label}: ${s.status}: ${s.reason.en}`);
  }
  if (scan.certificates.length === 0) say(cli, "No certificate found on this computer.");
}

async function remove(cli: Cli, id: string, cmd: Command): Promise<void> {
  const { removeSender } = await senders();
  await removeSender(dataDirOf(cli, cmd), id);
  say(cli, `Removed sender ${id}.`);
}

async function activate(cli: Cli, id: string, cmd: Command): Promise<void> {
  const { setActiveSender } = await senders();
  await setActiveSender(dataDirOf(cli, cmd), id);
  say(cli, `Sender ${id} is now the only active sender.`);
}

async function add(cli: Cli, cmd: Command): Promise<void> {
  const v = cmd.opts<AddFlags>();
  if (v.csc) {
    const { addCscSender } = await import("./senders_csc.ts");
    const flags = { ...v, csc: v.csc };
    return await addCscSender(cli, dataDirOf(cli, cmd), flags, v);
  }
  const { addSender } = await senders();
  const { resolve } = await import("node:path");
  const ref: KeyStoreRef | null = v.pkcs12
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
    cmd.error("error: name the key store: --pkcs12, --pkcs11, --windows, --macos or --csc", {
      exitCode: 2,
    });
  }
  const pin = v.pinStdin ? await cli.readLine() : undefined;
  try {
    const { sender, certificate } = await addSender(
      dataDirOf(cli, cmd),
      { id: v.id, displayName: v.name, ref, pin, force: v.force },
      cli.clock.now(),
    );
    showCertificate(cli, certificate);
    say(cli, `Added sender ${sender.id} (${sender.displayName}).`);
  } catch (e) {
    if (e instanceof Error && (e as { code?: string }).code === "CERTIFICATE_INVALID") {
      note(cli, "Use --force to add it anyway (e.g. a test certificate).");
    }
    throw e;
  }
}

async function test(cli: Cli, id: string, cmd: Command): Promise<void> {
  const { senderKeyStore, testSender } = await senders();
  const { ref } = await senderKeyStore(dataDirOf(cli, cmd), id);
  const pin = cmd.opts().pinStdin ? await cli.readLine() : undefined;
  const r = await testSender(ref, pin, cli.clock.now());
  say(
    cli,
    `OK: a ${r.signatureBytes}-byte CMS signature was made and verified with ${r.subject}.`,
  );
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
  const stores = ["pkcs12", "pkcs11", "windows", "macos", "csc"];
  const store = (flags: string, what: string) =>
    new Option(flags, what).conflicts(stores.filter((s) => !flags.startsWith(`--${s} `)));
  group.command("add")
    .summary("add a sender after the certificate checks")
    .description(
      "Add a sender: read its certificate from the key store, show the certificate checks, " +
        "refuse it when a check fails (unless --force).",
    )
    .addOption(
      new Option("--id <id>", "the sender's id (default: made from the name)").argParser(textArg),
    )
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
    .addOption(
      store(
        "--csc <service>",
        "a cloud signature (CSC API v2): its service URL, or a provider's name in " +
          "csc_providers.json; signs you in in the browser",
      ),
    )
    .option("--client-id <id>", "CSC: the agent's OAuth client id at the provider")
    .option("--credential-id <id>", "CSC: the credential to use (when you have several)")
    .option("--ca-file <pem>", "CSC: extra CA certificates to trust for the service (tests)")
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
  group.command("discover")
    .description(
      "list the certificates this computer offers (QES middleware tokens, the OS store) " +
        "without a PIN, with their checks and the reference `add` would store",
    )
    .addOption(jsonOption("print {certificates, sources} as JSON"))
    .action((_o, cmd: Command) => discover(cli, cmd));
  group.command("activate")
    .description("make this sender the only active one (the confirmation page preselects it)")
    .argument("<id>", "the sender's id")
    .addOption(dataDirOption())
    .action((id: string, _o, cmd: Command) => activate(cli, id, cmd));
  group.command("remove")
    .description("remove a sender from agent.json (the key store is not touched)")
    .argument("<id>", "the sender's id")
    .addOption(dataDirOption())
    .action((id: string, _o, cmd: Command) => remove(cli, id, cmd));
  return group;
}
