/**
 * PKCS#11 through `Deno.dlopen`: the key store over a token, the module loader and the
 * discovery of the Bulgarian QES providers' modules per OS.
 * @module
 */
export * from "./keystore.ts";
export * from "./ffi.ts";
export * from "./modules.ts";
