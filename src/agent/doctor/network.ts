/**
 * Network checks of `agent doctor`: the agent's port range (this data folder's agent told apart
 * from other agents on the machine), the token service's JWKS (OKP/Ed25519 public keys with kid)
 * and the clock skew measured from its `Date` header.
 * @module
 */
import type { Bilingual } from "../../contract/mod.ts";
import { probeAgent } from "../start/mod.ts";
import {
  check,
  type DoctorCheck,
  type ResolvedDoctorDeps as Deps,
  type SelfAgent,
  t,
} from "./types.ts";

const msg = (e: unknown) => {
  if (!(e instanceof Error)) return String(e);
  const cause = (e.cause as Error | undefined)?.message;
  return cause ? `${e.message}: ${cause}` : e.message;
};

/**
 * Whether 127.0.0.1:port can be bound now.
 * @param port the port
 * @returns true when a listener could be opened (and was closed again)
 * @throws never
 */
export function listenFree(port: number): Promise<boolean> {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return Promise.resolve(true);
  } catch {
    return Promise.resolve(false);
  }
}

function whoUses(port: number, os: string): Bilingual {
  const cmd = os === "windows"
    ? `\`netstat -ano | findstr :${port}\` and \`tasklist /FI "PID eq <pid>"\``
    : `\`lsof -nP -iTCP:${port} -sTCP:LISTEN\``;
  const cmdBg = cmd.replace("` and `", "` и `");
  return t(`find it with ${cmd}`, `намерете я с ${cmdBg}`);
}

/** What holds one port of the range. */
type PortState =
  | { readonly port: number; readonly kind: "free" | "other" | "self" }
  | { readonly port: number; readonly kind: "agent"; readonly version: string };

/** What listens on each port of the range: this folder's agent, another agent, another program. */
function scanPorts(d: Deps, self: SelfAgent | null): Promise<PortState[]> {
  return Promise.all(d.ports.map(async (port): Promise<PortState> => {
    if (self?.state === "running" && self.port === port) return { port, kind: "self" };
    if (await d.portFree(port)) return { port, kind: "free" };
    const a = await probeAgent(port, d.fetch, d.timeoutMs);
    return a ? { port, kind: "agent", version: a.version } : { port, kind: "other" };
  }));
}

/** "another agent (another user or data folder) listens on 17470 (version 1.0.0)". */
function othersNote(others: readonly PortState[]): Bilingual | null {
  const list = (v: string) =>
    others.map((o) => `${o.port} (${v} ${"version" in o ? o.version : "?"})`).join(", ");
  if (others.length === 0) return null;
  return others.length === 1
    ? t(
      `another agent (another user or data folder) listens on ${list("version")}`,
      `друг агент (на друг потребител или с друга папка с данни) слуша на ${list("версия")}`,
    )
    : t(
      `other agents (other users or data folders) listen on ${list("version")}`,
      `други агенти (на други потребители или с други папки с данни) слушат на ${list("версия")}`,
    );
}

const join = (parts: (Bilingual | null)[]): Bilingual => {
  const kept = parts.filter((p): p is Bilingual => p !== null);
  return t(kept.map((p) => p.en).join("; "), kept.map((p) => p.bg).join("; "));
};
const joinFix = (parts: Bilingual[]): Bilingual | null =>
  parts.length ? t(parts.map((p) => p.en).join(" "), parts.map((p) => p.bg).join(" ")) : null;

/**
 * Port check: which port this data folder's agent listens on (or will), and what else holds the
 * range 17470–17479 — other agents (another user's, another data folder's) are named as such and
 * never taken for this one. Pages look for the agent from the first port upward, so another agent
 * below this one's port, or a port outside the range, is a warning.
 * @param d resolved doctor deps
 * @param self this data folder's agent (from `selfPort`, its record or its lock), or null
 * @returns the `port` check
 * @throws never
 */
