/**
 * Passkeys (WebAuthn) for the profile and the desk (docs/token-service.md § The profile),
 * through `@simplewebauthn/server`; the browser side is `@simplewebauthn/browser`'s bundle,
 * embedded and served by the service itself (`{base}/assets/webauthn.<hash>.js`: assets.ts). A
 * signed-in person registers a passkey (`POST {base}/passkeys/options`, then `POST {base}/passkeys`, both with the session's
 * CSRF token); anyone signs in with one (`POST {base}/passkey/options`, then
 * `POST {base}/passkey/verify`, rate-limited per address). Challenges are kept in the store
 * (their hash, 5 minutes, used once), so the ceremony may span instances. The relying party is
 * the service's public URL: its host name is the RP ID and its origin the only origin accepted.
 * Only the public key and the counter are stored.
 * @module
 */
import type { Hono } from "hono";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { AppError } from "../../contract/mod.ts";
import type { Clock } from "../../clock.ts";
import type { AppLog } from "../deps.ts";
import { audit } from "../audit/mod.ts";
import type { TokenStore, WebRole } from "../store/mod.ts";
import {
  clientAddress,
  countAttempt,
  countSignIn,
  signedInOf,
  WEB_LIMITS,
  type WebC,
  type WebEnv,
} from "./guard.ts";
import type { WebAuth } from "./sessions.ts";

/** What the passkey routes need. */
export interface PasskeyDeps {
  readonly store: TokenStore;
  readonly clock: Clock;
  readonly auth: WebAuth;
  readonly role: WebRole;
  /** The service's public URL ({auth_url}). */
  readonly publicUrl: () => string;
  readonly log: AppLog;
  /** Where a signed-in person goes after a passkey sign-in. */
  readonly home: string;
}

/** Largest JSON body of a ceremony, bytes. */
const MAX_BODY = 64 * 1024;

async function jsonBody(c: WebC): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.length > MAX_BODY) throw new AppError("BODY_TOO_LARGE", "The body is too large");
  try {
    const v = JSON.parse(text || "{}");
    if (v && typeof v === "object" && !Array.isArray(v)) return v;
  } catch { /* below */ }
  throw new AppError("INVALID_JSON", "The body is not a JSON object");
}

const refused = () =>
  new AppError("WEB_INPUT_INVALID", "The passkey was not accepted", { field: "passkey" });
/**
 * The relying party: the public URL's host name as RP ID, its origin as the only origin.
 * @throws TypeError when the public URL is not a URL (a configuration error)
 */
function relyingParty(d: PasskeyDeps): { rpID: string; origin: string } {
  const u = new URL(d.publicUrl());
  return { rpID: u.hostname, origin: u.origin };
}

/**
 * Add the passkey routes to an application's router.
 * @param r the router (its guard lets `/passkey/options` and `/passkey/verify` through without
 *   a session)
 * @param d store, clock, sessions, role, public URL
 */
export function passkeyRoutes(r: Hono<WebEnv>, d: PasskeyDeps): void {
  r.post("/passkeys/options", (c) => registrationOptionsHandler(d, c));
  r.post("/passkeys", (c) => registerHandler(d, c));
  r.post("/passkey/options", (c) => signInOptionsHandler(d, c));
  r.post("/passkey/verify", (c) => signInVerifyHandler(d, c));
}

/**
 * POST /passkeys/options (signed in): the options to create a passkey for the person, their
 * passkeys excluded; the challenge is kept for {@link registerHandler}.
 * @returns 200 with the WebAuthn creation options (JSON, not cached)
 */
