import type * as PdfLib from 'pdf-lib';

/**
 * pdf-lib, loaded on first use rather than with the renderer: it costs ~0.2 s of CPU to load
 * (more on a loaded machine), and the embedded profile imports the renderer before its ingress
 * listens. The module is cached after the first call, so later ones cost a resolved promise.
 */
export const pdfLib = (): Promise<typeof PdfLib> => import('pdf-lib');
