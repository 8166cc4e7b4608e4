/**
 * The integrators' profile (docs/token-service.md § The profile).
 * @module
 */
export { PROFILE_COOKIE, type ProfileDeps, profileRoutes } from "./routes.ts";
export { linkMail } from "./link_mail.ts";
