import { describe, expect, it } from 'vitest';
import { syncFailureStatus } from './error-mapper.ts';

describe('the HTTP status of a render that failed under a sync call', () => {
  it.each(['TEMPLATE_ERROR', 'OUTPUT_TOO_LARGE', 'NAVIGATION_REFUSED', 'PAGE_SETUP_INVALID'])('%s is the tenant’s: 422', (code) => {
    expect(syncFailureStatus(code)).toBe(422);
  });

  it('a time limit answers 504', () => {
    expect(syncFailureStatus('RENDER_TIMEOUT')).toBe(504);
  });

  it.each(['RENDER_ERROR', 'STORAGE_ERROR', 'SOMETHING_NEW'])('%s is ours: 500', (code) => {
    expect(syncFailureStatus(code)).toBe(500);
  });
});
