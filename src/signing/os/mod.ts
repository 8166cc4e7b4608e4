/**
 * The operating systems' own certificate stores: the Windows certificate store and the macOS
 * Keychain, through the OS's tools.
 * @module
 */
export * from "./windows_store.ts";
export * from "./macos_keychain.ts";
