import { describe, expect, it } from 'vitest';
import { checkPngPixels } from './png-limit.ts';

describe('checkPngPixels', () => {
  it('lets an image of exactly the limit through', () => {
    expect(() => checkPngPixels({ width: 1000, height: 5000 }, 5_000_000)).not.toThrow();
  });

  it('refuses one more row with OUTPUT_TOO_LARGE, naming the size and the limit', () => {
    let err: unknown;
    try {
      checkPngPixels({ width: 794, height: 12_600 }, 5_000_000);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: 'OUTPUT_TOO_LARGE',
      message: expect.stringContaining('794 x 12600 pixels (10,004,400 pixels), over the limit of 5,000,000 pixels') as unknown,
    });
  });

  it('counts partial pixels of a fractional layout as whole ones', () => {
    expect(() => checkPngPixels({ width: 100.2, height: 100 }, 10_000)).toThrow(/101 x 100/);
  });
});
