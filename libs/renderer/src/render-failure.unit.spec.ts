import { RenderFailure } from '@pressroom/core';
import { describe, expect, it } from 'vitest';
import { DeadlineExceeded } from './deadline.ts';
import { PoolClosedError } from './page-pool.ts';
import { classifyRenderFailure, frameHeldMessage, NAVIGATION_REFUSED_MESSAGE, type FailureFacts } from './render-failure.ts';

const calm: FailureFacts = { timeoutMs: 1500, navigated: false, pageGone: false };
const pwError = (message: string, name = 'Error') => Object.assign(new Error(message), { name });

/** Words of our automation that must never reach a caller. */
const AUTOMATION = /page\.|Protocol error|Execution context|playwright|Target (page|closed)|CDP|browserContext/i;

describe('classifyRenderFailure', () => {
  it.each([
    'page.evaluate: Execution context was destroyed, most likely because of a navigation.',
    'page.waitForFunction: Execution context was destroyed, most likely because of a navigation',
    'page.setContent: Navigation interrupted by another one',
    'page.screenshot: frame was detached',
  ])('calls a lost document a navigation the tenant made: %s', (text) => {
    const failure = classifyRenderFailure(pwError(text), calm);
    expect(failure).toMatchObject({ code: 'NAVIGATION_REFUSED', message: NAVIGATION_REFUSED_MESSAGE });
    expect(failure.message).not.toMatch(AUTOMATION);
  });

  it('calls a page closed for a frame it held a timeout of the document, in our words, whatever the error was', () => {
    const held = { ...calm, pageGone: true, frameHeldMs: 15_000 };
    const failure = classifyRenderFailure(pwError('page.waitForFunction: Target page, context or browser has been closed'), held);
    expect(failure).toMatchObject({ code: 'RENDER_TIMEOUT', message: frameHeldMessage(15_000) });
    expect(failure.message).toContain('more than 15 seconds');
    expect(failure.message).not.toMatch(AUTOMATION);
  });

  it('blames a navigation seen on the page over the timeout or template failure it caused', () => {
    const navigated = { ...calm, navigated: true };
    expect(classifyRenderFailure(new RenderFailure('RENDER_TIMEOUT', 'ready.selector matched nothing'), navigated).code).toBe(
      'NAVIGATION_REFUSED',
    );
    expect(classifyRenderFailure(new DeadlineExceeded(1500), navigated).code).toBe('NAVIGATION_REFUSED');
  });

  it("blames an exception the page's own scripts caused in our page helpers on the page, in our words", () => {
    const err = pwError('page.evaluate: TypeError: Promise.all is not a function\n    at eval (eval at evaluate (:234:30))');
    const failure = classifyRenderFailure(err, calm);
    expect(failure.code).toBe('TEMPLATE_ERROR');
    expect(failure.message).toContain('TypeError: Promise.all is not a function');
    expect(failure.message).not.toMatch(AUTOMATION);
    expect(failure.message).not.toContain('eval at evaluate');
  });

  it('blames a page that closed itself on the page', () => {
    const err = pwError('page.evaluate: Target page, context or browser has been closed');
    const failure = classifyRenderFailure(err, { ...calm, pageGone: true, closedItself: true });
    expect(failure.code).toBe('NAVIGATION_REFUSED');
    expect(failure.message).toMatch(/closed itself \(window\.close\(\)\)/);
    expect(failure.message).not.toMatch(AUTOMATION);
  });

  it('keeps our own failures as they are', () => {
    const own = new RenderFailure('TEMPLATE_ERROR', 'ReferenceError: x is not defined');
    expect(classifyRenderFailure(own, calm)).toBe(own);
  });

  it('turns our deadline and Playwright timeouts into RENDER_TIMEOUT naming the limit', () => {
    expect(classifyRenderFailure(new DeadlineExceeded(1500), calm)).toMatchObject({
      code: 'RENDER_TIMEOUT',
      message: 'The render did not finish within 1500 ms.',
    });
    const pw = classifyRenderFailure(pwError('page.screenshot: Timeout 1500ms exceeded.', 'TimeoutError'), calm);
    expect(pw).toMatchObject({ code: 'RENDER_TIMEOUT' });
    expect(pw.message).not.toMatch(AUTOMATION);
  });

  it.each([
    ['a protocol error', pwError('page.setViewportSize: Protocol error (Emulation.setDeviceMetricsOverride): Invalid parameters'), calm],
    ['a crashed page', pwError('page.pdf: Target crashed'), { ...calm, pageGone: true }],
    ['a closed page', pwError('page.evaluate: Target page, context or browser has been closed'), { ...calm, pageGone: true }],
    ['a closed pool', new PoolClosedError(), calm],
    ['a thrown string', 'page.pdf: Printing failed', calm],
  ])('answers %s as our RENDER_ERROR without its text', (_what, err, facts) => {
    const failure = classifyRenderFailure(err, facts);
    expect(failure.code).toBe('RENDER_ERROR');
    expect(failure.message).not.toMatch(AUTOMATION);
    expect(failure.cause).toBe(err);
  });
});
