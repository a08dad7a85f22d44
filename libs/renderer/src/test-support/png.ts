import { crc32, deflateSync } from 'node:zlib';

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
