import { crc32, deflateSync, inflateSync } from 'node:zlib';

/** A PNG of one flat colour (8-bit RGB), built here so tests need no image files. */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Uint8Array {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, truecolour, deflate, no filter method, no interlace
  return pngFile(ihdr, raw);
}

/**
 * A PNG file from its 13-byte IHDR and its raw scanlines (each led by its filter-type byte):
 * signature, IHDR, one deflated IDAT, IEND. The tests' images are built with it, so the tests
 * carry no binary files.
 */
export function pngFile(ihdr: Buffer, scanlines: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(scanlines)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A decoded PNG: 8-bit truecolour, with or without alpha (what Chromium writes), as RGBA rows. */
export interface DecodedPng {
  width: number;
  height: number;
  /** width × height × 4 bytes, row by row. */
  rgba: Buffer;
}

/**
 * Decodes an 8-bit, non-interlaced truecolour PNG (colour type 2 or 6), undoing each row's
 * filter, so tests can compare images pixel by pixel whatever the encoder chose.
 */
export function decodePng(png: Uint8Array): DecodedPng {
  const buf = Buffer.from(png);
  const width = buf.readUInt32BE(16);
  const height = buf.readUInt32BE(20);
  const [depth, colorType, , , interlace] = [buf[24], buf[25], buf[26], buf[27], buf[28]];
  if (depth !== 8 || (colorType !== 2 && colorType !== 6) || interlace !== 0) {
    throw new Error(`decodePng: 8-bit non-interlaced RGB(A) only, got depth ${depth} colour type ${colorType}`);
  }
  const idat: Buffer[] = [];
  for (let at = 8; at < buf.length;) {
    const len = buf.readUInt32BE(at);
    if (buf.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(buf.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const bpp = colorType === 6 ? 4 : 3;
  const stride = width * bpp;
  const rows = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = rows.subarray(y * stride, (y + 1) * stride);
    const prior = y > 0 ? rows.subarray((y - 1) * stride, y * stride) : Buffer.alloc(stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? out[x - bpp]! : 0;
      const b = prior[x]!;
      const c = x >= bpp ? prior[x - bpp]! : 0;
      const predictor = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter];
      if (predictor === undefined) throw new Error(`decodePng: unknown filter ${filter} on row ${y}`);
      out[x] = (line[x]! + predictor) & 0xff;
    }
  }
  const rgba = Buffer.alloc(width * height * 4, 0xff);
  for (let i = 0; i < width * height; i++) rows.copy(rgba, i * 4, i * bpp, i * bpp + bpp);
  return { width, height, rgba };
}

/** The pixel at (x, y) of a PNG, decoded. */
export function pngPixel(png: Uint8Array, x: number, y: number): { rgb: number[]; alpha: number } {
  const { width, rgba } = decodePng(png);
  const at = (y * width + x) * 4;
  return { rgb: [rgba[at]!, rgba[at + 1]!, rgba[at + 2]!], alpha: rgba[at + 3]! };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}