export async function checkPort(d: Deps, self: SelfAgent | null): Promise<DoctorCheck> {
  const first = d.ports[0]!;
  const range = `${first}–${d.ports.at(-1)}`;
  const title = t(`Agent port (${range})`, `Порт на агента (${range})`);
  const states = await scanPorts(d, self);
  const others = states.filter((s) => s.kind === "agent");
  const free = states.find((s) => s.kind === "free")?.port;
  const running = self?.state === "running" ? self.port : 0;
  const ours = running || (self ? 0 : free ?? 0); // the port this folder's agent has or will take
  const fixes: Bilingual[] = [];
  const own = ownPort(d, self, free, range);
  let level = own.level;
  if (own.fix) fixes.push(own.fix);
  const program = states[0]?.kind === "other" && ours !== first;
  const programNote = program
    ? t(`${first} is used by another program`, `${first} е зает от друга програма`)
    : null;
  if (program) {
    fixes.push(programFix(level, first, range, whoUses(first, d.os)));
    if (level === true) level = "warn";
  }
  // Pages probe the range in order: other agents before this folder's port are found first.
  const at = (port: number) => d.ports.includes(port) ? d.ports.indexOf(port) : d.ports.length;
  const below = others.filter((o) => ours > 0 ? at(o.port) < at(ours) : o.port === first);
  const reachedFirst = below[0];
  if (reachedFirst) {
    if (level === true) level = "warn";
    fixes.push(belowFix(first, reachedFirst.port));
  }
  if (level === false && !program) {
    fixes.push(t(
      `Close the programs holding ${range}, then start the agent again.`,
      `Затворете програмите, които заемат ${range}, и стартирайте агента отново.`,
    ));
  }
  const detail = join([own.main, programNote, othersNote(others)]);
  return check("port", level, title, detail, level === true ? null : joinFix(fixes));
}

/** Where this data folder's agent is or will be: the check's first line, its level and fix. */
function ownPort(
  d: Deps,
  self: SelfAgent | null,
  free: number | undefined,
  range: string,
): { level: DoctorCheck["ok"]; main: Bilingual; fix: Bilingual | null } {
  const first = d.ports[0]!;
  if (self?.state === "running") {
    const who = `pid ${self.pid ?? "?"}, version ${self.version}`;
    const whoBg = `процес ${self.pid ?? "?"}, версия ${self.version}`;
    const main = t(
      `This data folder's agent (${who}) listens on ${self.port}`,
      `Агентът на тази папка с данни (${whoBg}) слуша на порт ${self.port}`,
    );
    if (d.ports.includes(self.port)) return { level: true, main, fix: null };
    return {
      level: "warn",
      main: t(
        `${main.en}, outside ${range}: pages that look for the agent there do not find it`,
        `${main.bg}, извън ${range}: страниците, които търсят агента там, не го намират`,
      ),
      fix: t(
        `Start the agent without --port / SVC_AGENT_PORT (it then uses ${range}), or give the ` +
          "page this port.",
        `Стартирайте агента без --port / SVC_AGENT_PORT (тогава ползва ${range}) или задайте ` +
          "този порт на страницата.",
      ),
    };
  }
  if (self) {
    return {
      level: true,
      main: t(
        `This data folder's agent is starting (pid ${self.pid ?? "?"})`,
        `Агентът на тази папка с данни стартира (процес ${self.pid ?? "?"})`,
      ),
      fix: null,
    };
  }
  if (free === first) {
    return {
      level: true,
      main: t(
        `Free: this data folder's agent will listen on ${first} (fallback ${range})`,
        `Свободен: агентът на тази папка с данни ще слуша на ${first} (резервни ${range})`,
      ),
      fix: null,
    };
  }
  if (free !== undefined) {
    return {
      level: "warn",
      main: t(
        `This data folder's agent is not running; it will listen on fallback port ${free}`,
        `Агентът на тази папка с данни не работи; ще слуша на резервния порт ${free}`,
      ),
      fix: null,
    };
  }
  return {
    level: false,
    main: t(
      `All ports ${range} are in use, none by this data folder's agent`,
      `Всички портове ${range} са заети, никой от агента на тази папка с данни`,
    ),
    fix: null,
  };
}

/** What to do about another program on the first port (all ports taken: close them all). */
function programFix(
  level: DoctorCheck["ok"],
  first: number,
  range: string,
  who: Bilingual,
): Bilingual {
  return level === false
    ? t(
      `Close the programs holding ${range} (${who.en}), then start the agent again.`,
      `Затворете програмите, които заемат ${range} (${who.bg}), и стартирайте агента отново.`,
    )
    : t(
      `Stop the program that holds port ${first} (${who.en}), or leave it: pages find the ` +
        `agent by GET /health over ${range}.`,
      `Спрете програмата, която заема порт ${first} (${who.bg}), или я оставете: страниците ` +
        `намират агента чрез GET /health в ${range}.`,
    );
}

