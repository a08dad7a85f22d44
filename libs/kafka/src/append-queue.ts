import type { Message, TopicMessages } from 'kafkajs';
import { AppendNeverSent, logUnavailable } from '@pressroom/domain';

const MAX_BATCH_BYTES = 512 * 1024;

interface PendingAppend {
  topic: string;
  messages: Message[];
  settled: boolean;
  timer: NodeJS.Timeout;
  resolve(): void;
  reject(error: unknown): void;
}

export interface AppendQueueOptions {
  /** Sends one batch and resolves when the broker acknowledged all of it. */
  send(batch: TopicMessages[]): Promise<void>;
  /** Each append settles within this bound, acknowledged or not. */
  timeoutMs: number;
}

/**
 * Serialises appends onto the producer: one send in flight at a time, carrying every append
 * queued meanwhile. Appends therefore keep their order, and kafkajs's idempotent producer is
 * never driven by concurrent sends (which loses or rejects records: tulios/kafkajs#598, #1005).
 *
 * Each append has its own deadline. One that expires while queued is dropped and never sent
 * (its error's cause is AppendNeverSent); one that expires while its batch is in flight is
 * rejected but may still be written later (the ingress withdraws such a request).
 */
export class AppendQueue {
  private pending: PendingAppend[] = [];
  private active = false;
  private closed = false;

  constructor(private readonly opts: AppendQueueOptions) {}

  append(topic: string, messages: Message[]): Promise<void> {
    if (this.closed) return Promise.reject(logUnavailable(new AppendNeverSent('the event log is closed')));
    return new Promise<void>((resolve, reject) => {
      const item: PendingAppend = {
        topic,
        messages,
        settled: false,
        timer: setTimeout(() => {
          // Still queued: dropped, never sent. In flight: maybe written.
          const cause = this.pending.includes(item)
            ? new AppendNeverSent(`append not sent within ${this.opts.timeoutMs} ms (the log did not take earlier ones)`)
            : new Error(`append not acknowledged within ${this.opts.timeoutMs} ms`);
          this.settle(item, logUnavailable(cause));
        }, this.opts.timeoutMs),
        resolve,
        reject,
      };
      this.pending.push(item);
      if (!this.active) {
        this.active = true;
        void this.loop();
      }
    });
  }

  /** Rejects what is still queued; a batch in flight settles by itself or by its deadline. */
  close(): void {
    this.closed = true;
    for (const item of this.pending.splice(0)) this.settle(item, logUnavailable(new AppendNeverSent('the event log is closed')));
  }

  private settle(item: PendingAppend, error?: unknown): void {
    if (item.settled) return;
    item.settled = true;
    clearTimeout(item.timer);
    if (error === undefined) item.resolve();
    else item.reject(error);
  }

  /** `active` is cleared in the same tick as the last check of the queue. */
  private async loop(): Promise<void> {
    try {
      while (this.pending.length > 0) await this.sendBatch(this.takeBatch());
    } finally {
      this.active = false;
    }
  }

  /**
   * Takes queued appends up to about MAX_BATCH_BYTES of values (at least one append), so a
   * burst does not build a request the broker refuses as too large.
   */
  private takeBatch(): PendingAppend[] {
    let bytes = 0;
    let count = 0;
    while (count < this.pending.length && (count === 0 || bytes < MAX_BATCH_BYTES)) {
      for (const m of (this.pending[count] as PendingAppend).messages) bytes += m.value?.length ?? 0;
      count += 1;
    }
    return this.pending.splice(0, count).filter((p) => !p.settled);
  }

  private async sendBatch(batch: PendingAppend[]): Promise<void> {
    if (batch.length === 0) return;
    const byTopic = new Map<string, Message[]>();
    for (const item of batch) {
      const messages = byTopic.get(item.topic) ?? [];
      messages.push(...item.messages);
      byTopic.set(item.topic, messages);
    }
    try {
      await this.opts.send([...byTopic].map(([topic, messages]) => ({ topic, messages })));
    } catch (e) {
      for (const item of batch) this.settle(item, logUnavailable(e));
      return;
    }
    for (const item of batch) this.settle(item);
  }
}
