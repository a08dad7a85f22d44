import { Eta } from 'eta/core';
import { describe, expect, it } from 'vitest';
import { ETA_OPTIONS } from './in-page/runtime-contract.ts';
import { invoice } from './test-support/fixtures.ts';

// The Eta twin of the shared invoice must produce invoice.html byte for byte, so that benchmarks
// of the template path and the HTML path render the same document. This evaluates OUR fixture in
// Node with the options the page uses; tenant templates are only ever evaluated in the page.
describe('invoice.eta', () => {
  it('renders exactly invoice.html from invoice.json', () => {
    const html = new Eta(ETA_OPTIONS).renderString(invoice.template, invoice.data);
    expect(html).toBe(invoice.html);
  });
});
