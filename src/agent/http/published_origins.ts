/**
 * The page origins the token service publishes for agents (`GET {auth_url}/api/v1/allowed-origins`;
 * docs/token-service.md § Page origins), fetched with the ETag of the copy held: an unchanged
 * list comes back as 304 and the copy is kept. What is kept is bounded and checked here as well:
 * at most {@link MAX_PUBLISHED_ORIGINS} entries, each an https origin or http on loopback.
 * @module
 */

/** Most origins an agent takes from the published list (the service publishes at most as many). */
export const MAX_PUBLISHED_ORIGINS = 5000;

/** https, or http on localhost / 127.0.0.1 / [::1] (any port), as a browser serialises it. */
function acceptable(o: unknown): o is string {
  if (typeof o !== "string" || o.length > 2048) return false;
  const u = URL.parse(o);
  if (!u || u.origin !== o) return false;
  if (u.protocol === "https:") return true;
  return u.protocol === "http:" &&
    (u.hostname === "localhost" || u.hostname === "127.0.0.1" || u.hostname === "[::1]");
}

/**
 * A fetcher of the published list that sends `If-None-Match` with the ETag of its last copy and
 * keeps that copy on 304.
 * @param tokenServiceUrl the token service's URL
 * @param fetchFn the fetch to use (default the global one)
 * @returns a function answering the list now (throws when the service cannot be reached; an
 *   error status gives an empty list)
 */
export function publishedOrigins(
  tokenServiceUrl: string,
  fetchFn: typeof fetch = fetch,
): () => Promise<string[]> {
  let etag: string | null = null;
  let held: string[] = [];
  return async () => {
    const res = await fetchFn(new URL("/api/v1/allowed-origins", tokenServiceUrl), {
      signal: AbortSignal.timeout(3000),
      headers: etag ? { "if-none-match": etag } : {},
    });
    if (res.status === 304) {
      await res.body?.cancel();
      return held;
    }
    if (!res.ok) {
      await res.body?.cancel();
      return [];
    }
    const j = await res.json();
    held = Array.isArray(j.origins)
      ? j.origins.slice(0, MAX_PUBLISHED_ORIGINS).filter(acceptable)
      : [];
    etag = res.headers.get("etag");
    return held;
  };
}