async function registrationOptionsHandler(d: PasskeyDeps, c: WebC): Promise<Response> {
  const user = signedInOf(c).user;
  const existing = await d.store.listPasskeys(user.id);
  const options = await generateRegistrationOptions({
    rpName: "svc-filing token service",
    rpID: relyingParty(d).rpID,
    userName: user.email,
    userID: new TextEncoder().encode(user.id),
    attestationType: "none",
    excludeCredentials: existing.map((p) => ({
      id: p.credentialId,
      transports: [...p.transports],
    })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
  });
  await d.auth.keepChallenge("passkey-register", options.challenge, user.id);
  return c.json(options, 200, { "cache-control": "no-store" });
}

/**
 * POST /passkeys (signed in): verify a new passkey against its kept challenge, store it and
 * audit it.
 * @returns 201 `{ ok: true }`
 * @throws AppError WEB_INPUT_INVALID (not accepted), CONFLICT (registered already),
 *   BODY_TOO_LARGE, INVALID_JSON
 */
async function registerHandler(d: PasskeyDeps, c: WebC): Promise<Response> {
  const user = signedInOf(c).user;
  const body = await jsonBody(c);
  const { rpID, origin } = relyingParty(d);
  const v = await verifyRegistrationResponse({
    // deno-lint-ignore no-explicit-any
    response: body as any,
    expectedChallenge: (ch) => d.auth.takeChallenge("passkey-register", ch, user.id),
    expectedOrigin: origin,
    expectedRPID: rpID,
    requireUserVerification: false,
  }).catch(() => ({ verified: false as const }));
  if (!v.verified) throw refused();
  const cred = v.registrationInfo.credential;
  const added = await d.store.addPasskey({
    credentialId: cred.id,
    userId: user.id,
    publicKey: cred.publicKey.toBase64({ alphabet: "base64url", omitPadding: true }),
    counter: cred.counter,
    transports: cred.transports ?? [],
    createdAt: d.clock.now(),
    lastUsedAt: null,
  });
  if (!added) throw new AppError("CONFLICT", "This passkey is registered already");
  await audit(d.store, d.clock, c.req.raw, {
    kind: d.role === "admin" ? "admin" : "integrator",
    name: user.email,
  }, { action: "passkey.add", target: cred.id.slice(0, 16), integratorId: user.integratorId });
  return c.json({ ok: true }, 201);
}

/**
 * POST /passkey/options (no session): the options to sign in with a passkey; the challenge is
 * kept for {@link signInVerifyHandler}.
 * @returns 200 with the WebAuthn request options (JSON, not cached)
 * @throws AppError RATE_LIMITED past the attempts per address
 */
async function signInOptionsHandler(d: PasskeyDeps, c: WebC): Promise<Response> {
  await countAttempt(d.store, d.clock, [
    [`passkey:a:${clientAddress(c)}`, WEB_LIMITS.signInPerAddress],
  ]);
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(d).rpID,
    userVerification: "preferred",
  });
  await d.auth.keepChallenge("passkey-signin", options.challenge, "");
  return c.json(options, 200, { "cache-control": "no-store" });
}

/**
 * POST /passkey/verify (no session): verify a passkey of this app's role against its kept
 * challenge, then start a session.
 * @returns 200 `{ ok: true, redirect }` with the home page to go to
 * @throws AppError WEB_INPUT_INVALID (unknown, of another role or not accepted), RATE_LIMITED,
 *   BODY_TOO_LARGE, INVALID_JSON
 */
async function signInVerifyHandler(d: PasskeyDeps, c: WebC): Promise<Response> {
  await countSignIn(d.store, d.clock, c);
  const body = await jsonBody(c);
  const found = typeof body.id === "string" ? await d.store.findPasskey(body.id) : null;
  if (!found || found.user.role !== d.role) throw refused();
  const { rpID, origin } = relyingParty(d);
  const v = await verifyAuthenticationResponse({
    // deno-lint-ignore no-explicit-any
    response: body as any,
    expectedChallenge: (ch) => d.auth.takeChallenge("passkey-signin", ch, ""),
    expectedOrigin: origin,
    expectedRPID: rpID,
    credential: {
      id: found.passkey.credentialId,
      publicKey: Uint8Array.fromBase64(found.passkey.publicKey, { alphabet: "base64url" }),
      counter: found.passkey.counter,
      transports: [...found.passkey.transports],
    },
    requireUserVerification: false,
  }).catch(() => ({ verified: false as const, authenticationInfo: null }));
  if (!v.verified || !v.authenticationInfo) throw refused();
  await d.store.usePasskey(
    found.passkey.credentialId,
    v.authenticationInfo.newCounter,
    d.clock.now(),
  );
  await d.auth.signIn(c, found.user);
  d.log("info", "signed in with a passkey", { userId: found.user.id });
  return c.json({ ok: true, redirect: d.home });
}
