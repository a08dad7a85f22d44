import { PDFDocument } from 'pdf-lib';

/**
 * One PDF made of every page of `buffers`, in order. The batch finisher's only use of a PDF
 * library: kept behind this function so another implementation (qpdf) can replace it.
 */
export async function mergePdfs(buffers: readonly Uint8Array[]): Promise<Uint8Array> {
  const out = await PDFDocument.create();
  for (const bytes of buffers) {
    const source = await PDFDocument.load(bytes);
    const pages = await out.copyPages(source, source.getPageIndices());
    for (const page of pages) out.addPage(page);
  }
  return out.save();
}
