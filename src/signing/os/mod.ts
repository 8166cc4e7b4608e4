/**
 * The operating systems' own certificate stores: the Windows certificate store through the
 * Windows API (crypt32, ncrypt, advapi32 over Deno.dlopen), and the macOS Keychain through the
 * OS's tools.
 * @module
 */
export * from "./windows_store.ts";
export * from "./macos_keychain.ts";
export * from "./windows_crypt_api.ts";
