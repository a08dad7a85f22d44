import type { Margins } from './page-setup.ts';

export interface BandSheetsInput {
  /** The body's sheet in CSS px. */
  size: { width: number; height: number };
  /** The body's margins: the header fills the top one, the footer the bottom one. */
  margin: Margins;
  /** One entry per sheet: the evaluated header and footer HTML (undefined when there is none). */
  sheets: { header: string | undefined; footer: string | undefined }[];
  /** @font-face rules copied from the body, so the bands can use the body's fonts by name. */
  fontFaces: string[];
}

/** Class names the header and footer boxes have, for the author's CSS. */
export const HEADER_CLASS = 'pressroom-header';
export const FOOTER_CLASS = 'pressroom-footer';

/**
 * The document that prints the running header and footer: one sheet per stamped page, each
 * exactly one page tall and transparent, with the header in the top margin band and the footer in
 * the bottom one (padded by the left and right margins, content centred vertically, overflow
 * clipped so a tall header can never push a sheet onto a second page).
 */
export function bandSheetsHtml(input: BandSheetsInput): string {
  const { width, height } = input.size;
  const m = input.margin;
  const css =
    `@page { size: ${width}px ${height}px; margin: 0 }\n` +
    'html, body { margin: 0; padding: 0; background: transparent }\n' +
    `.pressroom-sheet { position: relative; width: ${width}px; height: ${height}px; overflow: hidden; break-after: page; break-inside: avoid }\n` +
    '.pressroom-sheet:last-child { break-after: auto }\n' +
    `.${HEADER_CLASS}, .${FOOTER_CLASS} { position: absolute; left: 0; right: 0; box-sizing: border-box; overflow: hidden;` +
    ` padding: 0 ${m.right} 0 ${m.left}; display: flex; flex-direction: column; justify-content: center }\n` +
    `.${HEADER_CLASS} { top: 0; height: ${m.top} }\n` +
    `.${FOOTER_CLASS} { bottom: 0; height: ${m.bottom} }\n`;
  const sheets = input.sheets.map(
    (s) =>
      '<div class="pressroom-sheet">' +
      (s.header === undefined ? '' : `<div class="${HEADER_CLASS}">${s.header}</div>`) +
      (s.footer === undefined ? '' : `<div class="${FOOTER_CLASS}">${s.footer}</div>`) +
      '</div>',
  );
  const fonts = input.fontFaces.join('\n').replace(/<\/style/gi, '<\\/style');
  return `<!doctype html><html><head><meta charset="utf-8"><style>${fonts}</style><style>${css}</style></head><body>${sheets.join('')}</body></html>`;
}
