import { describe, expect, it } from 'vitest';
import { bandSheetsHtml, FOOTER_CLASS, HEADER_CLASS } from './band-sheets.ts';

describe('bandSheetsHtml', () => {
  const margin = { top: '20mm', right: '1cm', bottom: '15mm', left: '2cm' };

  it('lays out one page-sized sheet per page, header in the top margin and footer in the bottom one', () => {
    const html = bandSheetsHtml({
      size: { width: 800, height: 1100 },
      margin,
      sheets: [
        { header: '<b>H1</b>', footer: 'F1' },
        { header: '<b>H2</b>', footer: undefined },
      ],
      fontFaces: [],
    });
    expect(html).toContain('@page { size: 800px 1100px; margin: 0 }');
    expect(html.match(/class="pressroom-sheet"/g)).toHaveLength(2);
    expect(html).toContain(`<div class="${HEADER_CLASS}"><b>H1</b></div><div class="${FOOTER_CLASS}">F1</div>`);
    expect(html).toContain(`<div class="${HEADER_CLASS}"><b>H2</b></div></div>`);
    expect(html).toContain(`.${HEADER_CLASS} { top: 0; height: 20mm }`);
    expect(html).toContain(`.${FOOTER_CLASS} { bottom: 0; height: 15mm }`);
    expect(html).toContain('padding: 0 1cm 0 2cm');
  });

  it("carries the body's @font-face rules, unable to close their style element", () => {
    const html = bandSheetsHtml({
      size: { width: 100, height: 100 },
      margin,
      sheets: [{ header: 'h', footer: undefined }],
      fontFaces: ['@font-face { font-family: X; src: url("https://assets.pressroom.invalid/x.ttf") }', 'a { content: "</style><script>" }'],
    });
    expect(html).toContain('@font-face { font-family: X;');
    expect(html).not.toContain('</style><script>');
  });
});
