/**
 * The token service checks of `agent doctor`: its JWKS (OKP/Ed25519 public keys with kid) and
 * the clock skew measured from its `Date` header.
 * @module
 */
import { errorMessageWithCause } from "../../error_message.ts";
import { bi, type Bilingual } from "../../contract/mod.ts";
import { check, type DoctorCheck, type ResolvedDoctorDeps as Deps } from "./types.ts";

function shown(u: URL): string {
  return `${u.protocol}//${u.host}${u.pathname}`;
}

function jwkProblem(k: Record<string, unknown>, i: number): Bilingual | null {
  const kid = typeof k.kid === "string" && k.kid ? `"${k.kid}"` : null;
  const name = bi(kid ? `ключ ${kid}` : `ключ №${i + 1}`, kid ? `key ${kid}` : `key #${i + 1}`);
  const keyBi = (bg: string, en: string) => bi(`${name.bg} ${bg}`, `${name.en} ${en}`);
  if ("d" in k) return keyBi('съдържа ЧАСТЕН ключ ("d")', 'contains PRIVATE key material ("d")');
  if (k.kty !== "OKP" || k.crv !== "Ed25519") {
    return keyBi("не е OKP/Ed25519", "is not OKP/Ed25519");
  }
  if (typeof k.kid !== "string" || !k.kid) return keyBi("няма kid", "has no kid");
  if (typeof k.x !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(k.x)) {
    return keyBi("има невалидно x", "has a bad x");
  }
  return null;
}

/**
 * Where the token service URL checked came from: given for this run, the configuration, the
 * record of this data folder's running agent, or the agent the doctor runs in.
 */
export type TokenServiceSource = "flag" | "config" | "running-agent" | "this-agent";

/**
 * Token service check (GET /.well-known/jwks.json) and the clock check from its Date header.
 * @param d resolved doctor deps
 * @param tokenServiceUrl the URL to check
 * @param source where it came from (named in the detail and the fix)
 * @returns the `token-service` and `clock` checks
 * @throws never
 */
export async function checkTokenService(
  d: Deps,
  tokenServiceUrl: string = d.tokenServiceUrl,
  source: TokenServiceSource = "config",
): Promise<DoctorCheck[]> {
  const title = bi("Услуга за токени и JWKS", "Token service and JWKS");
  const { env, from } = wordsOfSource(source);
  let url: URL;
  try {
    url = new URL("/.well-known/jwks.json", tokenServiceUrl);
  } catch {
    return [
      check(
        "token-service",
        false,
        title,
        bi("Адресът на услугата за токени не е валиден URL", "The token service URL is not a URL"),
        bi(`Задайте ${env.bg}`, `Set ${env.en}`),
      ),
      noClock(bi("няма адрес на услугата за токени", "no token service URL")),
    ];
  }
  let res: Response, t0: number, t1: number;
  try {
    t0 = d.now();
    res = await d.fetch(url, { signal: AbortSignal.timeout(d.timeoutMs) });
    t1 = d.now();
  } catch (e) {
    const why = errorMessageWithCause(e).replace(/\/\/[^/@\s]+@/g, "//");
    const now = `${url.protocol}//${url.host}`;
    return [
      check(
        "token-service",
        false,
        title,
        bi(
          `Няма връзка с ${shown(url)}${from.bg}: ${why}`,
          `Cannot reach ${shown(url)}${from.en}: ${why}`,
        ),
        bi(
          `Проверете ${env.bg} (сега ${now}), мрежата, прокси сървъра или защитната стена; ` +
            "отворете този адрес в браузър на този компютър",
          `Check ${env.en} (now ${now}), the network, a proxy or firewall; open that URL in a ` +
            "browser on this PC",
        ),
      ),
      noClock(bi("услугата за токени е недостъпна", "the token service is unreachable")),
    ];
  }
  const date = Date.parse(res.headers.get("date") ?? "");
  const svc = await jwksCheck(res, url, title, env, from);
  return [svc, clockCheck(d.os, await closestSample(d, url, { date, t0, t1 }))];
}

/** One reading of the token service's clock: its `Date` header (epoch ms, NaN when absent) and
 * this PC's clock before and after the request (ms). */
interface ClockSample {
  readonly date: number;
  readonly t0: number;
  readonly t1: number;
}

/** The skew of a sample beyond what it can measure (ms; 0 when within its margin). */
const excessOf = (c: ClockSample): number => {
  // Date has 1 s resolution: the server's time lies in [date, date + 1000).
  const skew = (c.t0 + c.t1) / 2 - (c.date + 500);
  return Math.max(0, Math.abs(skew) - (500 + (c.t1 - c.t0) / 2));
};

/**
 * A first reading outside its margin is read twice more and the closest of the three kept: a
 * server's `Date` can lag under load (it is written from a clock cached per second), and a slow
 * answer widens the margin, so one reading alone can show a skew the clocks do not have.
 */
async function closestSample(d: Deps, url: URL, first: ClockSample): Promise<ClockSample> {
  if (Number.isNaN(first.date) || excessOf(first) === 0) return first;
  let best = first;
  for (let i = 0; i < 2; i++) {
    try {
      const t0 = d.now();
      const res = await d.fetch(url, { signal: AbortSignal.timeout(d.timeoutMs) });
      const t1 = d.now();
      await res.body?.cancel();
      const date = Date.parse(res.headers.get("date") ?? "");
      const s = { date, t0, t1 };
      if (!Number.isNaN(date) && excessOf(s) < excessOf(best)) best = s;
    } catch {
      break; // the first reading stands
    }
  }
  return best;
}

