/**
 * Just enough PNG for the browser tests to look at their screenshots: 8-bit RGB or RGBA,
 * non-interlaced (what Chromium writes), IDAT inflated with node:zlib and the five scanline
 * filters undone. Chunk CRCs are not checked.
 */
import { inflateSync } from 'node:zlib';

export interface Png {
  readonly width: number;
  readonly height: number;
  /** Bytes per pixel: 3 (RGB) or 4 (RGBA). */
  readonly channels: 3 | 4;
  /** Unfiltered pixels, row after row. */
  readonly data: Uint8Array;
}

/** A rectangle in pixels; clipped to the image where used. */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function decodePng(file: Uint8Array): Png {
  const buf = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  if (buf.length < 8 || SIGNATURE.some((b, i) => buf[i] !== b)) throw new Error('not a PNG');
  let width = 0;
  let height = 0;
  let channels: 3 | 4 = 3;
  const idat: Buffer[] = [];
  for (let at = 8; at + 8 <= buf.length;) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const body = buf.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = body.subarray(8, 13);
      if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0)
        throw new Error(`PNG depth ${depth} colour ${colour} interlace ${interlace} not supported`);
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  if (width === 0 || height === 0 || idat.length === 0) throw new Error('PNG without IHDR/IDAT');
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  if (raw.length !== height * (stride + 1))
    throw new Error(`PNG data is ${raw.length} bytes, expected ${height * (stride + 1)}`);
  const data = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? data[row + i - channels] : 0;
      const b = y > 0 ? data[row - stride + i] : 0;
      const c = y > 0 && i >= channels ? data[row - stride + i - channels] : 0;
      let p: number;
      if (filter === 0) p = 0;
      else if (filter === 1) p = a;
      else if (filter === 2) p = b;
      else if (filter === 3) p = (a + b) >> 1;
      else if (filter === 4) p = paeth(a, b, c);
      else throw new Error(`PNG row ${y}: filter ${filter}`);
      data[row + i] = (raw[src + i] + p) & 0xff;
    }
  }
  return { width, height, channels, data };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
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
