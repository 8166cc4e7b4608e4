/**
 * Native file and folder dialogs behind one interface (implementation in `pickers_native.ts`).
 * @module
 */

/** Result of a picker: the full path, or cancelled. */
export interface PickResult {
  readonly path: string | null;
  readonly cancelled: boolean;
}

/** Opens native dialogs; one at a time; 600-second time-out. */
export interface Pickers {
  /**
   * Open a dialog.
   * @param kind "file" or "folder"
   * @returns the chosen path or `{ path: null, cancelled: true }`
   * @throws AppError PICKER_UNAVAILABLE | PICKER_BUSY | PICKER_TIMEOUT
   */
  pick(kind: "file" | "folder"): Promise<PickResult>;
}
