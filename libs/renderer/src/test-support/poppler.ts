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

/** The text of each page, in order (pdftotext separates pages with a form feed). */
export async function pdfPageTexts(pdf: Uint8Array): Promise<string[]> {
  const pages = (await pdfText(pdf)).split('\f');
  return pages.slice(0, -1); // the last form feed ends the last page
}

export interface PdfFont {
  name: string;
  type: string;
  embedded: boolean;
}

/** pdffonts' table: every font of every page, form XObjects included. */
export async function pdfFonts(pdf: Uint8Array): Promise<PdfFont[]> {
  const { stdout } = await withFile(pdf, (path) => run('pdffonts', [path]));
  return stdout
    .split('\n')
    .slice(2)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      // name, type (may contain spaces), encoding, emb, sub, uni, object id, generation
      const m = /^(\S+)\s+(.+?)\s+(\S+)\s+(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+$/.exec(line.trim());
      if (!m?.[1] || !m[2]) throw new Error(`unexpected pdffonts line: ${line}`);
      return { name: m[1], type: m[2], embedded: m[4] === 'yes' };
    });
}

/** pdfimages -list: one row per image drawn, with the page it is on and its pixel size. */
export async function pdfImages(pdf: Uint8Array): Promise<{ page: number; width: number; height: number }[]> {
  const { stdout } = await withFile(pdf, (path) => run('pdfimages', ['-list', path]));
  return stdout
    .split('\n')
    .slice(2)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [page, , , width, height] = line.trim().split(/\s+/);
      return { page: Number(page), width: Number(width), height: Number(height) };
    });
}

/**
 * One page rasterised in grey by pdftoppm at `dpi`: `at(xFraction, yFraction)` is the grey level
 * (0 black, 255 white) at that point of the page, measured from the top left.
 */
export async function pdfPageGray(pdf: Uint8Array, page: number, dpi = 30): Promise<{ at(x: number, y: number): number }> {
  const { stdout } = await withFile(pdf, (path) =>
    run('pdftoppm', ['-gray', '-r', String(dpi), '-f', String(page), '-l', String(page), path], { encoding: 'buffer' }),
  );
  const pgm = stdout as unknown as Buffer;
  // P5 header: "P5\n<w> <h>\n<max>\n" then one byte per pixel
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 50).toString('latin1'));
  if (!header?.[1] || !header[2]) throw new Error('pdftoppm did not write a PGM');
  const width = Number(header[1]);
  const height = Number(header[2]);
  const pixels = pgm.subarray(header[0].length);
  return {
    at: (x, y) => pixels[Math.min(height - 1, Math.floor(y * height)) * width + Math.min(width - 1, Math.floor(x * width))] ?? -1,
  };
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
