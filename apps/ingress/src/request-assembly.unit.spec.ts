import { describe, expect, it } from 'vitest';
import { DEFAULT_DOOR_LIMITS, type TemplateVersionRecord } from '@pressroom/domain';
import {
  UNSAVED_TEMPLATE_ID,
  assembleRenderRequest,
  doorProblems,
  pdfParamsOf,
  resolveSource,
  storageWanted,
  storedTemplateWanted,
  type AssemblyFacts,
  type RenderInput,
} from './request-assembly.ts';

const limits = DEFAULT_DOOR_LIMITS;

const stored: TemplateVersionRecord = {
  tenantId: 't1',
  templateId: 'tpl_1',
  version: 3,
  createdAt: '2026-01-01T00:00:00.000Z',
  name: 'Invoice',
  content: '<p><%= it.name %></p>',
  footer: '<small>page</small>',
  pdfParams: { format: 'A4', margin: { top: '1cm' } },
  ready: { selector: '#done' },
};

/** given the facts the ingress looked up → when the request is assembled → then its RenderRequested data. */
function given(input: RenderInput, template?: TemplateVersionRecord, more: Partial<AssemblyFacts> = {}) {
  const resolved = resolveSource(input, template);
  const facts: AssemblyFacts = {
    mode: 'sync',
    resolved,
    pdfParams: pdfParamsOf(input, resolved),
    storage: { kind: 'default' },
    plan: 'free',
    acceptBy: '2026-01-01T00:00:10.000Z',
    ...more,
  };
  return assembleRenderRequest(input, facts);
}

describe('request assembly', () => {
  it('a template request renders the stored version with the request data, the template page setup under the request one, and its ready signal', () => {
    const input: RenderInput = {
      kind: 'template',
      body: { templateId: 'tpl_1', data: { name: 'Ada' }, pdfParams: { landscape: true, margin: { bottom: '2cm' } } },
    };
    expect(storedTemplateWanted(input)).toEqual({ templateId: 'tpl_1', templateVersion: undefined });
    expect(given(input, stored)).toEqual({
      mode: 'sync',
      source: {
        kind: 'template',
        templateId: 'tpl_1',
        templateVersion: 3,
        content: stored.content,
        footer: stored.footer,
        data: { name: 'Ada' },
      },
      output: 'pdf',
      pdfParams: { format: 'A4', landscape: true, margin: { top: '1cm', bottom: '2cm' } },
      ready: { selector: '#done' },
      storage: { kind: 'default' },
      plan: 'free',
      acceptBy: '2026-01-01T00:00:10.000Z',
    });
  });

  it('a top-level hasCover is pdfParams.hasCover; convertToImage asks for PNG; metadata, webhook, externalId and link lifetime are carried', () => {
    const input: RenderInput = {
      kind: 'html',
      body: {
        html: '<p>x</p>',
        hasCover: true,
        convertToImage: true,
        metadata: { title: 'T' },
        webhook: 'https://hooks.example.com/x',
        externalId: 'order-7',
        signedUrlExpiresIn: 600,
      },
    };
    expect(given(input, undefined, { mode: 'async' })).toEqual({
      mode: 'async',
      webhook: 'https://hooks.example.com/x',
      source: { kind: 'html', html: '<p>x</p>' },
      output: 'png',
      pdfMetadata: { title: 'T' },
      pdfParams: { hasCover: true },
      storage: { kind: 'default' },
      plan: 'free',
      acceptBy: '2026-01-01T00:00:10.000Z',
      externalId: 'order-7',
      linkTtlSeconds: 600,
    });
  });

  it('an unsaved preview renders its own sources as the unsaved template, marked preview, always in our storage', () => {
    const input: RenderInput = { kind: 'unsaved', body: { content: '<p>hi</p>', header: '<b>h</b>', ready: { selector: '#r' } } };
    expect(storedTemplateWanted(input)).toBeUndefined();
    expect(storageWanted(input)).toBeUndefined();
    expect(given(input)).toEqual({
      mode: 'sync',
      source: { kind: 'template', templateId: UNSAVED_TEMPLATE_ID, templateVersion: 1, content: '<p>hi</p>', header: '<b>h</b>', data: {} },
      output: 'pdf',
      ready: { selector: '#r' },
      preview: true,
      storage: { kind: 'default' },
      plan: 'free',
      acceptBy: '2026-01-01T00:00:10.000Z',
    });
  });

  it('a stored preview reads the pinned version and is marked preview', () => {
    const input: RenderInput = { kind: 'preview', templateId: 'tpl_1', body: { templateVersion: 3, data: {} } };
    expect(storedTemplateWanted(input)).toEqual({ templateId: 'tpl_1', templateVersion: 3 });
    expect(given(input, stored)).toMatchObject({ preview: true, source: { templateId: 'tpl_1', templateVersion: 3 } });
  });

  it('a tool request carries its tool and its own page setup, not the template defaults', () => {
    const tool = { name: 'merge-pdfs', fileName: 'merged.pdf', expiresIn: 3600 } as const;
    const input: RenderInput = {
      kind: 'tool',
      body: {},
      source: { kind: 'html', html: '<h1>md</h1>' },
      pdfParams: { format: 'Letter' },
      tool,
    };
    expect(storageWanted(input)).toBeUndefined();
    expect(given(input)).toEqual({
      mode: 'sync',
      source: { kind: 'html', html: '<h1>md</h1>' },
      output: 'pdf',
      pdfParams: { format: 'Letter' },
      storage: { kind: 'default' },
      plan: 'free',
      acceptBy: '2026-01-01T00:00:10.000Z',
      tool,
    });
  });

  it('an Idempotency-Key and a batch place are on the log (to rebuild the keys; to find the batch)', () => {
    const input: RenderInput = { kind: 'html', body: { html: '<p/>' } };
    expect(
      given(input, undefined, { idempotency: { key: 'k1', fingerprint: 'f1' }, batch: { batchRequestId: 'b1', index: 2 }, plan: 'high' }),
    ).toMatchObject({ idempotencyKey: 'k1', idempotencyFingerprint: 'f1', batch: { batchRequestId: 'b1', index: 2 }, plan: 'high' });
  });

  it('a custom bucket is asked for only by template and HTML requests', () => {
    expect(storageWanted({ kind: 'html', body: { html: '<p/>', s3_bucket: 'b', s3_key: 'k.pdf' } })).toEqual({ bucket: 'b', key: 'k.pdf' });
  });

  it('debug on a template request carries the variable checks made at the door', () => {
    const input: RenderInput = { kind: 'template', body: { templateId: 'tpl_1', data: {}, debug: true } };
    const data = given(input, stored);
    expect(data.debug).toBeDefined();
    expect(JSON.stringify(data.debug)).toContain('name');
  });

  it('a stored template request without its version read is a programming error, not a render of nothing', () => {
    expect(() => resolveSource({ kind: 'template', body: { templateId: 'tpl_1' } })).toThrow();
  });

  it('door limits bound the data of template requests and not HTML', () => {
    const deep = { a: { b: { c: { d: 1 } } } };
    const tight = { ...limits, dataDepth: 2 };
    expect(doorProblems({ kind: 'template', body: { templateId: 'tpl_1', data: deep } }, tight).length).toBeGreaterThan(0);
    expect(doorProblems({ kind: 'html', body: { html: '<p/>' } }, tight)).toEqual([]);
  });
});
