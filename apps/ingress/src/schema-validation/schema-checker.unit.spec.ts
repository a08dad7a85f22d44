import { afterAll, describe, expect, it } from 'vitest';
import { PressroomError } from '@pressroom/domain';
import { createSchemaChecker } from './schema-checker.ts';

/** A schema within every static bound whose check of many rows still costs the worker time. */
const leaves = Array.from({ length: 40 }, (_, i) => ({
  type: 'object',
  required: [`k${i}`],
  properties: { [`k${i}`]: { type: 'string' } },
}));
const costly = {
  type: 'object',
  properties: { rows: { type: 'array', items: { anyOf: Array.from({ length: 6 }, () => ({ $ref: '#/$defs/leaf' })) } } },
  $defs: { leaf: { anyOf: leaves } },
};
const pattern = { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } };

describe('schema checker (worker thread with a deadline)', () => {
  const checker = createSchemaChecker({ timeoutMs: 300 });
  afterAll(() => checker.close());

  it('checks data against a declared schema off the event loop, RE2 patterns included', async () => {
    expect(await checker.dataProblems(pattern, { code: `${'a'.repeat(28)}b` })).toEqual([
      { field: 'data.code', message: 'does not match the pattern the template declares' },
    ]);
    expect(await checker.compileProblem(pattern)).toBeUndefined();
  }, 60_000);

  it('refuses a check that outlives the deadline with a 400 naming PRESSROOM_VALIDATION_TIMEOUT_MS, then answers the next one', async () => {
    // 400,000 rows x 240 branches: seconds of work, far beyond a 300 ms deadline.
    const hurried = createSchemaChecker({ timeoutMs: 300 });
    const rows = Array.from({ length: 400_000 }, () => ({ zz: 1 }));
    const err = await hurried.dataProblems(costly, { rows }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PressroomError);
    expect((err as PressroomError).code).toBe('VALIDATION_FAILED');
    expect((err as PressroomError).details?.[0]?.message).toMatch(/PRESSROOM_VALIDATION_TIMEOUT_MS/);
    // The worker that ran out of time was replaced.
    expect(await hurried.dataProblems(pattern, { code: 'aaa' })).toEqual([]);
    await hurried.close();
  }, 60_000);
});
