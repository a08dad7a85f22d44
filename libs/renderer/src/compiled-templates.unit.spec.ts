import { describe, expect, it } from 'vitest';
import { BoundedLru, compiledTemplateKey } from './compiled-templates.ts';

describe('BoundedLru', () => {
  it('keeps at most max entries and drops the least recently used', () => {
    const lru = new BoundedLru<string>(2);
    lru.set('a', '1');
    lru.set('b', '2');
    expect(lru.get('a')).toBe('1'); // a is now the most recent
    lru.set('c', '3');
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('1');
    expect(lru.get('c')).toBe('3');
    expect(lru.size).toBe(2);
  });
});

describe('compiledTemplateKey', () => {
  const source = { templateId: 'invoice', templateVersion: 2, content: '<p><%= it.x %></p>' };
  it('differs by tenant, template, version and content', () => {
    const k = compiledTemplateKey('acme', source);
    expect(compiledTemplateKey('acme', { ...source })).toBe(k);
    expect(compiledTemplateKey('globex', source)).not.toBe(k);
    expect(compiledTemplateKey('acme', { ...source, templateId: 'other' })).not.toBe(k);
    expect(compiledTemplateKey('acme', { ...source, templateVersion: 3 })).not.toBe(k);
    expect(compiledTemplateKey('acme', { ...source, content: '<p></p>' })).not.toBe(k);
  });
});
