/**
 * The browser tests' look at their screenshots: a PNG decoded with pngjs (any bit depth, colour
 * type and interlacing, CRCs checked) into RGBA pixels, and two measures over a box of them, the
 * share of pixels off the dominant colour ("ink") and the count of pixels of a given colour.
 */
import { PNG } from 'pngjs';

export interface Png {
  readonly width: number;
  readonly height: number;
  /** Bytes per pixel: always 4 (RGBA, as pngjs decodes). */
  readonly channels: 4;
  /** Pixels, row after row. */
  readonly data: Uint8Array;
}

/** A rectangle in pixels; clipped to the image where used. */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export function decodePng(file: Uint8Array): Png {
  let img: PNG;
  try {
    img = PNG.sync.read(Buffer.from(file.buffer, file.byteOffset, file.byteLength));
  } catch (e) {
    throw new Error(`not a PNG: ${(e as Error).message}`);
  }
  return { width: img.width, height: img.height, channels: 4, data: img.data };
}

/** [r, g, b] of one pixel. */
export function pixel(img: Png, x: number, y: number): [number, number, number] {
  const i = (y * img.width + x) * img.channels;
  return [img.data[i], img.data[i + 1], img.data[i + 2]];
}

function clip(img: Png, box?: Box): { x0: number; y0: number; x1: number; y1: number } {
  const b = box ?? { x: 0, y: 0, width: img.width, height: img.height };
  return {
    x0: Math.max(0, Math.floor(b.x)),
    y0: Math.max(0, Math.floor(b.y)),
    x1: Math.min(img.width, Math.ceil(b.x + b.width)),
    y1: Math.min(img.height, Math.ceil(b.y + b.height)),
  };
}

/**
 * Share of the pixels in `box` (the whole image by default) whose colour differs from the most
 * common one there: 0 for a blank (single-colour) area, about 0.1 for a page of text and tables.
 */
export function inkShare(img: Png, box?: Box): number {
  const { x0, y0, x1, y1 } = clip(img, box);
  const total = Math.max(0, x1 - x0) * Math.max(0, y1 - y0);
  if (total === 0) return 0;
  const counts = new Map<number, number>();
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      const [r, g, b] = pixel(img, x, y);
      const key = (r << 16) | (g << 8) | b;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  let top = 0;
  for (const n of counts.values()) top = Math.max(top, n);
  return (total - top) / total;
}

/** Number of pixels in `box` within `tolerance` (per channel) of `rgb`. */
export function countColour(
  img: Png,
  rgb: readonly [number, number, number],
  box?: Box,
  tolerance = 8,
): number {
  const { x0, y0, x1, y1 } = clip(img, box);
  let n = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      const p = pixel(img, x, y);
      if (p.every((v, i) => Math.abs(v - rgb[i]) <= tolerance)) n++;
    }
  return n;
}

/** "rgb(36, 86, 199)" (a computed CSS colour) as [36, 86, 199]. */
export function cssRgb(text: string): [number, number, number] {
  const m = /^rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(text.trim());
  if (!m) throw new Error(`not an rgb() colour: ${text}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}
