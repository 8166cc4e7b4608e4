/**
 * The Windows icons of the package (docs/install.md § Windows: the installed program), drawn
 * here so that the build needs no image files: a round badge in the state's colour with a white
 * sheet of paper on it. One `.ico` per tray state (running, a filing in progress, needs
 * attention, starting); the first is also the program's icon (the launcher's, the Start-menu
 * entry's and the one "Apps" shows). Each `.ico` holds a 16×16 and a 32×32 image, 32-bit BGRA
 * (ICO format: ICONDIR, ICONDIRENTRY per image, BITMAPINFOHEADER with double height, the pixels
 * bottom-up, then a 1-bit AND mask).
 * @module
 */

/** The tray states and their colours (RGB). */
export const ICON_STATES = {
  running: [0x1f, 0x8a, 0x4c],
  filing: [0x1d, 0x5f, 0xc2],
  attention: [0xd9, 0x6a, 0x00],
  starting: [0x80, 0x80, 0x80],
} as const;

/** One of {@link ICON_STATES}. */
export type IconState = keyof typeof ICON_STATES;

function image(size: number, rgb: readonly number[]): Uint8Array {
  const header = 40;
  const pixels = size * size * 4;
  const maskRow = Math.ceil(size / 32) * 4;
  const out = new Uint8Array(header + pixels + maskRow * size);
  const v = new DataView(out.buffer);
  v.setUint32(0, header, true);
  v.setInt32(4, size, true);
  v.setInt32(8, size * 2, true); // XOR image and AND mask
  v.setUint16(12, 1, true);
  v.setUint16(14, 32, true);
  v.setUint32(20, pixels + maskRow * size, true);
  const c = (size - 1) / 2;
  const r = size / 2;
  // The sheet: a white rectangle in the middle, with three coloured lines of "text".
  const sx0 = Math.round(size * 0.3), sx1 = Math.round(size * 0.7);
  const sy0 = Math.round(size * 0.22), sy1 = Math.round(size * 0.78);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const d = Math.hypot(x - c, y - c);
      // Rows are stored bottom-up; y counts from the top.
      const at = header + ((size - 1 - y) * size + x) * 4;
      if (d > r) continue; // transparent (alpha 0)
      let col = rgb;
      const inSheet = x >= sx0 && x < sx1 && y >= sy0 && y < sy1;
      if (inSheet) {
        const line = (y - sy0) % Math.max(3, Math.round(size / 8)) === 2 && x > sx0 + 1 &&
          x < sx1 - 2 && y < sy1 - 2;
        col = line ? rgb : [0xff, 0xff, 0xff];
      }
      out[at] = col[2]!;
      out[at + 1] = col[1]!;
      out[at + 2] = col[0]!;
      out[at + 3] = d > r - 1 ? 0x80 : 0xff; // a softer rim
    }
  }
  // AND mask: all zero (the alpha channel decides), already zero.
  return out;
}

/**
 * The `.ico` of a state.
 * @param state the tray state
 * @returns the file's bytes (16×16 and 32×32)
 * @throws never
 */
export function iconFile(state: IconState): Uint8Array {
  const rgb = ICON_STATES[state];
  const images = [16, 32].map((s) => ({ size: s, bytes: image(s, rgb) }));
  const dir = 6 + 16 * images.length;
  const total = dir + images.reduce((n, i) => n + i.bytes.length, 0);
  const out = new Uint8Array(total);
  const v = new DataView(out.buffer);
  v.setUint16(2, 1, true); // type: icon
  v.setUint16(4, images.length, true);
  let offset = dir;
  images.forEach((img, i) => {
    const e = 6 + 16 * i;
    out[e] = img.size;
    out[e + 1] = img.size;
    v.setUint16(e + 4, 1, true); // planes
    v.setUint16(e + 6, 32, true); // bits per pixel
    v.setUint32(e + 8, img.bytes.length, true);
    v.setUint32(e + 12, offset, true);
    out.set(img.bytes, offset);
    offset += img.bytes.length;
  });
  return out;
}
