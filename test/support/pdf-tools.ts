import { execFile } from 'node:child_process';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** poppler-utils (Debian): what a user would use to look inside the PDF we produced. */
async function withFile<T>(bytes: Uint8Array, fn: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'pressroom-pdf-'));
  const path = join(dir, 'doc.pdf');
  try {
    await writeFile(path, bytes);
    return await fn(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function pdfText(bytes: Uint8Array): Promise<string> {
  return withFile(bytes, async (p) => (await run('pdftotext', ['-layout', p, '-'])).stdout);
}

export async function pdfInfo(bytes: Uint8Array): Promise<Record<string, string>> {
  const out = await withFile(bytes, async (p) => (await run('pdfinfo', [p])).stdout);
  return Object.fromEntries(
    out
      .split('\n')
      .map((l) => /^([^:]+):\s*(.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!.trim(), m[2]!.trim()]),
  );
}

export const isPdf = (b: Uint8Array) => Buffer.from(b.subarray(0, 5)).toString('latin1') === '%PDF-';
export const isPng = (b: Uint8Array) => Buffer.from(b.subarray(0, 8)).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

/** `pdfimages -list`: one row per image drawn in the PDF (page, width, height, …). */
export async function pdfImages(bytes: Uint8Array): Promise<{ page: number; width: number; height: number }[]> {
  const out = await withFile(bytes, async (p) => (await run('pdfimages', ['-list', p])).stdout);
  return out
    .split('\n')
    .slice(2)
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => c.length > 4)
    .map((c) => ({ page: Number(c[0]), width: Number(c[3]), height: Number(c[4]) }));
}

/** The text of one page (`pdftotext -f n -l n`), 1-based. */
export function pdfPageText(bytes: Uint8Array, page: number): Promise<string> {
  return withFile(
    bytes,
    async (p) => (await run('pdftotext', ['-enc', 'UTF-8', '-layout', '-f', String(page), '-l', String(page), p, '-'])).stdout,
  );
}

/** `pdffonts`: every font of every page (form XObjects included), with whether it is embedded. */
export async function pdfFonts(bytes: Uint8Array): Promise<{ name: string; type: string; embedded: boolean }[]> {
  const out = await withFile(bytes, async (p) => (await run('pdffonts', [p])).stdout);
  return out
    .split('\n')
    .slice(2)
    .filter((l) => l.trim() !== '')
    .map((l) => {
      // name, type (may contain spaces), encoding, emb, sub, uni, object id, generation
      const m = /^(\S+)\s+(.+?)\s+(\S+)\s+(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+$/.exec(l.trim());
      if (!m?.[1] || !m[2]) throw new Error(`unexpected pdffonts line: ${l}`);
      return { name: m[1], type: m[2], embedded: m[4] === 'yes' };
    });
}
