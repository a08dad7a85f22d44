import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { ToolMetadata } from '@pressroom/schemas';
import { pngFile } from '../../libs/renderer/src/test-support/png.ts';

/** A PDF of `pages` pages whose page n says "Page n of <label>" (text pdftotext can find). */
export async function textPdf(label: string, pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Page ${n} of ${label}`, { x: 50, y: 780, size: 18, font });
  }
  return doc.save();
}

/** An RGB PNG of size×size with a gradient and a little noise (photo-like: large when lossless). */
export function photoPng(size: number, seed = 1): Buffer {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) % 32) - 16;
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) {
      row[1 + x * 3] = Math.max(0, Math.min(255, ((x * 255) / size + rand()) | 0));
      row[2 + x * 3] = Math.max(0, Math.min(255, ((y * 255) / size + rand()) | 0));
      row[3 + x * 3] = Math.max(0, Math.min(255, (((x + y) * 127) / size + rand()) | 0));
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  return pngFile(header, Buffer.concat(rows));
}

/** A one-page PDF holding a large photo-like image (what compress-pdf must shrink) and a line of text. */
export async function imagePdf(size = 1000): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const image = await doc.embedPng(photoPng(size));
  const page = doc.addPage([595, 842]);
  page.drawImage(image, { x: 50, y: 250, width: 495, height: 495 });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.drawText('Photo report', { x: 50, y: 780, size: 18, font });
  return doc.save();
}

/** Every field update-pdf-metadata takes, each set (what a test of "every field is written" sends). */
export const everyToolMetadataField: ToolMetadata = {
  title: 'Quarterly report',
  author: 'Acme Ltd',
  subject: 'Numbers',
  keywords: ['q3', 'finance'],
  creator: 'Report builder',
  producer: 'Acme producer',
  copyright: '© Acme',
  createDate: '2024-01-02T03:04:05Z',
  modDate: '2024-02-03T04:05:06Z',
  pdfVersion: 1.7,
  marked: true,
  trapped: 'True',
};

/** What pdfinfo shows of a PDF written with `everyToolMetadataField`. */
export const everyToolMetadataFieldInfo = {
  Title: 'Quarterly report',
  Author: 'Acme Ltd',
  Subject: 'Numbers',
  Creator: 'Report builder',
  Producer: 'Acme producer',
  Tagged: 'yes',
  'PDF version': '1.7',
};
