/**
 * Opens a URL in the system's default browser: `xdg-open` (Linux), `open` (macOS),
 * `rundll32 url.dll,FileProtocolHandler` (Windows). Failures are reported to the log, never
 * thrown: the agent also logs the URL so the user can open it by hand.
 * @module
 */
import type { Logger } from "../../log.ts";

/**
 * The command line that opens a URL on an OS.
 * @param os Deno.build.os
 * @param url http(s) URL
 * @returns program and arguments
 */
export function browserCommand(os: string, url: string): [string, string[]] {
  if (os === "darwin") return ["open", [url]];
  if (os === "windows") return ["rundll32", ["url.dll,FileProtocolHandler", url]];
  return ["xdg-open", [url]];
}

/**
 * A browser opener for the agent.
 * @param log logger
 * @param os Deno.build.os
 * @returns `(url) => void`
 */
export function systemBrowserOpener(
  log: Logger,
  os: string = Deno.build.os,
): (url: string) => void {
  return (url) => {
    if (!/^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?\//.test(url)) return;
    const [cmd, args] = browserCommand(os, url);
    try {
      const child = new Deno.Command(cmd, { args, stdin: "null", stdout: "null", stderr: "null" })
        .spawn();
      child.status.then((s) => {
        if (!s.success) {
          log("warn", "could not open the browser; open the URL by hand", { url, cmd });
        }
      }).catch(() => {});
    } catch {
      log("warn", "could not open the browser; open the URL by hand", { url, cmd });
    }
  };
}
