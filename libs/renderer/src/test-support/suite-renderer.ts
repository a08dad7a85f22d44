import { afterAll, beforeAll } from 'vitest';
import { createPlaywrightRenderer, type PlaywrightRenderer } from '../playwright-renderer.ts';

/**
 * One renderer (one page) for the tests of the calling describe block: started before them and
 * closed after them. Returns a getter for it, to call inside the tests.
 */
export function suiteRenderer(): () => PlaywrightRenderer {
  let renderer: PlaywrightRenderer | undefined;
  beforeAll(async () => {
    renderer = await createPlaywrightRenderer({ pages: 1, recycleAfter: 200, maxOutputBytes: 20_000_000 });
  });
  afterAll(async () => {
    await renderer?.close();
  });
  return () => {
    if (!renderer) throw new Error('the suite renderer is not started (call it inside a test)');
    return renderer;
  };
}
