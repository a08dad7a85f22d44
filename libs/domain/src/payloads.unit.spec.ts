import { describe, expect, it } from 'vitest';
import { isStorablePayload, payloadKey, readBackPayload, storedSourceOf, templateOfSource } from './payloads.ts';
import { renderOfObjectKey } from './retention.ts';

const R = '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a10';
const ref = { key: `acme/${R}.payload.json`, sha256: 'a'.repeat(64), bytes: 42 };

describe('stored payloads', () => {
  it("keys a payload under its render, so retention and DELETE take it with the render's files", () => {
    expect(payloadKey('acme', R)).toBe(`acme/${R}.payload.json`);
    expect(renderOfObjectKey(payloadKey('acme', R))).toEqual({ tenantId: 'acme', requestId: R });
  });

  it('stores HTML and template sources; a PDF tool operation stays on the event', () => {
    expect(isStorablePayload({ kind: 'html', html: '<p/>' })).toBe(true);
    expect(isStorablePayload({ kind: 'template', templateId: 't', templateVersion: 1, content: 'x', data: {} })).toBe(true);
    expect(isStorablePayload({ kind: 'pdf-tool', operation: { tool: 'merge-pdfs', urls: ['https://a/b.pdf'] } } as never)).toBe(false);
  });

  it('keeps on the log the kind, the template it renders and the reference; never the content or data', () => {
    const template = { kind: 'template' as const, templateId: 't1', templateVersion: 3, content: 'secret', data: { name: 'Ada' } };
    const stored = storedSourceOf(template, ref);
    expect(stored).toEqual({ kind: 'stored', of: 'template', templateId: 't1', templateVersion: 3, payload: ref });
    expect(templateOfSource(stored)).toEqual({ templateId: 't1', templateVersion: 3 });
    expect(storedSourceOf({ kind: 'html', html: '<p>x</p>' }, ref)).toEqual({ kind: 'stored', of: 'html', payload: ref });
    expect(templateOfSource({ kind: 'html', html: '' })).toBeUndefined();
  });

  it('reads back only the payload the reference names: missing is PAYLOAD_REMOVED, a different one is refused', () => {
    expect(readBackPayload(ref, undefined)).toMatchObject({ ok: false, code: 'PAYLOAD_REMOVED' });
    expect(readBackPayload(ref, { sha256: 'b'.repeat(64), bytes: 42, source: { kind: 'html', html: '' } })).toMatchObject({
      ok: false,
      code: 'RENDER_ERROR',
    });
    expect(readBackPayload(ref, { sha256: ref.sha256, bytes: 42, source: { kind: 'stored' } })).toMatchObject({ ok: false });
    expect(readBackPayload(ref, { sha256: ref.sha256, bytes: 42, source: { kind: 'html', html: '<p/>' } })).toEqual({
      ok: true,
      source: { kind: 'html', html: '<p/>' },
    });
  });
});
