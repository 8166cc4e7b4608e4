/**
 * What an integrator needs next to the keys (docs/token-service.md § Languages, § The profile):
 * the integration guide, the OpenAPI documents, the client package and the agent's download,
 * shown on the profile's home (the sign-in page, and the keys page once signed in). The token
 * service serves no documents of its own but its OpenAPI document: the guide is named by its
 * place in the repository and the agent's package (`docs/integrators.md`), the client package
 * by its npm name, the agent by the version this service asks for (`/api/v1/agent-version`).
 * @module
 */
import { html } from "hono/html";
import { type Markup, t } from "../../web_page.ts";

/** The client package's page on the npm registry (clients/ts/package.json's name). */
export const CLIENT_PACKAGE_URL = "https://www.npmjs.com/package/@svc-filing/agent-client";

/** One line of the card: its id, its words (a link when `href` is given) and what follows. */
interface Resource {
  readonly id: string;
  readonly text: readonly [bg: string, en: string];
  readonly href?: string;
  readonly rel?: string;
  readonly after?: readonly [bg: string, en: string];
}

/** The card's lines, in order. */
const RESOURCES: readonly Resource[] = [{
  id: "res-guide",
  text: [
    "Ръководство за интеграция: docs/integrators.md в хранилището и в пакета на агента.",
    "The integration guide: docs/integrators.md in the repository and in the agent's package.",
  ],
}, {
  id: "res-openapi",
  href: "/api/v1/openapi.json",
  text: ["OpenAPI на услугата за токени", "The token service's OpenAPI"],
  after: [
    "на агента: /api/v1/openapi.json на самия агент (http://127.0.0.1:<порт>).",
    "the agent's: /api/v1/openapi.json of the agent itself (http://127.0.0.1:<port>).",
  ],
}, {
  id: "res-client",
  href: CLIENT_PACKAGE_URL,
  rel: "noopener",
  text: [
    "Клиентски пакет @svc-filing/agent-client (npm)",
    "The client package @svc-filing/agent-client (npm)",
  ],
}, {
  id: "res-agent",
  href: "/api/v1/agent-version",
  text: ["Агентът: изисквана и последна версия", "The agent: required and latest version"],
  after: [
    "инсталаторът се получава от доставчика на услугата (docs/install.md).",
    "the installer comes from the service's operator (docs/install.md).",
  ],
}];

/** One line: the id on the link when there is one, else on the line. */
function resourceLine(r: Resource): Markup {
  const text = t(...r.text);
  const after = r.after
    ? html`
      — ${t(...r.after)}
    `
    : "";
  if (r.href === undefined) return html`<li id="${r.id}">${text}${after}</li>`;
  const rel = r.rel
    ? html`
      rel="${r.rel}"
    `
    : "";
  return html`<li><a id="${r.id}" href="${r.href}"${rel}>${text}</a>${after}</li>`;
}

/**
 * The card of links.
 * @returns `<div class="card" id="resources">…</div>`
 */
export function resourcesCard(): Markup {
  return html`
    <div class="card" id="resources">
      <h2>${t("За интеграцията", "For the integration")}</h2>
      <ul>${RESOURCES.map(resourceLine)}</ul>
    </div>
  `;
}
