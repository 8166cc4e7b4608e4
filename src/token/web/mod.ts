/**
 * What the profile and the desk share: sessions and one-time links (sessions.ts), the guard
 * every request passes (guard.ts) and the page frame (layout.ts).
 * @module
 */
export * from "./guard.ts";
export * from "./layout.ts";
export * from "./sessions.ts";
export * from "./passkeys.ts";
export * from "./assets.ts";
export * from "./people_mail.ts";
export * from "./passkey_list.ts";
export * from "./session_list.ts";
export * from "./lang.ts";
export * from "./error_words.ts";
export * from "./web_app.ts";
export * from "./mailed_link.ts";
export * from "./audit_by.ts";
export * from "./apps.ts";
export * from "./column_table.ts";
