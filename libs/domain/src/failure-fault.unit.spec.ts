import { describe, expect, it } from 'vitest';
import { failureFault, syncFailureStatus } from './failure-fault.ts';

describe('whose fault a failed render is', () => {
  it.each(['TEMPLATE_ERROR', 'OUTPUT_TOO_LARGE', 'NAVIGATION_REFUSED', 'PAGE_SETUP_INVALID'])('%s is the tenant’s: 422', (code) => {
    expect(failureFault(code)).toBe('tenant');
    expect(syncFailureStatus(code)).toBe(422);
  });

  it('a time limit answers 504', () => {
    expect(syncFailureStatus('RENDER_TIMEOUT')).toBe(504);
  });

  it.each(['RENDER_ERROR', 'STORAGE_ERROR', 'SOMETHING_NEW'])('%s is ours: 500', (code) => {
    expect(failureFault(code)).toBe('service');
    expect(syncFailureStatus(code)).toBe(500);
  });
});
