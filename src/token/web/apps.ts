/**
 * The token service's two web applications, the desk (`/admin`, docs/token-service.md § The
 * administrator's desk) and the profile (`/profile`, § The profile), and their pages in
 * navigation order: one table, each page at `{base}/{id}`.
 * @module
 */
import { bi, type Bilingual } from "../../contract/mod.ts";
import { type WebApp, webApp } from "./layout.ts";

/** Each page of both applications: application, page id (its path under the base), bg, en. */
const PAGES: readonly (readonly ["admin" | "profile", string, string, string])[] = [
  ["admin", "applications", "Заявки", "Applications"],
  ["admin", "integrators", "Интегратори", "Integrators"],
  ["admin", "contracts", "Договори", "Contracts"],
  ["admin", "statements", "Справки", "Statements"],
  ["admin", "usage", "Използване", "Usage"],
  ["admin", "audit", "Одит", "Audit"],
  ["admin", "admins", "Администратори", "Admins"],
  ["admin", "sessions", "Сесии", "Sessions"],
  ["profile", "keys", "Ключове", "Keys"],
  ["profile", "usage", "Използване", "Usage"],
  ["profile", "log", "Заявки", "Request log"],
  ["profile", "contract", "Договор", "Contract"],
  ["profile", "passkeys", "Passkeys", "Passkeys"],
  ["profile", "sessions", "Сесии", "Sessions"],
  ["profile", "members", "Екип", "Team"],
];

const appOf = (name: "admin" | "profile", brand: Bilingual): WebApp =>
  webApp(
    `/${name}`,
    brand,
    PAGES.filter(([app]) => app === name).map(([, id, bg, en]) => ({
      path: `/${name}/${id}`,
      id,
      bg,
      en,
    })),
  );

/** The desk's pages, in navigation order. */
export const DESK_APP: WebApp = appOf("admin", bi("Администратор", "Admin desk"));

/** The profile's pages, in navigation order. */
export const PROFILE_APP: WebApp = appOf("profile", bi("Профил", "Profile"));
