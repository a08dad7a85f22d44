import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';

const dir = join(import.meta.dirname, '..', 'fixtures');

/** A small template that shows data, escaping and a loop. */
export const greetingTemplate = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Greeting</title></head>
<body><h1>Hello <%= it.name %></h1><ul><% it.items.forEach(function (item) { %><li>Item <%= item %></li><% }) %></ul></body></html>`;

/** An HTML page whose script keeps the page busy for `ms`: a render that takes time. */
export function slowHtml(ms: number, text = 'Slow document'): string {
  return `<!DOCTYPE html><html><body><p>${text}</p><script>const t = Date.now(); while (Date.now() - t < ${ms}) {}</script></body></html>`;
}

export function invoiceFixture(): { template: string; data: Record<string, unknown>; html: string } {
  return {
    template: readFileSync(join(dir, 'invoice', 'invoice.eta'), 'utf8'),
    data: JSON.parse(readFileSync(join(dir, 'invoice', 'invoice.json'), 'utf8')) as Record<string, unknown>,
    html: readFileSync(join(dir, 'invoice', 'invoice.html'), 'utf8'),
  };
}

/** A solid-colour PNG of w × h pixels, built here so the tests carry no binary files. */
export function solidPng(w: number, h: number, rgb: [number, number, number] = [200, 30, 30]): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: w }, () => rgb).flat())]);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(raw)),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}
