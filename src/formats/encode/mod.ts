/**
 * Encoding text to Windows-1251 (iconv-lite). Its own folder so that reading files
 * (formats/mod.ts) never loads the encoder into the agent.
 * @module
 */
export * from "./cp1251_encode.ts";
