/**
 * `main.ts senders …`: add, list, test and remove the senders of this agent (issue #5 § 2).
 * A sender is a person with a QES: a display name plus a private key-store reference in
 * agent.json. Adding one reads the certificate and shows the certificate checks (validity, key
 * usage, qualified-certificate statements, Bulgarian QES issuer) with their reasons; a failing
 * check refuses the sender unless `--force`. PINs and passwords are read from standard input
 * (`--pin-stdin`), used once, never stored or printed.
 *
 *   senders add --id ID --name NAME (--pkcs12 FILE | --pkcs11 MODULE [--slot LABEL] [--cert-id ID]
 *               | --windows THUMBPRINT | --macos [LABEL]) [--pin-stdin] [--force]
 *   senders list
 *   senders test ID [--pin-stdin]
 *   senders remove ID
 * @module
 */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { isAppError } from "../contract/errors.ts";
import { checkCertificate, keyStoreSigner, signDetached } from "../signing/mod.ts";
import { readAgentFile, writeAgentFile } from "../agent/senders/agent_file.ts";
import {
  type KeystoreRef,
  openSenderKeyStore,
  parseKeystoreRef,
  pickCertificate,
} from "../agent/senders/sender_keys.ts";

/** Side effects of the CLI. */
export interface SendersCliDeps {
  readonly dataDir: string;
  /** Reads the PIN (one line from stdin). */
  readonly readPin: () => Promise<string>;
  readonly out: (line: string) => void;
  readonly now: () => Date;
}

const USAGE = `Usage:
  senders add --id ID --name NAME (--pkcs12 FILE | --pkcs11 MODULE [--slot TOKEN_LABEL] [--cert-id ID]
              | --windows THUMBPRINT | --macos [LABEL]) [--pin-stdin] [--force]
  senders list
  senders test ID [--pin-stdin]
  senders remove ID`;

/**
 * Run the CLI.
 * @param args arguments after `senders`
 * @param deps data directory, PIN reader, output, clock
 * @returns the exit code (0 ok, 1 refused/failed, 2 usage)
 */
export async function runSendersCli(args: string[], deps: SendersCliDeps): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        id: { type: "string" },
        name: { type: "string" },
        pkcs12: { type: "string" },
        pkcs11: { type: "string" },
        slot: { type: "string" },
        "cert-id": { type: "string" },
        windows: { type: "string" },
        macos: { type: "string" },
        "pin-stdin": { type: "boolean" },
        force: { type: "boolean" },
        "data-dir": { type: "string" },
      },
    });
  } catch (e) {
    deps.out(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values: v, positionals: [cmd, arg] } = parsed;
  const dataDir = v["data-dir"] ?? deps.dataDir;
  deps = { ...deps, dataDir };
  const file = await readAgentFile(dataDir);
  try {
    switch (cmd) {
      case "list": {
        if (file.senders.length === 0) {
          deps.out("No senders configured (test mode uses a built-in test sender).");
        }
        for (const s of file.senders) {
          const ref = parseKeystoreRef(s.keystore);
          deps.out(
            `${s.id}\t${s.displayName}\t${s.active ? "active" : "inactive"}\t${
              ref?.type ?? "no key store"
            }`,
          );
        }
        return 0;
      }
      case "remove": {
        if (!arg || !file.senders.some((s) => s.id === arg)) {
          deps.out(`No sender "${arg ?? ""}".`);
          return 1;
        }
        await writeAgentFile(deps.dataDir, {
          ...file,
          senders: file.senders.filter((s) => s.id !== arg),
        });
        deps.out(`Removed sender ${arg}.`);
        return 0;
      }
      case "add": {
        if (!v.id || !v.name) {
          deps.out(USAGE);
          return 2;
        }
        if (file.senders.some((s) => s.id === v.id)) {
          deps.out(`A sender "${v.id}" already exists; remove it first.`);
          return 1;
        }
        const ref: KeystoreRef | null = v.pkcs12
          ? { type: "pkcs12", file: resolve(v.pkcs12) }
          : v.pkcs11
          ? {
            type: "pkcs11",
            module: v.pkcs11,
            ...(v.slot ? { tokenLabel: v.slot } : {}),
            ...(v["cert-id"] ? { certId: v["cert-id"] } : {}),
          }
          : v.windows
          ? { type: "windows", thumbprint: v.windows }
          : v.macos !== undefined
          ? { type: "macos", ...(v.macos ? { label: v.macos } : {}) }
          : null;
        if (!ref) {
          deps.out(USAGE);
          return 2;
        }
        const pin = v["pin-stdin"] ? await deps.readPin() : undefined;
        const store = await openSenderKeyStore(ref);
        try {
          const cert = await pickCertificate(store, ref, pin);
          deps.out(
            `Certificate: ${cert.subject}\n  issuer ${cert.issuer}\n  valid ${cert.notBefore.toISOString()} – ${cert.notAfter.toISOString()}`,
          );
          const checks = checkCertificate(cert.der, deps.now);
          for (const c of checks) deps.out(`  [${c.ok ? "ok" : "!!"}] ${c.check}: ${c.reason}`);
          if (checks.some((c) => !c.ok) && !v.force) {
            deps.out(
              "Refused: a check failed (use --force to add it anyway, e.g. for a test certificate).",
            );
            return 1;
          }
          const fixed: KeystoreRef = { ...ref, certId: cert.id };
          await writeAgentFile(deps.dataDir, {
            ...file,
            senders: [...file.senders, {
              id: v.id,
              displayName: v.name,
              active: true,
              keystore: fixed,
            }],
          });
          deps.out(`Added sender ${v.id} (${v.name}).`);
          return 0;
        } finally {
          store.close();
        }
      }
      case "test": {
        const s = file.senders.find((x) => x.id === arg);
        const ref = s ? parseKeystoreRef(s.keystore) : null;
        if (!s || !ref) {
          deps.out(`No sender "${arg ?? ""}" with a key store.`);
          return 1;
        }
        const pin = v["pin-stdin"] ? await deps.readPin() : undefined;
        const store = await openSenderKeyStore(ref);
        try {
          const cert = await pickCertificate(store, ref, pin);
          const data = new TextEncoder().encode(
            `svc-filing sender test ${deps.now().toISOString()}`,
          );
          const cms = await signDetached(data, keyStoreSigner(store, cert, pin));
          deps.out(
            `OK: a ${cms.length}-byte CMS signature was made and verified with ${cert.subject}.`,
          );
          return 0;
        } finally {
          store.close();
        }
      }
      default:
        deps.out(USAGE);
        return 2;
    }
  } catch (e) {
    if (isAppError(e)) {
      deps.out(`Failed (${e.code}): ${e.message}`);
      return 1;
    }
    throw e;
  }
}
