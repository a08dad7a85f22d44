import kafkajs, { type logCreator } from 'kafkajs';
import type { Logger } from '@pressroom/core';

const { logLevel } = kafkajs;

/**
 * kafkajs's retry settings, spelled out: its defaults change when NODE_ENV is "test"
 * (vitest sets it), and tests must see the behaviour production gets.
 */
export const KAFKA_RETRY = { initialRetryTime: 300, maxRetryTime: 30_000, factor: 0.2, multiplier: 2, retries: 5 };

/** Routes kafkajs's own log lines (WARN and above by default) into our structured Logger. */
export function kafkajsLogCreator(logger: Logger): logCreator {
  const log = logger.child({ component: 'kafkajs' });
  return () =>
    ({ namespace, level, log: entry }) => {
      const { message, ...fields } = entry;
      const text = `kafkajs ${namespace}: ${String(message)}`;
      const extra: Record<string, unknown> = { ...fields, namespace };
      delete extra.timestamp;
      delete extra.logger;
      if (level === logLevel.ERROR) log.error(text, extra);
      else if (level === logLevel.WARN) log.warn(text, extra);
      else if (level === logLevel.INFO) log.info(text, extra);
      else log.debug(text, extra);
    };
}
