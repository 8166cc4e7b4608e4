/**
 * The PKCS#11 C API over `Deno.dlopen`: loads a module, takes its CK_FUNCTION_LIST from
 * `C_GetFunctionList` (so modules that export only that symbol work too) and exposes the
 * C_* functions the agent needs as {@link Pkcs11Api}, marshalling structs by hand (abi.ts).
 * C_Login and C_Sign run non-blocking (a smart card can take seconds). Needs `--allow-ffi`.
 * @module
 */

import { errorMessage } from "../../error_message.ts";
import { AppError } from "../../contract/mod.ts";
import {
  type AttributeSlot,
  type CkAbi,
  decodeTokenInfo,
  encodeInitArgs,
  encodeMechanism,
  encodeTemplate,
  functionListOffset,
  templateLengths,
  TOKEN_INFO_SIZE,
  type TokenInfo,
  UlongArray,
  ulongType,
} from "./abi.ts";
import { CKF, CKR, FN_INDEX } from "./constants.ts";
import { classifyLoaderError } from "./errors.ts";
import { nativeFormat, parseLibraryHeader, readLibraryHead } from "./library_header.ts";

/** The C_* functions of one loaded module; numbers are CK_RV, handles are bigint. */
export interface Pkcs11Api {
  C_Initialize(): number;
  C_Finalize(): number;
  C_GetSlotList(tokenPresent: boolean): { rv: number; slots: bigint[] };
  C_GetTokenInfo(slot: bigint): { rv: number; info?: TokenInfo };
  C_OpenSession(slot: bigint, flags: number): { rv: number; session: bigint };
  C_CloseSession(session: bigint): number;
  /** `pin` null means the protected authentication path (PIN pad). */
  C_Login(session: bigint, userType: number, pin: Uint8Array | null): Promise<number>;
  C_Logout(session: bigint): number;
  C_FindObjectsInit(session: bigint, template: readonly AttributeSlot[]): number;
  C_FindObjects(session: bigint, max: number): { rv: number; objects: bigint[] };
  C_FindObjectsFinal(session: bigint): number;
  /** Two-pass read; `undefined` for attributes that are absent or sensitive. */
  C_GetAttributeValue(
    session: bigint,
    object: bigint,
    types: readonly number[],
  ): { rv: number; values: (Uint8Array | undefined)[] };
  C_SignInit(session: bigint, mechanism: number, key: bigint): number;
  C_Sign(
    session: bigint,
    data: Uint8Array,
    maxLength: number,
  ): Promise<{ rv: number; signature: Uint8Array }>;
  /** Unloads the library (call after C_Finalize). */
  unload(): void;
}

function definitions(abi: CkAbi) {
  const U = ulongType(abi);
  return {
    C_Initialize: { parameters: ["buffer"], result: U },
    C_Finalize: { parameters: ["pointer"], result: U },
    C_GetSlotList: { parameters: ["u8", "buffer", "buffer"], result: U },
    C_GetTokenInfo: { parameters: [U, "buffer"], result: U },
    C_OpenSession: { parameters: [U, U, "pointer", "pointer", "buffer"], result: U },
    C_CloseSession: { parameters: [U], result: U },
    C_Login: { parameters: [U, U, "buffer", U], result: U, nonblocking: true },
    C_Logout: { parameters: [U], result: U },
    C_FindObjectsInit: { parameters: [U, "buffer", U], result: U },
    C_FindObjects: { parameters: [U, "buffer", U, "buffer"], result: U },
    C_FindObjectsFinal: { parameters: [U], result: U },
    C_GetAttributeValue: { parameters: [U, U, "buffer", U], result: U },
    C_SignInit: { parameters: [U, "buffer", U], result: U },
    C_Sign: { parameters: [U, "buffer", U, "buffer", "buffer"], result: U, nonblocking: true },
  } as const;
}

// deno-lint-ignore no-explicit-any
type AnyFn = (...args: any[]) => any;

/** Options of {@link loadPkcs11Module}. */
export interface LoadOptions {
  /** OS whose ABI and binary format apply (default `Deno.build.os`). */
  readonly os?: typeof Deno.build.os;
  /** Host CPU (default `Deno.build.arch`). */
  readonly arch?: string;
}

