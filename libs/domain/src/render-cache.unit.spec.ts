import { describe, expect, it } from 'vitest';
import { renderCacheKey, renderCacheUse, type RenderCacheInputs, type RenderCacheRequest } from './render-cache.ts';

const base: RenderCacheInputs = {
  tenantId: 'acme',
  source: { kind: 'template', templateId: 'invoice', templateVersion: 3, content: '<p><%= it.n %></p>', data: { n: 1, items: [1, 2] } },
  output: 'pdf',
  pdfParams: { format: 'A4' },
  assets: [
    { name: 'logo.png', sha256: 'a'.repeat(64) },
    { name: 'font.woff2', sha256: 'b'.repeat(64) },
  ],
  chromium: 'Chromium 140.0',
};

describe('renderCacheKey', () => {
  it('is the same for the same inputs, whatever the order of members and assets', () => {
    const reordered: RenderCacheInputs = {
      ...base,
      source: { data: { items: [1, 2], n: 1 }, content: '<p><%= it.n %></p>', templateVersion: 3, templateId: 'invoice', kind: 'template' },
      assets: [...base.assets].reverse(),
    };
    expect(renderCacheKey(reordered)).toBe(renderCacheKey(base));
    expect(renderCacheKey(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs by tenant: identical input of another tenant never shares a key', () => {
    expect(renderCacheKey({ ...base, tenantId: 'globex' })).not.toBe(renderCacheKey(base));
  });

  it('differs by every input the bytes depend on', () => {
    const key = renderCacheKey(base);
    const variants: RenderCacheInputs[] = [
      { ...base, source: { ...(base.source as object), templateVersion: 4 } },
      { ...base, source: { ...(base.source as object), data: { n: 2, items: [1, 2] } } },
      { ...base, source: { ...(base.source as object), data: { n: 1, items: [2, 1] } } },
      { ...base, output: 'png' },
      { ...base, pdfParams: { format: 'Letter' } },
      { ...base, pdfMetadata: { title: 'x' } },
      { ...base, ready: { kind: 'selector', selector: '#done' } },
      { ...base, maxPngPixels: 1000 },
      { ...base, maxPngPages: 2 },
      { ...base, assets: [{ name: 'logo.png', sha256: 'c'.repeat(64) }, base.assets[1]!] },
      { ...base, assets: [base.assets[0]!] },
      { ...base, chromium: 'Chromium 141.0' },
    ];
    const keys = variants.map(renderCacheKey);
    expect(keys).not.toContain(key);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('renderCacheUse', () => {
  const ok: RenderCacheRequest = {
    planAllows: true,
    optedOut: false,
    sourceKind: 'template',
    storageKind: 'default',
    debug: false,
    tool: false,
    chromiumKnown: true,
  };
  it('serves a render of HTML or a template to our own storage when the plan allows it', () => {
    expect(renderCacheUse(ok)).toEqual({ use: true });
    expect(renderCacheUse({ ...ok, sourceKind: 'html' })).toEqual({ use: true });
  });
  it('is off by default (plan), on opt-out, for tools, debug renders, tenant storage and an unknown browser', () => {
    expect(renderCacheUse({ ...ok, planAllows: false })).toEqual({ use: false, reason: 'plan' });
    expect(renderCacheUse({ ...ok, optedOut: true })).toEqual({ use: false, reason: 'opted-out' });
    expect(renderCacheUse({ ...ok, sourceKind: 'pdf-tool' })).toEqual({ use: false, reason: 'source' });
    expect(renderCacheUse({ ...ok, tool: true })).toEqual({ use: false, reason: 'tool' });
    expect(renderCacheUse({ ...ok, debug: true })).toEqual({ use: false, reason: 'debug' });
    expect(renderCacheUse({ ...ok, storageKind: 's3-connection' })).toEqual({ use: false, reason: 'storage' });
    expect(renderCacheUse({ ...ok, chromiumKnown: false })).toEqual({ use: false, reason: 'chromium-unknown' });
  });
});
