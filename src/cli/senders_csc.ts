/**
 * `senders add --csc <service URL or provider name>`: a cloud sender (docs/signing.md § 11,
 * remote signing). The agent reads the service's `info`, opens a loopback callback on 127.0.0.1 (a free
 * port), opens the default browser at it (it forwards to the provider's sign-in page; the address
 * is also printed), waits for the callback with `state` checked (at most 10 minutes), keeps the
 * refresh token encrypted, lists the credentials and adds the chosen one as a sender after the
 * same certificate checks as any other key.
 * @module
 */
import { resolve } from "node:path";
import type { CscCredential } from "../agent/senders/mod.ts";
import type { Cli } from "./context.ts";
import { say } from "./output.ts";
import { UserError } from "../user_error.ts";

/** The flags of `senders add` a cloud sender reads. */
export interface CscAddFlags {
  readonly csc: string;
  readonly clientId?: string;
  readonly credentialId?: string;
  readonly caFile?: string;
}

/** How long the sign-in in the browser may take, ms. */
const SIGN_IN_TIMEOUT_MS = 10 * 60_000;

const senders = () => import("../agent/senders/mod.ts");

/** The service URL and client id: a URL as given, or a provider of csc_providers.json. */
async function serviceOf(dataDir: string, v: CscAddFlags) {
  const { readCscProviders, CSC_PROVIDERS_FILE } = await senders();
  if (/^https:\/\//.test(v.csc)) {
    if (!v.clientId) {
      throw new UserError("--client-id is needed with a service URL (the provider registers it)");
    }
    return { serviceUrl: v.csc, clientId: v.clientId };
  }
  const known = await readCscProviders(dataDir);
  const p = known.find((x) => x.name.toLowerCase() === v.csc.toLowerCase());
  if (!p) {
    throw new UserError(
      `"${v.csc}" is neither an https:// service URL nor a provider of ${CSC_PROVIDERS_FILE} ` +
        `(known: ${known.map((k) => k.name).join(", ") || "none"})`,
    );
  }
  return {
    serviceUrl: p.serviceUrl,
    clientId: v.clientId ?? p.clientId,
    ...(p.caFile ? { caFile: p.caFile } : {}),
  };
}

/** Pick the credential: the one named, the only one, or the one the person types. */
async function chooseCredential(
  cli: Cli,
  creds: CscCredential[],
  wanted: string | undefined,
): Promise<CscCredential> {
  if (wanted) {
    const c = creds.find((x) => x.id === wanted);
    if (!c) throw new UserError(`No credential "${wanted}" (${creds.map((x) => x.id).join(", ")})`);
    return c;
  }
  // non-null: creds.length === 1
  if (creds.length === 1) return creds[0]!;
  if (creds.length === 0) throw new UserError("The provider lists no signing credential for you");
  creds.forEach((c, i) => say(cli, `${i + 1}. ${c.id} (${c.authMode}) ${c.description}`));
  say(cli, "Which credential? Type its number:");
  const n = Number((await cli.readLine()).trim());
  const c = creds[n - 1];
  if (!c) throw new UserError("No such credential number");
  return c;
}

/**
 * Sign in at the provider through the browser and return the credentials.
 * @param cli the run's context (prints the address; opens the browser unless
 *   SVC_OPEN_BROWSER=never)
 * @param ref the service, client, CA file and token file
 * @returns the credentials
 */
async function signInWithBrowser(
  cli: Cli,
  ref: { serviceUrl: string; clientId: string; caFile?: string; tokenFile: string },
): Promise<CscCredential[]> {
  const { beginCscSignIn } = await senders();
  const stop = new AbortController();
  const callback = Promise.withResolvers<URLSearchParams>();
  let started: { url: string; provider: string } | null = null;
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: stop.signal,
    onListen: () => {},
  }, (req) => {
    const u = new URL(req.url);
    if (u.pathname === "/start" && started) return Response.redirect(started.url, 302);
    if (u.pathname !== "/callback") return new Response("Not found", { status: 404 });
    callback.resolve(u.searchParams);
    const html = '<!DOCTYPE html><html lang="bg"><meta charset="utf-8"><title>svc-filing</title>' +
      "<p>Влизането приключи; можете да затворите този раздел. / Signed in; you may close this tab.</p>";
    return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const timer = setTimeout(
    () => callback.reject(new Error("The sign-in was not finished within 10 minutes")),
    SIGN_IN_TIMEOUT_MS,
  );
  try {
    const signIn = await beginCscSignIn(ref, `${base}/callback`);
    started = signIn;
    say(cli, `Sign in at ${signIn.provider || ref.serviceUrl} in the browser: ${base}/start`);
    if (cli.env.SVC_OPEN_BROWSER !== "never") {
      const { systemBrowserOpener } = await import("../agent/host/mod.ts");
      systemBrowserOpener(() => {})(`${base}/start`);
    }
    return await signIn.finish(await callback.promise);
  } finally {
    clearTimeout(timer);
    stop.abort();
    await server.finished;
  }
}

/**
 * Add a cloud sender.
 * @param cli the run's context
 * @param dataDir the agent's data directory
 * @param v the flags
 * @param sender the id, name and `force` of the sender
 */
export async function addCscSender(
  cli: Cli,
  dataDir: string,
  v: CscAddFlags,
  sender: { id?: string; name: string; force?: boolean },
): Promise<void> {
  const { addSender, newTokenFile } = await senders();
  const service = await serviceOf(dataDir, v);
  const tokenFile = newTokenFile(resolve(dataDir));
  const caFile = v.caFile ? resolve(v.caFile) : service.caFile;
  const ref = { ...service, tokenFile, ...(caFile ? { caFile } : {}) };
  const creds = await signInWithBrowser(cli, ref);
  const cred = await chooseCredential(cli, creds, v.credentialId);
  const { sender: added, certificate } = await addSender(dataDir, {
    id: sender.id,
    displayName: sender.name,
    ref: {
      type: "csc",
      ...ref,
      certId: cred.id,
      authMode: cred.authMode,
      pin: cred.pin,
    },
    force: sender.force,
  }, cli.clock.now());
  say(cli, `Certificate: ${certificate.subject}`);
  say(cli, `  issuer ${certificate.issuer}`);
  say(cli, `  valid ${certificate.notBefore} – ${certificate.notAfter}`);
  for (const k of certificate.checks) say(cli, `  [${k.ok ? "ok" : "!!"}] ${k.check}: ${k.reason}`);
  say(
    cli,
    `Added sender ${added.id} (${added.displayName}): cloud signature, ${
      cred.authMode === "oauth2code"
        ? "approved at the provider"
        : (cred.pin ? "PIN on the confirmation page" : "no PIN") +
          (cred.otp
            ? `, one-time code ${
              cred.otpType === "online" ? "sent by the provider" : "from your device"
            } typed on the agent's page`
            : "")
    }.`,
  );
}
