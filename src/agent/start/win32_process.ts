/**
 * Whether a Windows process exists, through the Windows API (`kernel32.dll` over `Deno.dlopen`):
 * `OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION)` then `GetExitCodeProcess`, whose answer is
 * `STILL_ACTIVE` (259) while the process runs. `ERROR_INVALID_PARAMETER` from `OpenProcess`
 * means no process has that id; `ERROR_ACCESS_DENIED` means it exists under another user. No
 * other program's output is read (`tasklist` is localized, and a stub under Wine).
 * @module
 */
import { fn } from "../../ffi.ts";
import { UserError } from "../../user_error.ts";

const PROCESS_QUERY_LIMITED_INFORMATION = 0x1000;
const STILL_ACTIVE = 259;
const ERROR_ACCESS_DENIED = 5;
const ERROR_INVALID_PARAMETER = 87;

const SYMBOLS = {
  OpenProcess: fn(["u32", "i32", "u32"], "pointer"),
  GetExitCodeProcess: fn(["pointer", "buffer"], "i32"),
  CloseHandle: fn(["pointer"], "i32"),
  GetLastError: fn([], "u32"),
};

let kernel32: Deno.DynamicLibrary<typeof SYMBOLS> | null = null;

/** What the Windows API answered about a process id. */
export type Win32ProcessState = "running" | "exited" | "none" | "denied";

/**
 * Ask Windows about a process id (Windows only: throws elsewhere).
 * @param pid the process id
 * @returns "running", "exited" (a handle still names it), "none" (no such process) or
 *   "denied" (it exists, under another user)
 * @throws Error when kernel32.dll cannot be loaded (not Windows, no --allow-ffi) or Windows
 *   answers another error (its code in the message)
 */
export function win32ProcessState(pid: number): Win32ProcessState {
  kernel32 ??= Deno.dlopen("kernel32.dll", SYMBOLS);
  const k = kernel32.symbols;
  const h = k.OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
  if (h === null) {
    const err = k.GetLastError();
    if (err === ERROR_INVALID_PARAMETER) return "none";
    if (err === ERROR_ACCESS_DENIED) return "denied";
    throw new UserError(`OpenProcess(${pid}) failed with Windows error ${err}`);
  }
  try {
    const code = new Uint32Array(1);
    if (!k.GetExitCodeProcess(h, code)) {
      throw new UserError(
        `GetExitCodeProcess(${pid}) failed with Windows error ${k.GetLastError()}`,
      );
    }
    return code[0] === STILL_ACTIVE ? "running" : "exited";
  } finally {
    k.CloseHandle(h);
  }
}
