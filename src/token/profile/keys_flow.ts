/**
 * How the keys page answers a change (docs/token-service.md § What an integrator sees, keys):
 * POST → 303 → GET, so that reloading the page repeats nothing (no second key). A new secret
 * crosses the redirect in a cookie of its own — `svc_profile_fresh`, `HttpOnly`,
 * `SameSite=Strict`, path `/profile/keys`, 5 minutes, `Secure` on https — which the next GET
 * of the keys page reads and deletes: the secret is shown once, in the browser that made the
 * key, whichever instance answers the GET, and never travels in a URL. Other changes come back
 * as `?done=<what>` and a message. The revocation asks first, on a page of its own.
 * @module
 */
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Flash, WebC } from "../web/mod.ts";
import type { ProfileContext } from "./deps.ts";

/** The cookie that carries a new secret across the redirect. */
export const FRESH_COOKIE = "svc_profile_fresh";
const FRESH_PATH = "/profile/keys";
/** How long a new secret waits for its GET, s. */
const FRESH_SECONDS = 300;

/** A secret just made, on its way to the keys page. */
export interface FreshSecret {
  /** The new key. */
  readonly keyId: string;
  readonly secret: string;
  /** Set by a rotation: the old key and when its secret stops working (epoch ms). */
  readonly rotated?: { readonly from: string; readonly until: number };
}

const b64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));
const unb64 = (s: string) =>
  new TextDecoder().decode(Uint8Array.from(atob(s), (c) => c.charCodeAt(0)));

/**
 * Keep a new secret for the keys page's next GET (the answer is then a 303 to it).
 * @param c the POST's context
 * @param ctx the profile (its public URL: `Secure` on https)
 * @param f the key, its secret and, for a rotation, the old key's end
 */
export function keepFresh(c: WebC, ctx: ProfileContext, f: FreshSecret): void {
  setCookie(c, FRESH_COOKIE, b64(JSON.stringify(f)), {
    path: FRESH_PATH,
    httpOnly: true,
    sameSite: "Strict",
    secure: ctx.publicUrl().startsWith("https:"),
    maxAge: FRESH_SECONDS,
  });
}

/**
 * Take the secret kept by {@link keepFresh} (the cookie is deleted), if it names a key of
 * `integratorId` made in the last 5 minutes; a cookie of another shape is dropped.
 * @param c the GET's context
 * @param ctx store, clock
 * @param integratorId the signed-in integrator
 * @returns the fresh secret, or null
 */
export async function takeFresh(
  c: WebC,
  ctx: ProfileContext,
  integratorId: string,
): Promise<FreshSecret | null> {
  const raw = getCookie(c, FRESH_COOKIE);
  if (raw === undefined) return null;
  deleteCookie(c, FRESH_COOKIE, { path: FRESH_PATH });
  let f: FreshSecret;
  try {
    f = JSON.parse(unb64(raw));
    if (typeof f.keyId !== "string" || typeof f.secret !== "string") return null;
  } catch {
    return null;
  }
  const k = await ctx.store.getKey(f.keyId);
  const recent = k && ctx.clock.now() - k.createdAt < FRESH_SECONDS * 1000;
  return k && k.integratorId === integratorId && recent ? f : null;
}

/** `2026-11-29 14:00 UTC` */
export const utcMinute = (ms: number): string =>
  `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/**
 * The message over the keys page: for a secret just made, or for `?done=` after a change.
 * @param fresh the secret shown now, if any
 * @param done the query's `done`
 * @returns the message, or null
 */
export function keysFlash(fresh: FreshSecret | null, done: string | undefined): Flash | null {
  if (fresh?.rotated) {
    const until = utcMinute(fresh.rotated.until);
    return {
      kind: "ok",
      bg:
        `Новата тайна е показана само веднъж. Старата (${fresh.rotated.from}) работи до ${until}.`,
      en:
        `The new secret is shown only once. The old one (${fresh.rotated.from}) keeps working until ${until}.`,
    };
  }
  if (fresh) {
    return {
      kind: "ok",
      bg: "Ключът е създаден. Копирайте тайната сега: показва се само веднъж.",
      en: "The key was created. Copy the secret now: it is shown only once.",
    };
  }
  const words: Record<string, Flash> = {
    revoked: { kind: "ok", bg: "Ключът е отменен.", en: "The key was revoked." },
    origins: { kind: "ok", bg: "Адресите са записани.", en: "The origins were saved." },
  };
  return (done && words[done]) || null;
}
