import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What a reader of the PDF sees as text (poppler's pdftotext, layout order). */
export async function pdfText(pdf: Uint8Array): Promise<string> {
  return withFile(pdf, async (path) => (await run('pdftotext', ['-enc', 'UTF-8', path, '-'])).stdout);
}

/** pdfinfo's fields, e.g. { Title: '…', Pages: '2', 'Page size': '595.276 x 841.89 pts (A4)' }. */
export async function pdfInfo(pdf: Uint8Array): Promise<Record<string, string>> {
  const { stdout } = await withFile(pdf, (path) => run('pdfinfo', ['-enc', 'UTF-8', path]));
  const fields: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const m = /^([^:]+):\s*(.*)$/.exec(line);
    if (m?.[1] && m[2] !== undefined) fields[m[1]] = m[2];
  }
  return fields;
}

/** pdfinfo's "Page size" in points. Chromium rounds A4 to 594.96-595.92 x 841.92-842.88. */
export function pageSizePts(info: Record<string, string>): { width: number; height: number } {
  const m = /^([\d.]+) x ([\d.]+) pts/.exec(info['Page size'] ?? '');
  if (!m) throw new Error(`no page size in pdfinfo output: ${JSON.stringify(info)}`);
  return { width: Number(m[1]), height: Number(m[2]) };
}

/** Width and height of a PNG, read from its IHDR chunk. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

export const PDF_MAGIC = '%PDF-';
export const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

async function withFile<T>(bytes: Uint8Array, use: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'pressroom-pdf-'));
  try {
    const path = join(dir, 'out.pdf');
    await writeFile(path, bytes);
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
