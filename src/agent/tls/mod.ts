/**
 * Optional HTTPS on loopback: the agent's own CA and server certificate, and how to trust it per OS.
 * @module
 */
export * from "./tls.ts";