/** What to do about another agent that pages reach before this folder's agent. */
function belowFix(first: number, port: number): Bilingual {
  return t(
    `Pages look for the agent from ${first} upward and reach the agent on ${port} ` +
      "first. If it is yours (another data folder), stop it; on a computer shared by several " +
      "users give each user's agent its own start port (--port or SVC_AGENT_PORT) and use " +
      "that port in the page.",
    `Страниците търсят агента от ${first} нагоре и първо достигат агента на ${port}. ` +
      "Ако той е ваш (с друга папка с данни), спрете го; на компютър с няколко потребители " +
      "задайте на агента на всеки потребител собствен начален порт (--port или " +
      "SVC_AGENT_PORT) и ползвайте този порт в страницата.",
  );
}

/** The URL without credentials or query, for messages. */
function shown(u: URL): string {
  return `${u.protocol}//${u.host}${u.pathname}`;
}

function jwkProblem(k: Record<string, unknown>, i: number): Bilingual | null {
  const kid = typeof k.kid === "string" && k.kid ? `"${k.kid}"` : null;
  const name = t(kid ? `key ${kid}` : `key #${i + 1}`, kid ? `ключ ${kid}` : `ключ №${i + 1}`);
  const say = (en: string, bg: string) => t(`${name.en} ${en}`, `${name.bg} ${bg}`);
  if ("d" in k) return say('contains PRIVATE key material ("d")', 'съдържа ЧАСТЕН ключ ("d")');
  if (k.kty !== "OKP" || k.crv !== "Ed25519") return say("is not OKP/Ed25519", "не е OKP/Ed25519");
  if (typeof k.kid !== "string" || !k.kid) return say("has no kid", "няма kid");
  if (typeof k.x !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(k.x)) {
    return say("has a bad x", "има невалидно x");
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
  const title = t("Token service and JWKS", "Услуга за токени и JWKS");
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
        t("The token service URL is not a URL", "Адресът на услугата за токени не е валиден URL"),
        t(`Set ${env.en}`, `Задайте ${env.bg}`),
      ),
      noClock(t("no token service URL", "няма адрес на услугата за токени")),
    ];
  }
  let res: Response, t0: number, t1: number;
  try {
    t0 = d.now();
    res = await d.fetch(url, { signal: AbortSignal.timeout(d.timeoutMs) });
    t1 = d.now();
  } catch (e) {
    const why = msg(e).replace(/\/\/[^/@\s]+@/g, "//");
    const now = `${url.protocol}//${url.host}`;
    return [
      check(
        "token-service",
        false,
        title,
        t(
          `Cannot reach ${shown(url)}${from.en}: ${why}`,
          `Няма връзка с ${shown(url)}${from.bg}: ${why}`,
        ),
        t(
          `Check ${env.en} (now ${now}), the network, a proxy or firewall; open that URL in a ` +
            "browser on this PC",
          `Проверете ${env.bg} (сега ${now}), мрежата, прокси сървъра или защитната стена; ` +
            "отворете този адрес в браузър на този компютър",
        ),
      ),
      noClock(t("the token service is unreachable", "услугата за токени е недостъпна")),
    ];
  }
  const date = Date.parse(res.headers.get("date") ?? "");
  const svc = await jwksCheck(res, url, title, env, from);
  return [svc, clockCheck(d.os, date, t0, t1)];
}

/** The setting that names the token service (`env`) and where its URL came from (`from`). */
function wordsOfSource(source: TokenServiceSource): { env: Bilingual; from: Bilingual } {
  const env = source === "running-agent" || source === "this-agent"
    ? t(
      "the agent's --token-service or SVC_TOKEN_SERVICE_URL (restart the agent after a change)",
      "--token-service или SVC_TOKEN_SERVICE_URL на агента (рестартирайте агента след промяна)",
    )
    : t("SVC_TOKEN_SERVICE_URL or --token-service", "SVC_TOKEN_SERVICE_URL или --token-service");
  const from = source === "running-agent"
    ? t(
      " (the URL this data folder's running agent was started with)",
      " (адресът, с който е стартиран работещият агент на тази папка с данни)",
    )
    : t("", "");
  return { env, from };
}

