/**
 * Test access to the NRA public API simulator (scripts/nra_simulator.ts, nra-public-api.md
 * §11) plus a test sender for the live portal: a QES-like certificate whose key sits in a
 * PKCS#12 file (openssl) and a PortalContext that signs with signDetached. Runnable:
 * `deno run -A tests/_helpers/nra_simulator.ts` starts the simulator standalone.
 * @module
 */
import type { NraFileKind, SubmissionKind } from "../../src/contract/operations.ts";
import { encodeCp1251 } from "../../src/formats/encode/mod.ts";
import type { PortalContext, SubmissionInput } from "../../src/portal/adapter.ts";
import {
  type CmsSigner,
  keyStoreSigner,
  openPkcs12KeyStore,
  signDetached,
} from "../../src/signing/mod.ts";
import { freePort } from "./e2e.ts";
import { hasTool, makeCert, pem, runOk, tempDir, TEST_CA_SUBJECT } from "./pki.ts";

export {
  isValidEgn,
  makeServerTls,
  type NraSimulator,
  type ReceivedFile,
  SIM_CLIENT,
  SIM_SCOPES,
  type SimFault,
  type SimFaultRule,
  type SimulatorOptions,
  startNraSimulator,
  type StoredSubmission,
  verifyDetachedCms,
} from "../../scripts/nra_simulator.ts";

/**
 * A URL on 127.0.0.1 where nothing listens: the "unreachable portal" case. Its port is one
 * {@link freePort} found free, below the range other tests' servers and connections draw from.
 * (Port 1 would be simpler, but fetch refuses it as a "bad port" before any connection.)
 * @returns `https://127.0.0.1:<closed port>`
 */
export function closedPortUrl(): string {
  return `https://127.0.0.1:${freePort()}`;
}

/** A test sender for the live portal: a QES-like certificate with `PNOBG-<EGN>` and a
 * PortalContext whose `sign` makes detached CMS signatures with signDetached. */
export interface SimSender {
  readonly certificate: Uint8Array;
  readonly egn: string;
  /** PEM of the issuing test CA (for `openssl cms -verify -CAfile`). */
  readonly caPem: string;
  readonly ctx: PortalContext;
  /** Where the key lives: a PKCS#12 file made by openssl, or (no openssl) a WebCrypto key. */
  readonly keyStore: "pkcs12" | "webcrypto";
  close(): Promise<void>;
}

/** Options of {@link makeSimSender}. */
export interface SimSenderOptions {
  /** Holder EGN (default 8001010008, a valid check digit). */
  readonly egn?: string;
  /** Make the certificate self-signed (the NRA does not recognise those). */
  readonly selfSigned?: boolean;
  /** Sign other bytes than the file (a signature mismatch). */
  readonly signWrongBytes?: boolean;
}

/** Default EGN of {@link makeSimSender} (valid check digit). */
export const SIM_EGN = "8001010008";
const PFX_PASSWORD = "sim-pfx-pin";

/**
 * Create a test sender: RSA-2048 certificate `CN=Ivan Petrov, serialNumber=PNOBG-<EGN>` from a
 * B-Trust-like test CA, exported to PKCS#12 with openssl and opened with openPkcs12KeyStore
 * (without openssl: signed with the WebCrypto key, same signDetached path).
 * @param o EGN, self-signed, wrong-bytes switches
 * @returns the sender (close it to remove its temp files and close its key store)
 */
export async function makeSimSender(o: SimSenderOptions = {}): Promise<SimSender> {
  const egn = o.egn ?? SIM_EGN;
  const subject = `CN=Ivan Petrov, 2.5.4.5=PNOBG-${egn}, C=BG`;
  const ca = await makeCert({ subject: TEST_CA_SUBJECT, ca: true });
  const cert = await makeCert({ subject, ...(o.selfSigned ? {} : { issuer: ca }) });
  let signer: CmsSigner = {
    certificate: cert.der,
    sign: async (tbs) =>
      new Uint8Array(
        await crypto.subtle.sign("RSASSA-PKCS1-v1_5", cert.keys.privateKey, new Uint8Array(tbs)),
      ),
  };
  let keyStore: SimSender["keyStore"] = "webcrypto";
  let cleanup = () => Promise.resolve();
  if (await hasTool("openssl", ["version"])) {
    const dir = await tempDir("nra-sim-sender-");
    const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", cert.keys.privateKey));
    await Deno.writeTextFile(`${dir.path}/key.pem`, pem("PRIVATE KEY", pkcs8));
    await Deno.writeTextFile(`${dir.path}/cert.pem`, pem("CERTIFICATE", cert.der));
    await runOk("openssl", [
      "pkcs12",
      "-export",
      "-inkey",
      `${dir.path}/key.pem`,
      "-in",
      `${dir.path}/cert.pem`,
      "-out",
      `${dir.path}/sender.p12`,
      "-passout",
      `pass:${PFX_PASSWORD}`,
    ]);
    const store = openPkcs12KeyStore(await Deno.readFile(`${dir.path}/sender.p12`));
    const [info] = await store.listCertificates(PFX_PASSWORD);
    signer = keyStoreSigner(store, info!, PFX_PASSWORD);
    keyStore = "pkcs12";
    cleanup = async () => {
      await store.close();
      await dir.remove();
    };
  } else if (Deno.env.get("CI") === "true") {
    throw new Error("CI=true and the simulator sender needs openssl (PKCS#12 export)");
  }
  const sign = (bytes: Uint8Array) =>
    signDetached(o.signWrongBytes ? new Uint8Array([...bytes, 0x20]) : bytes, signer);
  return {
    certificate: cert.der,
    egn,
    caPem: pem("CERTIFICATE", ca.der),
    ctx: {
      sender: { id: `sender-${egn}`, displayName: "Ivan Petrov" },
      sign,
      certificate: cert.der,
    },
    keyStore,
    close: cleanup,
  };
}

