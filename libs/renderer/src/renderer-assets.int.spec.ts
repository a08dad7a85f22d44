import { describe, expect, it } from 'vitest';
import { suiteRenderer } from './test-support/suite-renderer.ts';
import { memoryAssets, NARROW_FONT } from './test-support/assets.ts';
import { htmlSource, templateSource } from './test-support/fixtures.ts';
import { solidPng } from './test-support/png.ts';
import { pdfFonts, pdfImages, pdfText } from './test-support/poppler.ts';

// Tenant assets reach the page only as https://assets.pressroom.invalid/<name>, answered from the
// job's AssetSource, never from the network.
describe('Playwright renderer assets', () => {
  const renderer = suiteRenderer();

  const fontPage =
    '<style>@font-face { font-family: Brand; src: url(https://assets.pressroom.invalid/Brand.ttf) format("truetype") }' +
    ' p { font-family: Brand, serif }</style><p>Set in the brand font for <%= it.who %></p>';

  it('embeds a custom font served from the assets', async () => {
    // Given a template whose text uses an @font-face from the assets
    const assets = memoryAssets({ 'Brand.ttf': { bytes: NARROW_FONT.bytes, contentType: 'font/ttf' } });

    // When it renders
    const out = await renderer().render({ source: templateSource(fontPage, { who: 'ACME' }), output: 'pdf', assets, timeoutMs: 15_000 });

    // Then the font was asked for once and pdffonts lists it embedded
    expect(assets.asked).toEqual(['Brand.ttf']);
    const fonts = await pdfFonts(out.bytes);
    const brand = fonts.find((f) => f.name.endsWith(`+${NARROW_FONT.pdfName}`));
    expect(brand, JSON.stringify(fonts)).toMatchObject({ embedded: true });
    expect(await pdfText(out.bytes)).toContain('Set in the brand font for ACME');
  });

  it('answers an unknown asset with 404, so the page falls back instead of failing', async () => {
    // Given the same template with no such asset
    const assets = memoryAssets({});

    // When it renders
    const out = await renderer().render({ source: templateSource(fontPage, { who: 'B' }), output: 'pdf', assets, timeoutMs: 15_000 });

    // Then it prints in the fallback font, without the brand font
    expect(assets.asked).toEqual(['Brand.ttf']);
    expect((await pdfFonts(out.bytes)).some((f) => f.name.includes(NARROW_FONT.pdfName))).toBe(false);
    expect(await pdfText(out.bytes)).toContain('Set in the brand font for B');
  });

  it('draws an image from the assets, by name with a path and a query', async () => {
    // Given HTML with an asset image under a folder-like name
    const assets = memoryAssets({ 'img/logo 1.png': { bytes: solidPng(10, 5, [0, 0, 255]), contentType: 'image/png' } });
    const html = '<img src="https://assets.pressroom.invalid/img/logo%201.png?v=3" width="100" height="50"><p>with logo</p>';

    // When it renders, Then the 10 x 5 image is on the page
    const out = await renderer().render({ source: htmlSource(html), output: 'pdf', assets, timeoutMs: 15_000 });
    expect(await pdfImages(out.bytes)).toContainEqual({ page: 1, width: 10, height: 5 });
  });

  it("never shows one job's asset to the next job that asks for the same name", async () => {
    // Given a page that prints what the asset note.txt holds (or the status it got)
    const html =
      '<p id="out">pending</p><script>fetch("https://assets.pressroom.invalid/note.txt")' +
      '.then((r) => r.ok ? r.text() : "status " + r.status).then((t) => { document.getElementById("out").textContent = t; })</script>';
    const render = async (assets: ReturnType<typeof memoryAssets> | undefined) =>
      pdfText(
        (
          await renderer().render({
            source: htmlSource(html),
            output: 'pdf',
            ready: { expression: 'document.getElementById("out").textContent !== "pending"' },
            timeoutMs: 15_000,
            ...(assets ? { assets } : {}),
          })
        ).bytes,
      );

    // When tenant A, then a job with no assets, then tenant B render it on the same (only) page
    const a = await render(memoryAssets({ 'note.txt': { bytes: Buffer.from('TENANT-A-NOTE'), contentType: 'text/plain' } }));
    const none = await render(undefined);
    const b = await render(memoryAssets({ 'note.txt': { bytes: Buffer.from('TENANT-B-NOTE'), contentType: 'text/plain' } }));

    // Then each saw only its own
    expect(a).toContain('TENANT-A-NOTE');
    expect(none).toContain('status 404');
    expect(b).toContain('TENANT-B-NOTE');
    expect(b).not.toContain('TENANT-A');
  });
});
