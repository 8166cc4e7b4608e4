/**
 * Downloading a package (docs/install.md): streamed to `<file>.partial` while its SHA-256 is
 * computed, refused when it is shorter or longer than the signed manifest says, when its hash
 * differs, or when the disk fills up; renamed to its final name only once verified. Whatever
 * fails, the partial file is removed.
 * @module
 */
import { errorMessage } from "../../error_message.ts";
import { createHash } from "node:crypto";
import { AppError } from "../../contract/mod.ts";
import { diskFullError, isDiskFull } from "./disk.ts";
import { allowedPackageUrl, type UpdatePackage } from "./manifest.ts";

/** Options of {@link downloadPackage}. */
export interface DownloadOptions {
  readonly fetch?: typeof fetch | undefined;
  /** Abort when no byte arrives for this long, ms (default 60 000). */
  readonly idleTimeoutMs?: number;
  /** Called with the bytes received so far (progress). */
  readonly onProgress?: (received: number, size: number) => void;
}

/** A watchdog that aborts `signal` when {@link IdleWatch.touch} was not called for `idleMs`. */
interface IdleWatch {
  readonly signal: AbortSignal;
  readonly idleMs: number;
  touch(): void;
  stop(): void;
}

function idleWatch(idleMs: number): IdleWatch {
  const abort = new AbortController();
  let timer = setTimeout(() => abort.abort(), idleMs);
  return {
    signal: abort.signal,
    idleMs,
    touch() {
      clearTimeout(timer);
      timer = setTimeout(() => abort.abort(), idleMs);
    },
    stop: () => clearTimeout(timer),
  };
}

/** A file step that may fill the disk: UPDATE_DISK_FULL when it does. */
async function onDisk<T>(dest: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    throw isDiskFull(e) ? diskFullError(parentOf(dest), "download", e) : e;
  }
}

/**
 * The package's answer with its body, refused when its status is not 2xx or it announces more
 * bytes than the manifest signs.
 * @throws AppError UPDATE_DOWNLOAD_FAILED, UPDATE_SIZE_MISMATCH (and {@link follow}'s)
 */
async function packageResponse(
  pkg: UpdatePackage,
  fetchFn: typeof fetch,
  signal: AbortSignal,
): Promise<Response & { body: ReadableStream<Uint8Array> }> {
  const res = await follow(pkg, fetchFn, signal);
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw new AppError(
      "UPDATE_DOWNLOAD_FAILED",
      `Cannot download ${pkg.url}: HTTP ${res.status}`,
      { url: pkg.url, status: res.status },
    );
  }
  const announced = res.headers.get("content-length");
  if (announced !== null && Number(announced) > pkg.size) {
    await res.body.cancel();
    throw sizeError(pkg, Number(announced), "the server announces");
  }
  return res as Response & { body: ReadableStream<Uint8Array> };
}

/**
 * Stream the body into `file` while hashing it; exactly the signed size or it fails.
 * @returns the SHA-256 of what was written (hex)
 * @throws AppError UPDATE_DOWNLOAD_FAILED (stalled), UPDATE_SIZE_MISMATCH, UPDATE_DISK_FULL
 */
async function writeBody(
  body: ReadableStream<Uint8Array>,
  file: Deno.FsFile,
  pkg: UpdatePackage,
  dest: string,
  watch: IdleWatch,
  onProgress: DownloadOptions["onProgress"],
): Promise<string> {
  const hash = createHash("sha256");
  const reader = body.getReader();
  let received = 0;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        if (watch.signal.aborted) {
          throw new AppError(
            "UPDATE_DOWNLOAD_FAILED",
            `The download of ${pkg.url} stalled: no data for ${watch.idleMs / 1000} s`,
            { url: pkg.url, received },
            e,
          );
        }
        // The connection ended before the body did: a truncated download.
        throw sizeError(pkg, received, "the connection ended after", e);
      }
      if (chunk.done) break;
      watch.touch();
      const bytes = chunk.value;
      received += bytes.length;
      if (received > pkg.size) throw sizeError(pkg, received, "the server sent at least");
      hash.update(bytes);
      await onDisk(dest, async () => {
        for (let n = 0; n < bytes.length;) n += await file.write(bytes.subarray(n));
      });
      onProgress?.(received, pkg.size);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  if (received !== pkg.size) throw sizeError(pkg, received, "the server sent");
  return hash.digest("hex");
}

