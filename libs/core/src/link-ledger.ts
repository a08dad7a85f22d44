import type { LinkChannel, LinkIssued } from '@pressroom/schemas';
import type { EventLog, TopicNames } from './ports/event-log.ts';
import type { Logger } from './ports/logger.ts';
import type { EventFactory } from './event-factory.ts';

/** One signed link handed out: whose render, which file, where, for how long. Never the URL. */
export interface IssuedLink {
  requestId: string;
  tenantId: string;
  where: LinkChannel;
  file: LinkIssued['data']['file'];
  expiresInSeconds: number;
}

/** Why `LinkIssued` events were lost: the buffer was full, or their append failed. */
export type LinkDropReason = 'buffer_full' | 'append_failed';

export interface LinkLedger {
  /** Records a link (never waits, never throws): buffered, appended with the next batch. */
  issued(link: IssuedLink): void;
  /** Appends what is buffered now; resolves when that append ended (failed appends are dropped, logged, counted). */
  flush(): Promise<void>;
  /** Flushes and stops taking links (later ones are dropped silently): at shutdown, before the log closes. */
  close(): Promise<void>;
}

export interface LinkLedgerDeps {
  log: EventLog;
  topics: TopicNames;
  event: EventFactory;
  logger: Logger;
  /** Counts events lost (a metric); the request that handed the link out never notices. */
  onDropped?: (reason: LinkDropReason, count: number) => void;
  /** Events held at most while an append is in flight; more are dropped (bounded memory under a log outage). */
  maxBuffered?: number;
  /** Events per append. */
  batchSize?: number;
  /**
   * How long the first link of a batch waits for others before the batch is appended (default 0:
   * the next macrotask). Each append is a produce, and a record every reader of its topic fetches
   * (the webhook dispatcher): gathering a few hundred milliseconds makes one of many links handed
   * out meanwhile. What a crash loses grows by as much (the trade-off above).
   */
  gatherMs?: number;
}

/**
 * The audit trail of signed links (`LinkIssued` on the webhooks topic), written off the request
 * path: `issued` only buffers; one append at a time carries everything buffered, started in the
 * next macrotask (or `gatherMs` later), so a burst of requests shares one append. The trade-off (ARCHITECTURE.md): a
 * failed append or a crash loses those audit events (logged and counted), never a user's answer,
 * which would otherwise wait for, or fail with, the log.
 */
export function createLinkLedger(deps: LinkLedgerDeps): LinkLedger {
  const maxBuffered = deps.maxBuffered ?? 10_000;
  const batchSize = deps.batchSize ?? 500;
  const gatherMs = deps.gatherMs ?? 0;
  let buffer: LinkIssued[] = [];
  let running: Promise<void> | undefined;
  let scheduled = false;
  let closed = false;

  const dropped = (reason: LinkDropReason, count: number) => {
    if (count > 0) deps.onDropped?.(reason, count);
  };

  async function drain(): Promise<void> {
    while (buffer.length) {
      const batch = buffer.slice(0, batchSize);
      buffer = buffer.slice(batch.length);
      try {
        await deps.log.append(deps.topics.webhooks, batch);
      } catch (err) {
        dropped('append_failed', batch.length);
        deps.logger.warn('signed-link audit events could not be appended; they are lost (the links were handed out)', {
          events: batch.length,
          err,
        });
      }
    }
  }

  function run(): Promise<void> {
    running ??= drain().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    issued(link) {
      if (closed) return;
      if (buffer.length >= maxBuffered) return dropped('buffer_full', 1);
      const event = deps.event('LinkIssued', link, { where: link.where, file: link.file, expiresAt: '' });
      // The link lives expiresInSeconds from when it was handed out (the event's time).
      event.data.expiresAt = new Date(Date.parse(event.occurredAt) + link.expiresInSeconds * 1000).toISOString();
      buffer.push(event);
      if (!scheduled) {
        scheduled = true;
        const start = () => {
          scheduled = false;
          void run();
        };
        // Unref'd: a process that stops flushes the buffer itself (close), it never waits for the timer.
        if (gatherMs > 0) setTimeout(start, gatherMs).unref();
        else setImmediate(start);
      }
    },
    async flush() {
      // An append in flight first, then whatever arrived meanwhile.
      if (running) await running;
      await run();
    },
    async close() {
      closed = true;
      await this.flush();
    },
  };
}
