import { describe, expect, it } from 'vitest';
import type { RenderJob } from '@pressroom/core';
import { resolvePageSetup } from './page-setup.ts';
import { isScriptFree } from './script-free.ts';

const html = (markup: string, extra: Partial<RenderJob> = {}): boolean => {
  const job: RenderJob = { source: { kind: 'html', html: markup }, output: 'pdf', timeoutMs: 1_000, ...extra };
  return isScriptFree(job, resolvePageSetup(job.pdfParams, { header: false, footer: false }));
};

describe('isScriptFree', () => {
  it('takes raw HTML with markup, styles, inline SVG, images and links but no sign of script', () => {
    expect(html('<!doctype html><style>@page{size:A4} .on{color:red}</style><h1 class="on">Invoice</h1><a href="#t">top</a>')).toBe(true);
    expect(html('<svg width="10" height="10"><rect width="10" height="10"/></svg><img src="data:image/png;base64,AAAA" alt="x">')).toBe(
      true,
    );
    expect(html('<p>Conditions apply; the action is online.</p>')).toBe(true);
  });

  it.each([
    ['a script element', '<p>x</p><SCRIPT src="https://cdn.example/x.js"></SCRIPT>'],
    ['a script in SVG', '<svg><script>alert(1)</script></svg>'],
    ['<noscript>, shown only without script', '<noscript>enable JS</noscript>'],
    ['an event handler', '<img src="x" onerror="alert(1)">'],
    ['an event handler in capitals with spaces', '<body ONLOAD = "x()">'],
    ['a javascript: URL', '<a href=" JavaScript:alert(1)">x</a>'],
    ['a vbscript: URL', '<a href="vbscript:x">x</a>'],
    ['a frame', '<iframe src="https://example.com"></iframe>'],
    ['a frame document in srcdoc (its markup escaped)', '<div srcdoc="&lt;script&gt;"></div>'],
    ['a frameset', '<frameset><frame src="a.html"></frameset>'],
    ['an object', '<object data="x.svg"></object>'],
    ['an embed', '<embed src="x.svg">'],
    ['a meta refresh', '<meta http-equiv="Refresh" content="1; url=https://example.com">'],
  ])('refuses %s', (_, markup) => {
    expect(html(markup)).toBe(false);
  });

  it('refuses templates, readiness signals and Chromium header templates', () => {
    const template: RenderJob = {
      source: { kind: 'template', templateId: 't', templateVersion: 1, content: '<p>x</p>', data: {} },
      output: 'pdf',
      timeoutMs: 1_000,
    };
    expect(isScriptFree(template, resolvePageSetup(undefined, { header: false, footer: false }))).toBe(false);
    expect(html('<p>x</p>', { ready: { selector: '#done' } })).toBe(false);
    expect(html('<p>x</p>', { ready: { expression: 'window.done' } })).toBe(false);
    expect(html('<p>x</p>', { ready: { networkIdle: true } })).toBe(true);
    expect(html('<p>x</p>', { pdfParams: { displayHeaderFooter: true, headerTemplate: '<span class="title"></span>' } })).toBe(false);
  });
});