async function checkFile(path: string, os: typeof Deno.build.os, arch: string): Promise<void> {
  let head: Uint8Array;
  try {
    head = await readLibraryHead(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new AppError("PKCS11_MODULE_MISSING", `PKCS#11 module "${path}" is not installed`, {
        modulePath: path,
      }, e);
    }
    throw new AppError("KEYSTORE_UNAVAILABLE", `PKCS#11 module "${path}" cannot be read`, {
      modulePath: path,
    }, e);
  }
  const h = parseLibraryHeader(head);
  if (h.format === "unknown") {
    throw new AppError("KEYSTORE_UNAVAILABLE", `PKCS#11 module "${path}" is not a shared library`, {
      modulePath: path,
    });
  }
  const wrongBits = h.bits === 32;
  if (h.format === nativeFormat(os) && (wrongBits || !h.archs.includes(arch))) {
    throw new AppError(
      "PKCS11_MODULE_WRONG_ARCH",
      `PKCS#11 module "${path}" is built for ${h.archs.join("/")}${
        wrongBits ? " (32-bit)" : ""
      }, this agent runs on ${arch}`,
      { modulePath: path, moduleArchs: h.archs, hostArch: arch },
    );
  }
  if (h.format !== nativeFormat(os)) {
    throw new AppError(
      "KEYSTORE_UNAVAILABLE",
      `PKCS#11 module "${path}" is a ${h.format.toUpperCase()} library, not one for ${os}`,
      { modulePath: path },
    );
  }
}

/**
 * Loads a PKCS#11 module and returns its API. Checks the file first (missing, not a library,
 * another CPU), then `dlopen`s it and reads CK_FUNCTION_LIST.
 *
 * @param path absolute path of the module (.so / .dylib / .dll)
 * @param options OS/arch overrides (tests)
 * @returns the bound API (C_Initialize not yet called)
 * @throws AppError PKCS11_MODULE_MISSING, PKCS11_MODULE_WRONG_ARCH, KEYSTORE_UNAVAILABLE
 */
