import { describe, expect, it } from 'vitest';
import { createJsonLogger, REDACTED } from './json-logger.ts';

function capture(level: 'debug' | 'info' | 'warn' | 'error' = 'debug') {
  const lines: string[] = [];
  const logger = createJsonLogger({ level, app: 'test-app', write: (l) => lines.push(l) });
  const parsed = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, lines, parsed };
}

describe('json logger (pino)', () => {
  it('writes one JSON line with level, ISO time, app, msg and the child fields', () => {
    const { logger, lines, parsed } = capture();
    logger.child({ requestId: 'r-1', tenantId: 't-1' }).info('render started', { eventType: 'RenderRequested' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    const [line] = parsed();
    expect(line).toMatchObject({
      level: 'info',
      app: 'test-app',
      msg: 'render started',
      requestId: 'r-1',
      tenantId: 't-1',
      eventType: 'RenderRequested',
    });
    expect(new Date(line!.time as string).toISOString()).toBe(line!.time);
  });

  it('keeps the cause chain of an error, with its code (the ECONNREFUSED behind a storage failure)', () => {
    const { logger, parsed } = capture();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED', syscall: 'connect', port: 9 });
    const failure = new Error('storage unavailable', { cause: new Error('request failed', { cause: refused }) });
    logger.error('could not store the artifact', { err: failure, other: new TypeError('also an error') });
    const [line] = parsed();
    const err = line!.err as Record<string, any>;
    expect(err.message).toBe('storage unavailable');
    expect(err.stack).toContain('storage unavailable');
    expect(err.cause.message).toBe('request failed');
    expect(err.cause.cause).toMatchObject({
      message: 'connect ECONNREFUSED 127.0.0.1:9',
      code: 'ECONNREFUSED',
      syscall: 'connect',
      port: 9,
    });
    expect(line!.other).toMatchObject({ type: 'TypeError', message: 'also an error' });
  });

  it('does not throw on BigInt or circular fields', () => {
    const { logger, parsed } = capture();
    const circular: Record<string, unknown> = { name: 'loop' };
    circular.self = circular;
    expect(() => logger.warn('odd fields', { offset: 12345678901234567890n, circular })).not.toThrow();
    expect(() => logger.child({ big: 1n, circular }).info('child with odd fields')).not.toThrow();
    const [first, second] = parsed();
    expect(String(first!.offset)).toMatch(/^1234567890123456/);
    expect(first!.circular).toMatchObject({ name: 'loop' });
    expect(JSON.stringify(first!.circular)).toContain('[Circular]');
    expect(second!.msg).toBe('child with odd fields');
  });

  it('redacts credentials passed as fields, at the top and one level down', () => {
    const { logger, lines, parsed } = capture();
    logger.info('connection', {
      secretAccessKey: 'AKIA-very-secret',
      s3: { endpoint: 'http://s3', secretAccessKey: 'nested-secret' },
      apiKey: 'prk_x',
    });
    expect(lines[0]).not.toContain('very-secret');
    expect(lines[0]).not.toContain('nested-secret');
    expect(lines[0]).not.toContain('prk_x');
    expect(parsed()[0]).toMatchObject({
      secretAccessKey: REDACTED,
      s3: { endpoint: 'http://s3', secretAccessKey: REDACTED },
      apiKey: REDACTED,
    });
  });

  it('writes nothing below its level', () => {
    const { logger, lines } = capture('warn');
    logger.debug('no');
    logger.info('no');
    logger.warn('yes');
    logger.error('yes');
    expect(lines.map((l) => (JSON.parse(l) as { level: string }).level)).toEqual(['warn', 'error']);
  });
});
