/**
 * How the browser tests judge their screenshots (png.ts): PNGs written by pngjs with every
 * scanline filter and colour type read back pixel for pixel, and a blank image told from a drawn
 * one. Runs without a browser.
 */
import fc from 'fast-check';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { countColour, cssRgb, decodePng, inkShare, pixel } from './png.ts';

/** A PNG of RGBA `pixels`, written with one scanline filter and colour type (2 RGB, 6 RGBA). */
function encodePng(
  width: number,
  height: number,
  pixels: Uint8Array,
  filterType = 4,
  colorType: 2 | 6 = 2,
): Buffer {
  const png = new PNG({ width, height });
  png.data = Buffer.from(pixels);
  return PNG.sync.write(png, { filterType, colorType, inputHasAlpha: true });
}

function solid(width: number, height: number, rgb: readonly number[]): Uint8Array {
  const px = new Uint8Array(width * height * 4);
  for (let i = 0; i < px.length; i++) px[i] = i % 4 === 3 ? 255 : rgb[i % 4];
  return px;
}

describe('png: decodePng', () => {
  it('reads back what was written, with each scanline filter (RGB and RGBA)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom<2 | 6>(2, 6),
        fc.integer({ min: 0, max: 4 }),
        fc.integer(),
        (width, height, colorType, filter, seed) => {
          const px = new Uint8Array(width * height * 4);
          let s = seed >>> 0;
          for (let i = 0; i < px.length; i++) {
            s = (Math.imul(s, 1103515245) + 12345) >>> 0;
            px[i] = colorType === 2 && i % 4 === 3 ? 255 : s >>> 24;
          }
          const img = decodePng(encodePng(width, height, px, filter, colorType));
          expect([img.width, img.height, img.channels]).toEqual([width, height, 4]);
          expect(Array.from(img.data)).toEqual(Array.from(px));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('refuses what is not a PNG', () => {
    expect(() => decodePng(Buffer.from('GIF89a'))).toThrow(/not a PNG/);
    const cut = encodePng(4, 4, solid(4, 4, [1, 2, 3]));
    expect(() => decodePng(cut.subarray(0, cut.length - 20))).toThrow(/not a PNG/);
  });
});

describe('png: telling a blank render from a drawn one', () => {
  const W = 40;
  const H = 30;

  it('a single-colour image has no ink, whatever the filters', () => {
    for (const f of [0, 1, 2, 3, 4]) {
      const img = decodePng(encodePng(W, H, solid(W, H, [255, 255, 255]), f));
      expect(inkShare(img)).toBe(0);
      expect(countColour(img, [36, 86, 199])).toBe(0);
    }
  });

  it('ink is the share of pixels off the dominant colour, inside a box when one is given', () => {
    const px = solid(W, H, [255, 255, 255]);
    for (let y = 10; y < 20; y++) px.set([36, 86, 199], (y * W + 5) * 4); // a 1 x 10 line at x = 5
    const img = decodePng(encodePng(W, H, px, 4));
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