export async function loadPkcs11Module(
  path: string,
  options: LoadOptions = {},
): Promise<Pkcs11Api> {
  const os = options.os ?? Deno.build.os;
  await checkFile(path, os, options.arch ?? Deno.build.arch);
  const abi: CkAbi = { ulongSize: os === "windows" ? 4 : 8, packed: os === "windows" };
  let lib: Deno.DynamicLibrary<{ C_GetFunctionList: { parameters: ["buffer"]; result: "u64" } }>;
  try {
    lib = Deno.dlopen(path, { C_GetFunctionList: { parameters: ["buffer"], result: "u64" } });
  } catch (e) {
    throw classifyLoaderError(path, errorMessage(e), e);
  }
  const listPtr = new BigUint64Array(1);
  const rv = Number(lib.symbols.C_GetFunctionList(listPtr));
  const list = Deno.UnsafePointer.create(listPtr[0] ?? 0n); // 0n: null, refused below
  if (rv !== CKR.OK || !list) {
    lib.close();
    throw new AppError("KEYSTORE_UNAVAILABLE", `C_GetFunctionList of "${path}" failed`, {
      modulePath: path,
      rv,
    });
  }
  const view = new Deno.UnsafePointerView(list);
  const defs = definitions(abi);
  const fns = {} as Record<keyof typeof defs, AnyFn>;
  for (const name of Object.keys(defs) as (keyof typeof defs)[]) {
    const p = view.getPointer(functionListOffset(abi, FN_INDEX[name]));
    if (!p) {
      lib.close();
      throw new AppError("KEYSTORE_UNAVAILABLE", `PKCS#11 module "${path}" lacks ${name}`, {
        modulePath: path,
      });
    }
    const fp = new Deno.UnsafeFnPointer(
      p as Deno.PointerObject<Deno.ForeignFunction>,
      defs[name] as Deno.ForeignFunction,
    );
    fns[name] = fp.call.bind(fp) as AnyFn;
  }
  const num = (v: number | bigint) => Number(v);
  return {
    C_Initialize: () => num(fns.C_Initialize(encodeInitArgs(abi, CKF.OS_LOCKING_OK))),
    C_Finalize: () => num(fns.C_Finalize(null)),
    C_GetSlotList(tokenPresent) {
      const count = new UlongArray(abi, 1);
      let r = num(fns.C_GetSlotList(tokenPresent ? 1 : 0, null, count.bytes));
      if (r !== CKR.OK) return { rv: r, slots: [] };
      const n = Number(count.get(0));
      const slots = new UlongArray(abi, n);
      r = num(fns.C_GetSlotList(tokenPresent ? 1 : 0, slots.bytes, count.bytes));
      const out: bigint[] = [];
      for (let i = 0; i < Math.min(n, Number(count.get(0))); i++) out.push(slots.get(i));
      return { rv: r, slots: r === CKR.OK ? out : [] };
    },
    C_GetTokenInfo(slot) {
      const buf = new Uint8Array(TOKEN_INFO_SIZE);
      const r = num(fns.C_GetTokenInfo(slot, buf));
      return r === CKR.OK ? { rv: r, info: decodeTokenInfo(abi, buf) } : { rv: r };
    },
    C_OpenSession(slot, flags) {
      const h = new UlongArray(abi, 1);
      const r = num(fns.C_OpenSession(slot, flags, null, null, h.bytes));
      return { rv: r, session: h.get(0) };
    },
    C_CloseSession: (s) => num(fns.C_CloseSession(s)),
    async C_Login(s, userType, pin) {
      return num(await fns.C_Login(s, userType, pin, pin?.byteLength ?? 0));
    },
    C_Logout: (s) => num(fns.C_Logout(s)),
    C_FindObjectsInit(s, template) {
      return num(fns.C_FindObjectsInit(s, encodeTemplate(abi, template), template.length));
    },
    C_FindObjects(s, max) {
      const handles = new UlongArray(abi, max);
      const count = new UlongArray(abi, 1);
      const r = num(fns.C_FindObjects(s, handles.bytes, max, count.bytes));
      const objects: bigint[] = [];
      for (let i = 0; r === CKR.OK && i < Number(count.get(0)); i++) objects.push(handles.get(i));
      return { rv: r, objects };
    },
    C_FindObjectsFinal: (s) => num(fns.C_FindObjectsFinal(s)),
    C_GetAttributeValue(s, o, types) {
      const probe = encodeTemplate(abi, types.map((type) => ({ type, value: null })));
      let r = num(fns.C_GetAttributeValue(s, o, probe, types.length));
      const okish = (x: number) =>
        x === CKR.OK || x === CKR.ATTRIBUTE_SENSITIVE || x === CKR.ATTRIBUTE_TYPE_INVALID;
      if (!okish(r)) return { rv: r, values: types.map(() => undefined) };
      const lengths = templateLengths(abi, probe, types.length);
      const slots = types.map((type, i) => ({
        type,
        value: lengths[i] === undefined ? null : new Uint8Array(Math.max(1, lengths[i])),
      }));
      const tpl = encodeTemplate(abi, slots);
      r = num(fns.C_GetAttributeValue(s, o, tpl, types.length));
      const got = templateLengths(abi, tpl, types.length);
      return {
        rv: okish(r) ? CKR.OK : r,
        values: slots.map((sl, i) =>
          sl.value && got[i] !== undefined ? sl.value.subarray(0, got[i]) : undefined
        ),
      };
    },
    C_SignInit: (s, m, k) => num(fns.C_SignInit(s, encodeMechanism(abi, m), k)),
    async C_Sign(s, data, maxLength) {
      const sig = new Uint8Array(maxLength);
      const len = new UlongArray(abi, 1);
      len.set(0, maxLength);
      const r = num(await fns.C_Sign(s, data, data.byteLength, sig, len.bytes));
      return { rv: r, signature: sig.subarray(0, Number(len.get(0))) };
    },
    unload: () => lib.close(),
  };
}
