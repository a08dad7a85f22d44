import { RenderFailure } from '@pressroom/core';
import { describe, expect, it } from 'vitest';
import { bodyPrintParams, DEFAULT_BAND, lengthToPx, resolvePageSetup, viewportFor } from './page-setup.ts';

const MM = 96 / 25.4;

describe('resolvePageSetup', () => {
  it('defaults to A4 portrait, no margins, backgrounds printed, CSS @page winning when no size is asked for, print media', () => {
    const setup = resolvePageSetup();
    expect(setup.paper.width).toBeCloseTo(210 * MM, 6);
    expect(setup.paper.height).toBeCloseTo(297 * MM, 6);
    expect(setup).toMatchObject({
      margin: { top: '0', right: '0', bottom: '0', left: '0' },
      scale: 1,
      printBackground: true,
      pageRanges: '',
      preferCSSPageSize: true,
      outline: false,
      tagged: false,
      omitBackground: false,
      media: 'print',
      hasCover: false,
    });
    expect(viewportFor(setup)).toEqual({ width: 794, height: 1123 });
  });

  it('lets a size asked for win over CSS @page unless preferCSSPageSize (Chromium and Puppeteer default false)', () => {
    expect(resolvePageSetup({ format: 'Letter' }).preferCSSPageSize).toBe(false);
    expect(resolvePageSetup({ width: '5in' }).preferCSSPageSize).toBe(false);
    expect(resolvePageSetup({ format: 'Letter', preferCSSPageSize: true }).preferCSSPageSize).toBe(true);
    expect(resolvePageSetup({ scale: 0.5 }).preferCSSPageSize).toBe(true);
  });

  it('sizes A0 to A2 and Ledger as Puppeteer, and keeps the format for a side not given', () => {
    expect(resolvePageSetup({ format: 'Ledger' }).paper).toEqual({ width: 1632, height: 1056 });
    expect(resolvePageSetup({ format: 'A2' }).paper.width).toBeCloseTo(420 * MM, 6);
    const half = resolvePageSetup({ format: 'Letter', width: '500px' });
    expect(half.paper).toEqual({ width: 500, height: 1056 });
  });

  it('turns Letter landscape into an 11 x 8.5 in sheet', () => {
    const setup = resolvePageSetup({ format: 'Letter', landscape: true });
    expect(setup.paper).toEqual({ width: 1056, height: 816 });
    expect(bodyPrintParams(setup)).toMatchObject({ paperWidth: 11, paperHeight: 8.5, landscape: false });
  });

  it('lets width and height replace the format, side by side', () => {
    expect(resolvePageSetup({ format: 'A5', width: '100mm', height: '2in' }).paper).toEqual({ width: 100 * MM, height: 192 });
    const widthOnly = resolvePageSetup({ format: 'A5', width: '4in' }).paper;
    expect(widthOnly.width).toBe(384);
    expect(widthOnly.height).toBeCloseTo(210 * MM, 6);
    // landscape swaps a portrait custom size too, and leaves a landscape one alone
    expect(resolvePageSetup({ width: '2in', height: '3in', landscape: true }).paper).toEqual({ width: 288, height: 192 });
    expect(resolvePageSetup({ width: '3in', height: '2in', landscape: true }).paper).toEqual({ width: 288, height: 192 });
  });

  it('reserves a band for a header or footer only where the margin is not given', () => {
    const both = resolvePageSetup({ margin: { left: '1cm' } }, { header: true, footer: true });
    expect(both.margin).toEqual({ top: DEFAULT_BAND, right: '0', bottom: DEFAULT_BAND, left: '1cm' });
    const given = resolvePageSetup({ margin: { top: '0', bottom: '30px' } }, { header: true, footer: true });
    expect(given.margin).toMatchObject({ top: '0', bottom: '30px' });
  });

  it('refuses margins that leave no room for content, with PAGE_SETUP_INVALID', () => {
    const tooTall = () => resolvePageSetup({ format: 'A6', margin: { top: '80mm', bottom: '70mm' } });
    expect(tooTall).toThrow(RenderFailure);
    expect(tooTall).toThrow(/leave no room for content on a 105 x 148 mm page/);
    expect(() => resolvePageSetup({ width: '1in', height: '1in', margin: { left: '48px', right: '48px' } })).toThrow(/no room/);
    try {
      tooTall();
    } catch (err) {
      expect((err as RenderFailure).code).toBe('PAGE_SETUP_INVALID');
    }
  });

  it.each([
    ['an absurd sheet', { width: '100000mm', height: '100000mm' }, /100000 x 100000 mm cannot be printed/],
    ['a sliver', { width: '0.01mm', height: '297mm' }, /0 x 297 mm cannot be printed/],
    ['absurd margins', { margin: { top: '99999999mm' } }, /leave no room for content on a 210 x 297 mm page/],
  ])('refuses %s with PAGE_SETUP_INVALID in its own words, before Chromium sees it', (_what, params, message) => {
    const err = (() => {
      try {
        resolvePageSetup(params);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(RenderFailure);
    expect(err).toMatchObject({ code: 'PAGE_SETUP_INVALID', message: expect.stringMatching(message) as unknown });
  });

  it('accepts the largest and smallest sheets PDF readers show', () => {
    expect(resolvePageSetup({ width: '200in', height: '0.25in' }).paper).toEqual({ width: 19200, height: 24 });
  });

  it('clamps a scale outside what Chromium accepts and passes page ranges through', () => {
    expect(resolvePageSetup({ scale: 5 }).scale).toBe(2);
    expect(resolvePageSetup({ scale: 0.01 }).scale).toBe(0.1);
    expect(bodyPrintParams(resolvePageSetup({ pageRanges: ' 1-2, 4 ' }))).toMatchObject({ pageRanges: '1-2, 4' });
    expect(bodyPrintParams(resolvePageSetup())).toMatchObject({ pageRanges: '' });
  });

  it('asks Chromium for every print parameter, lengths in inches, an untagged PDF unless asked', () => {
    // Chromium's own defaults differ (a tagged PDF, Letter, 1 cm margins): nothing is left to them.
    expect(bodyPrintParams(resolvePageSetup())).toEqual({
      paperWidth: 210 / 25.4,
      paperHeight: 297 / 25.4,
      marginTop: 0,
      marginRight: 0,
      marginBottom: 0,
      marginLeft: 0,
      landscape: false,
      displayHeaderFooter: false,
      scale: 1,
      printBackground: true,
      preferCSSPageSize: true,
      pageRanges: '',
      generateTaggedPDF: false,
      generateDocumentOutline: false,
    });
    const margins = bodyPrintParams(resolvePageSetup({ margin: { top: '1in', right: '2.54cm', bottom: '25.4mm', left: '48px' } }));
    expect(margins.marginTop).toBe(1);
    expect(margins.marginRight).toBeCloseTo(1, 12);
    expect(margins.marginBottom).toBeCloseTo(1, 12);
    expect(margins.marginLeft).toBe(0.5);
    expect(bodyPrintParams(resolvePageSetup({ outline: true }))).toMatchObject({ generateTaggedPDF: true, generateDocumentOutline: true });
    expect(bodyPrintParams(resolvePageSetup({ tagged: true }))).toMatchObject({ generateTaggedPDF: true, generateDocumentOutline: false });
  });
});

describe('lengthToPx', () => {
  it.each([
    ['0', 0],
    ['96px', 96],
    ['1in', 96],
    ['2.54cm', 96],
    ['25.4mm', 96],
  ])('reads %s as %d px', (length, px) => {
    expect(lengthToPx(length)).toBeCloseTo(px, 9);
  });

  it('throws on something that is not a length', () => {
    expect(() => lengthToPx('12pt')).toThrow(RangeError);
  });
});
