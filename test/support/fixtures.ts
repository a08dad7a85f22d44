import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { solidPng as flatPng } from '../../libs/renderer/src/test-support/png.ts';

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
  return new Uint8Array(flatPng(w, h, rgb));
}
