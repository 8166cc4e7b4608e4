/**
 * The live portal check of `agent doctor`: when agent.json has a `portal` section, its base URL
 * is asked once (`HEAD`, within the doctor's timeout, through `portal.caFile` when set) — any
 * HTTP answer means the NRA API is reachable from this PC; whether credentials are configured is
 * told too (they are never shown). Without the section the agent files in test mode only, with
 * the test portal built in: there is nothing to reach.
 * @module
 */
import { errorMessageWithCause } from "../../error_message.ts";
import { bi, type Bilingual } from "../../contract/mod.ts";
import type { AgentFile } from "../senders/mod.ts";
import { check, type DoctorCheck, type ResolvedDoctorDeps as Deps } from "./types.ts";

/**
 * Checks the live portal's reachability.
 * @param d resolved doctor deps (fetch, timeout)
 * @param file agent.json, or null when it is invalid
 * @returns the `portal` check
 * @throws never
 */
export async function checkPortal(d: Deps, file: AgentFile | null): Promise<DoctorCheck> {
  const title = bi("Портал на НАП (реални подавания)", "NRA portal (live filings)");
  if (!file) {
    return check(
      "portal",
      "warn",
      title,
      bi("Не е проверен: agent.json е невалиден", "Not checked: agent.json is invalid"),
      bi(
        "Първо поправете agent.json (вижте проверката му)",
        "Fix agent.json first (see its check)",
      ),
    );
  }
  const p = file.portal;
  if (!p) {
    return check(
      "portal",
      true,
      title,
      bi(
        "Само тестов режим: тестовият портал е вграден в агента и не изисква връзка. За реални " +
          "подавания е нужна секция portal в agent.json (docs/live-portal.md)",
        "Test mode only: the test portal is built into the agent, there is nothing to reach. " +
          "Live filings need a portal section in agent.json (docs/live-portal.md)",
      ),
    );
  }
  let base: URL;
  try {
    base = new URL(p.baseUrl);
  } catch {
    return check(
      "portal",
      false,
      title,
      bi("portal.baseUrl не е валиден URL", "portal.baseUrl is not a URL"),
      bi("Поправете portal.baseUrl в agent.json", "Correct portal.baseUrl in agent.json"),
    );
  }
  const at = `${base.protocol}//${base.host}${base.pathname}`;
  const via = await portalFetch(d, p, title);
  if ("id" in via) return via;
  const res = await askPortal(d, via, base, at, title);
  if (!(res instanceof Response)) return res;
  return answeredCheck(p, res, at, title);
}

type PortalSection = NonNullable<AgentFile["portal"]>;

/** The fetch that reaches the portal (through `portal.caFile` when set), or the failed check. */
async function portalFetch(
  d: Deps,
  p: PortalSection,
  title: Bilingual,
): Promise<{ fetch: typeof fetch; close: () => void } | DoctorCheck> {
  if (!p.caFile) return { fetch: d.fetch, close: () => {} };
  try {
    const { caFetchFromFile } = await import("../../portal/live/mod.ts");
    const ca = await caFetchFromFile(p.caFile);
    return { fetch: ca.fetch, close: () => ca.close() };
  } catch (e) {
    return check(
      "portal",
      false,
      title,
      bi(errorMessageWithCause(e), errorMessageWithCause(e)),
      bi(
        "Поправете portal.caFile в agent.json или върнете PEM файла",
        "Correct portal.caFile in agent.json or put the PEM file back",
      ),
    );
  }
}

/** `HEAD` of the portal's base URL within the doctor's timeout: its answer, or the failed check. */
async function askPortal(
  d: Deps,
  via: { fetch: typeof fetch; close: () => void },
  base: URL,
  at: string,
  title: Bilingual,
): Promise<Response | DoctorCheck> {
  try {
    const res = await via.fetch(base, {
      method: "HEAD",
      redirect: "manual",
      signal: AbortSignal.timeout(d.timeoutMs),
    });
    await res.body?.cancel();
    return res;
  } catch (e) {
    const s = (d.timeoutMs / 1000).toFixed(1);
    const timedOut = e instanceof DOMException && e.name === "TimeoutError";
    const why = timedOut
      ? bi(`няма отговор до ${s} s`, `no answer within ${s} s`)
      : bi(errorMessageWithCause(e), errorMessageWithCause(e));
    return check(
      "portal",
      false,
      title,
      bi(`Няма връзка с ${at}: ${why.bg}`, `Cannot reach ${at}: ${why.en}`),
      bi(
        "Проверете интернет връзката, прокси сървъра или защитната стена (агентът трябва да " +
          `достига ${base.host} по HTTPS) и portal.baseUrl в agent.json; тестовите подавания ` +
          "не са засегнати",
        `Check the internet connection, a proxy or firewall (the agent must reach ${base.host} ` +
          "over HTTPS) and portal.baseUrl in agent.json; test filings are not affected",
      ),
    );
  } finally {
    via.close();
  }
}

/** The check once the portal answered: a server error, no credentials, or fine. */
function answeredCheck(
  p: PortalSection,
  res: Response,
  at: string,
  title: Bilingual,
): DoctorCheck {
  const envName = p.environment === "production"
    ? bi("реална (production)", "production")
    : bi("тестовата среда на НАП", "the NRA's test environment");
  const answered = bi(
    `${at} отговаря (HTTP ${res.status}); среда: ${envName.bg}`,
    `${at} answers (HTTP ${res.status}); environment: ${envName.en}`,
  );
  const test = bi(
    "тестовите подавания ползват вградения тестов портал",
    "test filings use the built-in test portal",
  );
  if (res.status >= 500) {
    return check(
      "portal",
      "warn",
      title,
      bi(
        `${answered.bg}: грешка на сървъра; ${test.bg}`,
        `${answered.en}: a server error; ${test.en}`,
      ),
      bi(
        "API на НАП има проблем в момента: опитайте реалните подавания по-късно",
        "The NRA's API has a problem now: try live filings later",
      ),
    );
  }
  const credentials = (p.clientId && p.clientSecret) || p.accessToken;
  if (!credentials) {
    return check(
      "portal",
      "warn",
      title,
      bi(
        `${answered.bg}; няма зададени данни за достъп; ${test.bg}`,
        `${answered.en}; no credentials configured; ${test.en}`,
      ),
      bi(
        "Добавете portal.clientId и portal.clientSecret или portal.accessToken в agent.json " +
          "(docs/live-portal.md)",
        "Add portal.clientId and portal.clientSecret, or portal.accessToken, to agent.json " +
          "(docs/live-portal.md)",
      ),
    );
  }
  return check(
    "portal",
    true,
    title,
    bi(`${answered.bg}; ${test.bg}`, `${answered.en}; ${test.en}`),
  );
}
