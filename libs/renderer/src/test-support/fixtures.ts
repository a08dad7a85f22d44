import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../../../../test/fixtures/invoice/', import.meta.url));

/** The shared invoice: Eta template, its data, and the static HTML it must reproduce. */
export const invoice = {
  template: readFileSync(`${dir}invoice.eta`, 'utf8'),
  data: JSON.parse(readFileSync(`${dir}invoice.json`, 'utf8')) as Record<string, unknown>,
  html: readFileSync(`${dir}invoice.html`, 'utf8'),
};

export function templateSource(content: string, data: Record<string, unknown> = {}) {
  return { kind: 'template' as const, templateId: 'test', templateVersion: 1, content, data };
}

export function htmlSource(html: string) {
  return { kind: 'html' as const, html };
}