/**
 * Download and verify a package.
 * @param pkg the manifest's package (url, size in bytes, sha256)
 * @param dest the verified archive's path (`dest.partial` while it downloads)
 * @param o fetch, idle timeout, progress
 * @returns when `dest` holds exactly the signed bytes
 * @throws AppError UPDATE_MANIFEST_INVALID (a redirect to a non-https URL),
 *   UPDATE_DOWNLOAD_FAILED (network, HTTP status), UPDATE_SIZE_MISMATCH (truncated or
 *   oversized: `details.expected`, `details.received` bytes), UPDATE_HASH_MISMATCH,
 *   UPDATE_DISK_FULL
 */
export async function downloadPackage(
  pkg: UpdatePackage,
  dest: string,
  o: DownloadOptions = {},
): Promise<void> {
  const partial = `${dest}.partial`;
  const watch = idleWatch(o.idleTimeoutMs ?? 60_000);
  let file: Deno.FsFile | null = null;
  try {
    const res = await packageResponse(pkg, o.fetch ?? fetch, watch.signal);
    const opened = await onDisk(
      dest,
      () => Deno.open(partial, { write: true, create: true, truncate: true, mode: 0o600 }),
    );
    file = opened;
    const sha256 = await writeBody(res.body, opened, pkg, dest, watch, o.onProgress);
    if (sha256 !== pkg.sha256) {
      throw new AppError(
        "UPDATE_HASH_MISMATCH",
        `The download of ${pkg.target} has SHA-256 ${sha256}, the signed manifest says ${pkg.sha256}`,
        { expected: pkg.sha256, received: sha256 },
      );
    }
    await onDisk(dest, () => opened.sync());
    opened.close();
    file = null;
    await Deno.rename(partial, dest);
  } catch (e) {
    file?.close();
    await Deno.remove(partial).catch(() => {});
    throw e;
  } finally {
    watch.stop();
  }
}

/** Most redirects followed (GitHub's release downloads take one). */
const MAX_REDIRECTS = 5;

/**
 * GET the package, following redirects by hand so that no request goes to a URL the policy
 * refuses (https, or http on loopback).
 */
async function follow(pkg: UpdatePackage, fetchFn: typeof fetch, signal: AbortSignal) {
  let url = pkg.url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let res: Response;
    try {
      res = await fetchFn(url, { signal, redirect: "manual" });
    } catch (e) {
      throw new AppError(
        "UPDATE_DOWNLOAD_FAILED",
        `Cannot download ${url}: ${signal.aborted ? "no answer" : errorMessage(e)}`,
        { url },
        e,
      );
    }
    const location = res.headers.get("location");
    if (res.status < 300 || res.status > 399 || location === null) return res;
    await res.body?.cancel();
    url = new URL(location, url).href;
    if (!allowedPackageUrl(url)) {
      throw new AppError(
        "UPDATE_MANIFEST_INVALID",
        `The package download was redirected to a URL that is not https: ${url}`,
        { url },
      );
    }
  }
  throw new AppError("UPDATE_DOWNLOAD_FAILED", `Too many redirects downloading ${pkg.url}`, {
    url: pkg.url,
  });
}

const parentOf = (p: string) => p.replace(/[\\/][^\\/]*$/, "") || p;

function sizeError(pkg: UpdatePackage, received: number, said: string, cause?: unknown) {
  return new AppError(
    "UPDATE_SIZE_MISMATCH",
    `The download of ${pkg.target} is incomplete or too long: ${said} ${received} bytes, ` +
      `the signed manifest says ${pkg.size}`,
    { expected: pkg.size, received },
    cause,
  );
}
