/**
 * Hand marshalling of the PKCS#11 C structures for `Deno.dlopen`. The ABI differs by OS:
 * Linux and macOS use a 64-bit `CK_ULONG` with natural alignment; Windows uses a 32-bit
 * `CK_ULONG` (LLP64) and packs every Cryptoki struct to 1 byte (`#pragma pack(push, cryptoki, 1)`).
 * Layouts: CK_ATTRIBUTE / CK_MECHANISM `{ ulong; void*; ulong }`, CK_C_INITIALIZE_ARGS,
 * CK_TOKEN_INFO and CK_FUNCTION_LIST. Only the Linux x86_64 layout was exercised (SoftHSM2).
 * @module
 */

/** The Cryptoki ABI of one platform. */
export interface CkAbi {
  /** sizeof(CK_ULONG): 8 on Linux/macOS 64-bit, 4 on Windows. */
  readonly ulongSize: 4 | 8;
  /** true when structs are packed to 1 byte (Windows). */
  readonly packed: boolean;
}

/**
 * The ABI for an OS (64-bit processes only).
 *
 * @param os `Deno.build.os` value
 * @returns the ABI
 * @throws never
 */
export function abiFor(os: typeof Deno.build.os): CkAbi {
  return os === "windows" ? { ulongSize: 4, packed: true } : { ulongSize: 8, packed: false };
}

/**
 * FFI native type of CK_ULONG for `Deno.dlopen` definitions.
 *
 * @param abi the ABI
 * @returns "u32" or "u64"
 * @throws never
 */
export function ulongType(abi: CkAbi): "u32" | "u64" {
  return abi.ulongSize === 8 ? "u64" : "u32";
}

/**
 * The address of a buffer as a bigint (0n for none).
 *
 * @param buf a buffer, or null
 * @returns the pointer value
 * @throws never
 */
export function addressOf(buf: Uint8Array | null): bigint {
  if (!buf || buf.byteLength === 0) return 0n;
  return BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(buf as Uint8Array<ArrayBuffer>)));
}

/** A CK_ULONG array (output parameters, slot and handle lists). */
export class UlongArray {
  /** Backing bytes to pass to C. */
  readonly bytes: Uint8Array;
  readonly #view: DataView;
  readonly #abi: CkAbi;

  /**
   * @param abi the ABI
   * @param length number of CK_ULONGs (at least 1)
   */
  constructor(abi: CkAbi, length: number) {
    this.#abi = abi;
    this.bytes = new Uint8Array(Math.max(1, length) * abi.ulongSize);
    this.#view = new DataView(this.bytes.buffer);
  }