/** The setting that names the token service (`env`) and where its URL came from (`from`). */
function wordsOfSource(source: TokenServiceSource): { env: Bilingual; from: Bilingual } {
  const env = source === "running-agent" || source === "this-agent"
    ? bi(
      "--token-service или SVC_TOKEN_SERVICE_URL на агента (рестартирайте агента след промяна)",
      "the agent's --token-service or SVC_TOKEN_SERVICE_URL (restart the agent after a change)",
    )
    : bi("SVC_TOKEN_SERVICE_URL или --token-service", "SVC_TOKEN_SERVICE_URL or --token-service");
  const from = source === "running-agent"
    ? bi(
      " (адресът, с който е стартиран работещият агент на тази папка с данни)",
      " (the URL this data folder's running agent was started with)",
    )
    : bi("", "");
  return { env, from };
}

const CLOCK_TITLE = bi("Часовник (спрямо услугата за токени)", "Clock (against the token service)");

/** The clock check when it could not be measured. */
function noClock(
  why: Bilingual,
  fix = bi("Първо оправете проверката на услугата за токени", "Fix the token service check first"),
): DoctorCheck {
  return check(
    "clock",
    "warn",
    CLOCK_TITLE,
    bi(`Не е измерен: ${why.bg}`, `Not measured: ${why.en}`),
    fix,
  );
}

/** The `token-service` check of the JWKS answer: Ed25519 keys, or what is wrong. */
async function jwksCheck(
  res: Response,
  url: URL,
  title: Bilingual,
  env: Bilingual,
  from: Bilingual,
): Promise<DoctorCheck> {
  let body: { keys?: unknown } | null = null;
  if (res.ok) body = await res.json().catch(() => null);
  else await res.body?.cancel();
  const keys = Array.isArray(body?.keys) ? body.keys as Record<string, unknown>[] : [];
  const at = shown(url);
  const problem: Bilingual | null = !res.ok
    ? bi(`${at} отговори с HTTP ${res.status}`, `${at} answered HTTP ${res.status}`)
    : body === null
    ? bi(`${at} не върна JSON`, `${at} did not return JSON`)
    : keys.length === 0
    ? bi(`${at} не съдържа ключове`, `${at} lists no keys`)
    : keys.map(jwkProblem).find((p) => p !== null) ?? null;
  const kids = keys.map((k) => k.kid).join(", ");
  return problem
    ? check(
      "token-service",
      false,
      title,
      bi(problem.bg + from.bg, problem.en + from.en),
      bi(
        `Проверете дали ${env.bg} сочи към услугата за токени (тя публикува ` +
          "/.well-known/jwks.json с публични ключове Ed25519); ако сочи, попитайте администратора ѝ",
        `Check that ${env.en} points at the token service (it serves /.well-known/jwks.json ` +
          "with Ed25519 public keys); ask its operator if it does",
      ),
    )
    : check(
      "token-service",
      true,
      title,
      bi(
        `${at}: ${keys.length} ключ(а) Ed25519, kid ${kids}${from.bg}`,
        `${at}: ${keys.length} Ed25519 key(s), kid ${kids}${from.en}`,
      ),
    );
}

/** The `clock` check from a reading: the answer's Date header and the request's round trip (ms). */
function clockCheck(os: string, { date, t0, t1 }: ClockSample): DoctorCheck {
  if (Number.isNaN(date)) {
    const fix = bi(
      "Сравнете часовника на този компютър с точен часовник; включете автоматичната настройка на часа",
      "Compare this PC's clock with an accurate clock by hand; enable automatic time",
    );
    return noClock(bi("отговорът няма заглавие Date", "the answer has no Date header"), fix);
  }
  // Date has 1 s resolution: the server's time lies in [date, date + 1000).
  const skew = (t0 + t1) / 2 - (date + 500);
  const s = (Math.abs(skew) / 1000).toFixed(1);
  const margin = 500 + (t1 - t0) / 2; // Date resolution + half the round trip
  const m = (margin / 1000).toFixed(1);
  const within = Math.abs(skew) <= margin;
  const text = bi(
    (within
      ? `Часовникът на този компютър съвпада с този на услугата за токени (с точност ±${m} s)`
      : `Часовникът на този компютър ${skew > 0 ? "избързва" : "изостава"} с около ${s} s ` +
        "спрямо услугата за токени") +
      " (токените важат 5 s; агентът допуска разминаване до 2 s)",
    (within
      ? `This PC's clock matches the token service (to ±${m} s)`
      : `This PC's clock is about ${s} s ${skew > 0 ? "ahead of" : "behind"} the token service`) +
      " (tokens live 5 s; the agent allows 2 s of skew)",
  );
  const abs = Math.abs(skew) / 1000;
  const level = abs > 2 ? false : abs > 1 ? "warn" : true;
  return check(
    "clock",
    level,
    CLOCK_TITLE,
    text,
    level === true
      ? null
      : bi(`Сверете часовника: ${syncWords(os).bg}`, `Sync the clock: ${syncWords(os).en}`),
  );
}

/** How to set the clock automatically on this OS. */
function syncWords(os: string): Bilingual {
  return os === "windows"
    ? bi(
      "Настройки → Час и език → Дата и час → Автоматично задаване на часа, след това " +
        "„Синхронизиране сега“",
      "Settings → Time & language → Date & time → Set time automatically, then Sync now",
    )
    : os === "darwin"
    ? bi(
      "Системни настройки → Общи → Дата и час → Автоматично задаване на часа и датата",
      "System Settings → General → Date & Time → Set time and date automatically",
    )
    : bi(
      "`timedatectl set-ntp true` (или включете вашата NTP услуга)",
      "`timedatectl set-ntp true` (or enable your NTP service)",
    );
}
