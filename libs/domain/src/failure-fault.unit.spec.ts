import { describe, expect, it } from 'vitest';
import { failureFault } from './failure-fault.ts';

describe('whose fault a failed render is', () => {
  it.each(['TEMPLATE_ERROR', 'OUTPUT_TOO_LARGE', 'NAVIGATION_REFUSED', 'PAGE_SETUP_INVALID'])('%s is the tenant’s', (code) => {
    expect(failureFault(code)).toBe('tenant');
  });

  it('a time limit is a timeout', () => {
    expect(failureFault('RENDER_TIMEOUT')).toBe('timeout');
  });

  it.each(['RENDER_ERROR', 'STORAGE_ERROR', 'SOMETHING_NEW'])('%s is ours', (code) => {
    expect(failureFault(code)).toBe('service');
  });
});