  /**
   * @param i index
   * @returns the value at `i`
   */
  get(i: number): bigint {
    return this.#abi.ulongSize === 8
      ? this.#view.getBigUint64(i * 8, true)
      : BigInt(this.#view.getUint32(i * 4, true));
  }

  /**
   * @param i index
   * @param v value
   */
  set(i: number, v: bigint | number): void {
    if (this.#abi.ulongSize === 8) this.#view.setBigUint64(i * 8, BigInt(v), true);
    else this.#view.setUint32(i * 4, Number(v), true);
  }
}

/** All-ones CK_ULONG: CK_UNAVAILABLE_INFORMATION (length of an unreadable attribute). */
export function unavailable(abi: CkAbi): bigint {
  return abi.ulongSize === 8 ? 0xffffffffffffffffn : 0xffffffffn;
}

/** Field offsets of the `{ ulong type; void* p; ulong len }` structs. */
function tripleLayout(abi: CkAbi): { ptr: number; len: number; size: number } {
  if (abi.packed) {
    return { ptr: abi.ulongSize, len: abi.ulongSize + 8, size: abi.ulongSize * 2 + 8 };
  }
  return { ptr: 8, len: 16, size: 24 };
}

/** One entry of a CK_ATTRIBUTE template. */
export interface AttributeSlot {
  /** CKA_* type. */
  readonly type: number;
  /** Value buffer, or null to ask for the length. */
  readonly value: Uint8Array | null;
}

/**
 * Encodes a CK_ATTRIBUTE array. Keep `slots[i].value` alive until the C call returns.
 *
 * @param abi the ABI
 * @param slots attributes
 * @returns the struct array bytes
 * @throws never
 */
export function encodeTemplate(abi: CkAbi, slots: readonly AttributeSlot[]): Uint8Array {
  const l = tripleLayout(abi);
  const out = new Uint8Array(Math.max(1, slots.length) * l.size);
  const dv = new DataView(out.buffer);
  slots.forEach((s, i) => {
    const base = i * l.size;
    writeUlong(abi, dv, base, s.type);
    dv.setBigUint64(base + l.ptr, addressOf(s.value), true);
    writeUlong(abi, dv, base + l.len, s.value?.byteLength ?? 0);
  });
  return out;
}

/**
 * Reads the `ulValueLen` fields back from a CK_ATTRIBUTE array.
 *
 * @param abi the ABI
 * @param template bytes from {@link encodeTemplate}
 * @param count number of attributes
 * @returns lengths; `undefined` for CK_UNAVAILABLE_INFORMATION
 * @throws never
 */
export function templateLengths(
  abi: CkAbi,
  template: Uint8Array,
  count: number,
): (number | undefined)[] {
  const l = tripleLayout(abi);
  const dv = new DataView(template.buffer, template.byteOffset, template.byteLength);
  const out: (number | undefined)[] = [];
  for (let i = 0; i < count; i++) {
    const v = readUlong(abi, dv, i * l.size + l.len);
    out.push(v === unavailable(abi) ? undefined : Number(v));
  }
  return out;
}

/**
 * Encodes a CK_MECHANISM without parameters.
 *
 * @param abi the ABI
 * @param mechanism CKM_* value
 * @returns struct bytes
 * @throws never
 */
export function encodeMechanism(abi: CkAbi, mechanism: number): Uint8Array {
  return encodeTemplate(abi, [{ type: mechanism, value: null }]);
}

/**
 * Encodes CK_C_INITIALIZE_ARGS with no mutex callbacks and `flags`.
 *
 * @param abi the ABI
 * @param flags e.g. CKF_OS_LOCKING_OK
 * @returns struct bytes (4 function pointers, flags, pReserved)
 * @throws never
 */
export function encodeInitArgs(abi: CkAbi, flags: number): Uint8Array {
  const out = new Uint8Array(48);
  writeUlong(abi, new DataView(out.buffer), 32, flags);
  return out;
}

/** The CK_TOKEN_INFO fields the agent reads. */
export interface TokenInfo {
  readonly label: string;
  readonly manufacturerId: string;
  readonly model: string;
  readonly serialNumber: string;
  /** CKF_* token flags. */
  readonly flags: number;
}

/** Size to allocate for CK_TOKEN_INFO (208 bytes on Linux x86_64, 160 on Windows). */
export const TOKEN_INFO_SIZE = 256;

/**
 * Decodes the leading fields of CK_TOKEN_INFO.
 *
 * @param abi the ABI
 * @param buf struct bytes filled by C_GetTokenInfo
 * @returns label, manufacturer, model, serial (blank-trimmed UTF-8) and flags
 * @throws never
 */
export function decodeTokenInfo(abi: CkAbi, buf: Uint8Array): TokenInfo {
  const text = (from: number, len: number) =>
    new TextDecoder().decode(buf.subarray(from, from + len)).replace(/[\s\0]+$/, "");
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  return {
    label: text(0, 32),
    manufacturerId: text(32, 32),
    model: text(64, 16),
    serialNumber: text(80, 16),
    flags: Number(readUlong(abi, dv, 96)),
  };
}

/**
 * Byte offset of function `index` inside CK_FUNCTION_LIST (after the 2-byte CK_VERSION).
 *
 * @param abi the ABI
 * @param index function index (see FN_INDEX)
 * @returns offset in bytes
 * @throws never
 */
export function functionListOffset(abi: CkAbi, index: number): number {
  return (abi.packed ? 2 : 8) + index * 8;
}

/**
 * A CK_ULONG encoded as attribute value bytes (e.g. for CKA_CLASS).
 *
 * @param abi the ABI
 * @param v the value
 * @returns little-endian bytes of sizeof(CK_ULONG)
 * @throws never
 */
export function ulongBytes(abi: CkAbi, v: number): Uint8Array {
  const a = new UlongArray(abi, 1);
  a.set(0, v);
  return a.bytes;
}

/**
 * Decodes a CK_ULONG attribute value.
 *
 * @param bytes attribute value
 * @returns the number (little-endian, 4 or 8 bytes)
 * @throws never
 */
export function ulongFromBytes(bytes: Uint8Array): number {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return bytes.length >= 8 ? Number(dv.getBigUint64(0, true)) : dv.getUint32(0, true);
}

function writeUlong(abi: CkAbi, dv: DataView, off: number, v: number | bigint): void {
  if (abi.ulongSize === 8) dv.setBigUint64(off, BigInt(v), true);
  else dv.setUint32(off, Number(v), true);
}

function readUlong(abi: CkAbi, dv: DataView, off: number): bigint {
  return abi.ulongSize === 8 ? dv.getBigUint64(off, true) : BigInt(dv.getUint32(off, true));
}
