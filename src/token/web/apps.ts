/**
 * The token service's two web applications, the desk (`/admin`, docs/token-service.md § The
 * administrator's desk) and the profile (`/profile`, § The profile), and their pages in
 * navigation order: one table, each page at `{base}/{id}`.
 * @module
 */
import type { Bilingual } from "../../web_page.ts";
import type { WebApp } from "./layout.ts";

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

const webApp = (name: "admin" | "profile", brand: Bilingual): WebApp => ({
  base: `/${name}`,
  brand,
  nav: PAGES.filter(([app]) => app === name).map(([, id, bg, en]) => ({
    path: `/${name}/${id}`,
    id,
    bg,
    en,
  })),
});

/** The desk's pages, in navigation order. */
export const DESK_APP: WebApp = webApp("admin", { bg: "Администратор", en: "Admin desk" });

/** The profile's pages, in navigation order. */
export const PROFILE_APP: WebApp = webApp("profile", { bg: "Профил", en: "Profile" });
