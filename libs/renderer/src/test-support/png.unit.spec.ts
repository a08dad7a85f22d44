import { describe, expect, it } from 'vitest';
import { decodePng, pngFile, pngPixel, solidPng } from './png.ts';

describe('decodePng (test support)', () => {
  it('reads back a flat image it did not filter', () => {
    const png = solidPng(3, 2, [10, 20, 30]);
    const { width, height, rgba } = decodePng(png);
    expect({ width, height }).toEqual({ width: 3, height: 2 });
    expect([...rgba]).toEqual(Array.from({ length: 6 }, () => [10, 20, 30, 255]).flat());
  });

  it('undoes each row filter (Sub, Up, Average, Paeth) of an RGBA image', () => {
    // 2×4 RGBA: the same two pixels on every row, each row written with another filter.
    const pixels = [
      [200, 100, 50, 255],
      [10, 250, 0, 128],
    ];
    const raw = pixels.flat();
    const sub = raw.map((v, i) => (i < 4 ? v : (v - raw[i - 4]!) & 0xff));
    const up = raw.map((v) => (v - v) & 0xff); // the row above is the same
    const avg = raw.map((v, i) => (v - (((i < 4 ? 0 : raw[i - 4]!) + v) >> 1)) & 0xff);
    const paeth = raw.map((v) => (v - v) & 0xff); // above equals the value, and Paeth picks it here
    const scanlines = Buffer.from([1, ...sub, 2, ...up, 3, ...avg, 4, ...paeth]);
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(2, 0);
    ihdr.writeUInt32BE(4, 4);
    ihdr.set([8, 6, 0, 0, 0], 8);
    const png = pngFile(ihdr, scanlines);
    for (let y = 0; y < 4; y++) {
      expect(pngPixel(png, 0, y)).toEqual({ rgb: [200, 100, 50], alpha: 255 });
      expect(pngPixel(png, 1, y)).toEqual({ rgb: [10, 250, 0], alpha: 128 });
    }
  });
});
