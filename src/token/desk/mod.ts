/**
 * The administrator's desk (docs/token-service.md § The administrator's desk).
 * @module
 */
export { createAdminInvite, DESK_COOKIE, type DeskDeps, deskRoutes } from "./routes.ts";
