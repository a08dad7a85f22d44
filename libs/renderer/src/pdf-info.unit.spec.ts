import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { hasPdfInfo, writePdfInfo } from './pdf-info.ts';

async function chromiumLikePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.addPage([595.28, 841.89]);
  doc.setTitle('From the page');
  doc.setCreator('Chromium');
  doc.setProducer('Skia/PDF m156');
  return doc.save({ useObjectStreams: false });
}

describe('writePdfInfo', () => {
  it('writes the given fields and keeps the others', async () => {
    const out = await writePdfInfo(await chromiumLikePdf(), { author: 'Ada', keywords: ['a', 'two words'] });
    const doc = await PDFDocument.load(out, { updateMetadata: false });
    expect(doc.getAuthor()).toBe('Ada');
    expect(doc.getKeywords()).toBe('a, two words');
    expect(doc.getTitle()).toBe('From the page');
    expect(doc.getCreator()).toBe('Chromium');
    expect(doc.getProducer()).toBe('Skia/PDF m156');
    expect(doc.getPageCount()).toBe(1);
  });

  it('says whether any field was asked for', () => {
    expect(hasPdfInfo(undefined)).toBe(false);
    expect(hasPdfInfo({})).toBe(false);
    // A field present but undefined (as a spread of an absent one gives) counts as absent.
    expect(hasPdfInfo({ title: undefined } as unknown as Parameters<typeof hasPdfInfo>[0])).toBe(false);
    expect(hasPdfInfo({ title: '' })).toBe(true);
  });
});