/** The EIK of the sample files (valid check digit; not a special test-portal EIK). */
export const SIM_EIK = "203456783";

const D1_LINES = [
  '8,2026,"203456783","8503151235",0,"ПЕТРОВ","ИГ",1,1,31,0,0,0,0,0,0,0,0,"2100",21,0,0,0,0,0,168,0,2,"4690",0,"0000",0.00,0.00,2500.00,12.62,9.78,4.80,3.20,0.40,0.00,0.00,2.80,2.20,0.00,0.00,2500.00,0.10,2120.50,212.05,1908.45,0,0,"NRAD12008"',
  '8,2026,"203456783","8805124564",0,"ИВАНОВА","МС",1,1,31,0,0,0,0,0,0,0,0,"2100",21,0,0,0,0,0,168,0,2,"4690",0,"0000",0.00,0.00,3120.50,12.62,9.78,4.80,3.20,0.40,0.00,0.00,2.80,2.20,0.00,0.00,3120.50,0.10,2646.81,264.68,2382.13,0,0,"NRAD12008"',
];
const D6_LINE =
  '"203456783","ЕКО ТРЕЙД ООД",0,"office@eko-trade.bg","029876543","0888123456",8,2026,"25/09/2026",0,1,1630.84,0.00,299.07,0.00,596.06,7.47,0.00,0.00,0,0,"",0,0,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0,0,"",0,0,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0,0,"",0,0,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00';
const ETZ62_XML = '<?xml version="1.0" encoding="WINDOWS-1251"?>\n<etzemploy><eik>203456783</eik>' +
  "<contract><rowenum><employtype>01</employtype><egn>8503151235</egn></rowenum></contract>" +
  "</etzemploy>\n";

const cp1251File = (lines: string[]) =>
  encodeCp1251(lines.map((l) => `${l}\r\n`).join("") + "\x1a");

/**
 * A realistic submission of each kind for period 08/2026: D1 (2 records, numRecords left for the
 * adapter to count) and D6 (numRecords 1) for dec1_6; an XML notice for etz62 and
 * high_fisc_risk (subtype EU_BG); the request fields of the other kinds.
 * @param kind the submission kind
 * @param eik the taxpayer (default {@link SIM_EIK}; the files name SIM_EIK regardless)
 * @returns the SubmissionInput
 */
export function sampleSubmission(kind: SubmissionKind, eik = SIM_EIK): SubmissionInput {
  const xml = {
    name: "notice.xml",
    kind: "xml" as const,
    bytes: new TextEncoder().encode(ETZ62_XML),
  };
  switch (kind) {
    case "dec1_6":
      return {
        kind,
        eik,
        request: { eik, year: 2026, month: 8, fund: false },
        files: [
          { name: "EMPL2021.TXT", kind: "d1", bytes: cp1251File(D1_LINES) },
          { name: "NRA62007.TXT", kind: "d6", bytes: cp1251File([D6_LINE]), numRecords: 1 },
        ],
      };
    case "etz62":
    case "etz123":
      return { kind, eik, request: { eik }, files: [xml] };
    case "high_fisc_risk":
      return { kind, eik, request: { eik, subtype: "EU_BG" }, files: [xml] };
    case "dec731":
    case "dec736":
      return { kind, eik, request: { eik, year: 2025 }, files: [] };
    case "vat": {
      // The synthetic VAT fixtures (built from the field tables), as the agent reads a folder.
      const f = (dir: string, name: string, kind: NraFileKind) => ({
        name,
        kind,
        bytes: Deno.readFileSync(new URL(`../../fixtures/formats/${dir}/${name}`, import.meta.url)),
      });
      return {
        kind,
        eik,
        request: { eik, year: 2026, month: 8 },
        files: [
          f("deklar", "DEKLAR.TXT", "deklar"),
          f("pokupki", "POKUPKI.TXT", "pokupki"),
          f("prodagbi", "PRODAGBI.TXT", "prodagbi"),
          f("vies", "VIES.TXT", "vies"),
        ],
      };
    }
    case "odit":
      return { kind, eik, request: { eik, year: 2026, month: 8 }, files: [] };
  }
}

if (import.meta.main) {
  const { main } = await import("../../scripts/nra_simulator.ts");
  await main(Deno.args);
}
