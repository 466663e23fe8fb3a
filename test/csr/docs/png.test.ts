/**
 * The PNG reader the browser tests judge their screenshots with (png.ts): every scanline filter
 * undone exactly, and a blank image told from a drawn one. Runs without a browser.
 */
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countColour, cssRgb, decodePng, inkShare, pixel } from './png.ts';

function chunk(type: string, body: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body, Buffer.alloc(4)]);
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** A PNG of `pixels` (rows of width*channels bytes), row y filtered with filters[y % length]. */
function encodePng(
  width: number,
  height: number,
  channels: 3 | 4,
  pixels: Uint8Array,
  filters: readonly number[],
): Buffer {
  const stride = width * channels;
  const raw = Buffer.alloc(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    const f = filters[y % filters.length];
    raw[y * (stride + 1)] = f;
    for (let i = 0; i < stride; i++) {
      const x = pixels[y * stride + i];
      const a = i >= channels ? pixels[y * stride + i - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + i] : 0;
      const c = y > 0 && i >= channels ? pixels[(y - 1) * stride + i - channels] : 0;
      const p = [0, a, b, (a + b) >> 1, paeth(a, b, c)][f];
      raw[y * (stride + 1) + 1 + i] = (x - p) & 0xff;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, channels === 4 ? 6 : 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

function solid(width: number, height: number, rgb: readonly number[]): Uint8Array {
  const px = new Uint8Array(width * height * 3);
  for (let i = 0; i < px.length; i++) px[i] = rgb[i % 3];
  return px;
}

describe('png: decodePng', () => {
  it('undoes each of the five scanline filters exactly (RGB and RGBA)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom<3 | 4>(3, 4),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 5 }),
        fc.integer(),
        (width, height, channels, filters, seed) => {
          const px = new Uint8Array(width * height * channels);
          let s = seed >>> 0;
          for (let i = 0; i < px.length; i++) {
            s = (Math.imul(s, 1103515245) + 12345) >>> 0;
            px[i] = s >>> 24;
          }
          const img = decodePng(encodePng(width, height, channels, px, filters));
          expect([img.width, img.height, img.channels]).toEqual([width, height, channels]);
          expect(Array.from(img.data)).toEqual(Array.from(px));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses what is not an 8-bit RGB/RGBA PNG', () => {
    expect(() => decodePng(Buffer.from('GIF89a'))).toThrow(/not a PNG/);
    const grey = encodePng(2, 2, 3, solid(2, 2, [1, 2, 3]), [0]);
    grey[8 + 8 + 9] = 0; // IHDR colour type 0 (greyscale)
    expect(() => decodePng(grey)).toThrow(/colour 0/);
  });
});

describe('png: telling a blank render from a drawn one', () => {
  const W = 40;
  const H = 30;

  it('a single-colour image has no ink, whatever the filters', () => {
    for (const f of [0, 1, 2, 3, 4]) {
      const img = decodePng(encodePng(W, H, 3, solid(W, H, [255, 255, 255]), [f]));
      expect(inkShare(img)).toBe(0);
      expect(countColour(img, [36, 86, 199])).toBe(0);
    }
  });

  it('ink is the share of pixels off the dominant colour, inside a box when one is given', () => {
    const px = solid(W, H, [255, 255, 255]);
    for (let y = 10; y < 20; y++) px.set([36, 86, 199], (y * W + 5) * 3); // a 1 x 10 line at x = 5
    const img = decodePng(encodePng(W, H, 3, px, [4, 1, 2]));
    expect(pixel(img, 5, 12)).toEqual([36, 86, 199]);
    expect(inkShare(img)).toBeCloseTo(10 / (W * H), 10);
    expect(inkShare(img, { x: 4, y: 10, width: 3, height: 10 })).toBeCloseTo(1 / 3, 10);
    expect(inkShare(img, { x: 20, y: 0, width: 20, height: 30 })).toBe(0);
    expect(countColour(img, cssRgb('rgb(36, 86, 199)'), { x: 4, y: 0, width: 3, height: H })).toBe(
      10,
    );
    expect(countColour(img, [40, 90, 200], undefined, 8)).toBe(10);
    expect(countColour(img, [40, 90, 200], undefined, 2)).toBe(0);
  });

  it('reads computed CSS colours', () => {
    expect(cssRgb('rgb(36, 86, 199)')).toEqual([36, 86, 199]);
    expect(cssRgb('rgba(1, 2, 3, 0.5)')).toEqual([1, 2, 3]);
    expect(() => cssRgb('#2456c7')).toThrow(/not an rgb/);
  });
});