const CLOCK_TITLE = t("Clock (against the token service)", "Часовник (спрямо услугата за токени)");

/** The clock check when it could not be measured. */
function noClock(
  why: Bilingual,
  fix = t("Fix the token service check first", "Първо оправете проверката на услугата за токени"),
): DoctorCheck {
  return check(
    "clock",
    "warn",
    CLOCK_TITLE,
    t(`Not measured: ${why.en}`, `Не е измерен: ${why.bg}`),
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
    ? t(`${at} answered HTTP ${res.status}`, `${at} отговори с HTTP ${res.status}`)
    : body === null
    ? t(`${at} did not return JSON`, `${at} не върна JSON`)
    : keys.length === 0
    ? t(`${at} lists no keys`, `${at} не съдържа ключове`)
    : keys.map(jwkProblem).find((p) => p !== null) ?? null;
  const kids = keys.map((k) => k.kid).join(", ");
  return problem
    ? check(
      "token-service",
      false,
      title,
      t(problem.en + from.en, problem.bg + from.bg),
      t(
        `Check that ${env.en} points at the token service (it serves /.well-known/jwks.json ` +
          "with Ed25519 public keys); ask its operator if it does",
        `Проверете дали ${env.bg} сочи към услугата за токени (тя публикува ` +
          "/.well-known/jwks.json с публични ключове Ed25519); ако сочи, попитайте администратора ѝ",
      ),
    )
    : check(
      "token-service",
      true,
      title,
      t(
        `${at}: ${keys.length} Ed25519 key(s), kid ${kids}${from.en}`,
        `${at}: ${keys.length} ключ(а) Ed25519, kid ${kids}${from.bg}`,
      ),
    );
}

/** The `clock` check from the answer's Date header and the request's round trip (ms). */
function clockCheck(os: string, date: number, t0: number, t1: number): DoctorCheck {
  if (Number.isNaN(date)) {
    const fix = t(
      "Compare this PC's clock with an accurate clock by hand; enable automatic time",
      "Сравнете часовника на този компютър с точен часовник; включете автоматичната настройка на часа",
    );
    return noClock(t("the answer has no Date header", "отговорът няма заглавие Date"), fix);
  }
  // Date has 1 s resolution: the server's time lies in [date, date + 1000).
  const skew = (t0 + t1) / 2 - (date + 500);
  const s = (Math.abs(skew) / 1000).toFixed(1);
  const margin = 500 + (t1 - t0) / 2; // Date resolution + half the round trip
  const m = (margin / 1000).toFixed(1);
  const within = Math.abs(skew) <= margin;
  const text = t(
    (within
      ? `This PC's clock matches the token service (to ±${m} s)`
      : `This PC's clock is about ${s} s ${skew > 0 ? "ahead of" : "behind"} the token service`) +
      " (tokens live 5 s; the agent allows 2 s of skew)",
    (within
      ? `Часовникът на този компютър съвпада с този на услугата за токени (с точност ±${m} s)`
      : `Часовникът на този компютър ${skew > 0 ? "избързва" : "изостава"} с около ${s} s ` +
        "спрямо услугата за токени") +
      " (токените важат 5 s; агентът допуска разминаване до 2 s)",
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
      : t(`Sync the clock: ${syncWords(os).en}`, `Сверете часовника: ${syncWords(os).bg}`),
  );
}

/** How to set the clock automatically on this OS. */
function syncWords(os: string): Bilingual {
  return os === "windows"
    ? t(
      "Settings → Time & language → Date & time → Set time automatically, then Sync now",
      "Настройки → Час и език → Дата и час → Автоматично задаване на часа, след това " +
        "„Синхронизиране сега“",
    )
    : os === "darwin"
    ? t(
      "System Settings → General → Date & Time → Set time and date automatically",
      "Системни настройки → Общи → Дата и час → Автоматично задаване на часа и датата",
    )
    : t(
      "`timedatectl set-ntp true` (or enable your NTP service)",
      "`timedatectl set-ntp true` (или включете вашата NTP услуга)",
    );
}
