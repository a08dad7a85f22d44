import type { CDPSession } from 'playwright';
import { bodyPrintParams, type PageSetup } from './page-setup.ts';

/**
 * Prints the loaded document through the page's own DevTools session, the PDF answered in the
 * reply (base64). Playwright's page.pdf asks Chromium for a stream instead: Chromium writes the
 * PDF to a temporary file and the client reads it back in chunks (three more round trips and the
 * file), 1.5–2.5 ms per render of the invoice (`npx tsx bench/chromium-steps.bench.ts --alone`,
 * "pdf service" against "pdf service, stream"). The reply holds PDFs up to the output cap and
 * beyond: a 216 MB PDF was printed inline here.
 */
export async function printPdf(cdp: CDPSession, setup: PageSetup): Promise<Uint8Array> {
  const { data } = await cdp.send('Page.printToPDF', { ...bodyPrintParams(setup), transferMode: 'ReturnAsBase64' });
  return Buffer.from(data, 'base64');
}
