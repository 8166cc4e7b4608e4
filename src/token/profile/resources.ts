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

/**
 * The card of links.
 * @returns `<div class="card" id="resources">…</div>`
 */
export function resourcesCard(): Markup {
  return html`
    <div class="card" id="resources">
      <h2>${t("За интеграцията", "For the integration")}</h2>
      <ul>
        <li id="res-guide">${t(
          "Ръководство за интеграция: docs/integrators.md в хранилището и в пакета на агента.",
          "The integration guide: docs/integrators.md in the repository and in the agent's package.",
        )}</li>
        <li><a id="res-openapi" href="/api/v1/openapi.json">${t(
          "OpenAPI на услугата за токени",
          "The token service's OpenAPI",
        )}</a> — ${t(
          "на агента: /api/v1/openapi.json на самия агент (http://127.0.0.1:<порт>).",
          "the agent's: /api/v1/openapi.json of the agent itself (http://127.0.0.1:<port>).",
        )}</li>
        <li><a id="res-client" href="${CLIENT_PACKAGE_URL}" rel="noopener">${t(
          "Клиентски пакет @svc-filing/agent-client (npm)",
          "The client package @svc-filing/agent-client (npm)",
        )}</a></li>
        <li><a id="res-agent" href="/api/v1/agent-version">${t(
          "Агентът: изисквана и последна версия",
          "The agent: required and latest version",
        )}</a> — ${t(
          "инсталаторът се получава от доставчика на услугата (docs/install.md).",
          "the installer comes from the service's operator (docs/install.md).",
        )}</li>
      </ul>
    </div>
  `;
}
