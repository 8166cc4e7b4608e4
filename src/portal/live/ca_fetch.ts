/**
 * A fetch that trusts extra CA certificates (PEM) besides the system roots, over
 * `Deno.createHttpClient({ caCerts })`: how the agent reaches a portal behind a private CA, and
 * how tests reach the HTTPS simulator. Implements agent.json `portal.caFile`.
 * @module
 */
import { AppError } from "../../contract/mod.ts";

/** A fetch bound to an HTTP client; close it when done. */
export interface CaFetch {
  /** fetch with the client attached. */
  readonly fetch: typeof fetch;
  /** Close the HTTP client (idempotent). */
  close(): void;
}

/**
 * A fetch trusting the CA certificates in `caPem` (and the system roots).
 * @param caPem one or more PEM certificates
 * @returns the bound fetch and its closer
 * @throws TypeError from Deno when the PEM holds no usable certificate
 * @example
 * ```ts
 * import "reflect-metadata"; // @peculiar/x509 needs it loaded first
 * import { ok } from "node:assert/strict";
 * import { X509CertificateGenerator } from "@peculiar/x509";
 * // agent.json's `portal.caFile` holds the PEM; here a throw-away self-signed CA
 * const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
 * const keys = await crypto.subtle.generateKey(alg, false, ["sign", "verify"]);
 * const caCert = await X509CertificateGenerator.createSelfSigned({
 *   name: "CN=Test CA",
 *   keys,
 *   signingAlgorithm: alg,
 * });
 * const ca = createCaFetch(caCert.toString("pem"));
 * ok(typeof ca.fetch === "function");
 * // e.g. await ca.fetch("https://127.0.0.1:8443/oauth/token", { method: "POST" });
 * ca.close();
 * ```
 */
export function createCaFetch(caPem: string): CaFetch {
  const client = Deno.createHttpClient({ caCerts: [caPem] });
  let closed = false;
  return {
    fetch: (input, init) => fetch(input, { ...init, client }),
    close() {
      if (closed) return;
      closed = true;
      client.close();
    },
  };
}

/**
 * Read a PEM file and create a {@link CaFetch} for it.
 * @param path the PEM file (agent.json `portal.caFile`)
 * @returns the bound fetch and its closer
 * @throws AppError PORTAL_NOT_CONFIGURED when the file cannot be read or holds no certificate
 */
export async function caFetchFromFile(path: string): Promise<CaFetch> {
  let pem: string;
  try {
    pem = await Deno.readTextFile(path);
  } catch (e) {
    throw new AppError(
      "PORTAL_NOT_CONFIGURED",
      `Cannot read the portal CA file ${path} (portal.caFile)`,
      { field: "portal.caFile" },
      e,
    );
  }
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    throw new AppError(
      "PORTAL_NOT_CONFIGURED",
      `The portal CA file ${path} (portal.caFile) holds no PEM certificate`,
      { field: "portal.caFile" },
    );
  }
  try {
    return createCaFetch(pem);
  } catch (e) {
    throw new AppError(
      "PORTAL_NOT_CONFIGURED",
      `The portal CA file ${path} (portal.caFile) holds no usable certificate`,
      { field: "portal.caFile" },
      e,
    );
  }
}
