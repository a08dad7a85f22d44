import type { Message, TopicMessages } from 'kafkajs';
import { AppendNeverSent, logUnavailable } from '@pressroom/domain';
import type { LogPosition } from '@pressroom/core';

const MAX_BATCH_BYTES = 512 * 1024;

interface PendingAppend {
  topic: string;
  messages: Message[];
  settled: boolean;
  /** Handed to the client: from here on it may be written, whatever happens to its promise. */
  onWire: boolean;
  timer: NodeJS.Timeout;
  resolve(positions: LogPosition[]): void;
  reject(error: unknown): void;
}

/** What the broker acknowledged for one partition of a batch: the offset of its first record. */
export interface PartitionBase {
  topic: string;
  partition: number;
  baseOffset: string;
}

export interface AppendQueueOptions {
  /**
   * Sends one batch: gets ready for `topics` (topics, connection), then calls `wire()` in the
   * same tick as it hands what `wire` returned to the client, and gives every message its
   * `partition` before that. Resolves, once the broker acknowledged all of it, with the base
   * offset of each topic-partition written. `wire` returns the appends whose deadline has not
   * passed (an expired one is dropped, never sent); when it returns none, nothing is sent.
   */
  send(topics: string[], wire: () => TopicMessages[]): Promise<PartitionBase[]>;
  /** Each append settles within this bound, acknowledged or not. */
  timeoutMs: number;
}

/**
 * Serialises appends onto the producer: one send in flight at a time, carrying every append
 * queued meanwhile. Appends therefore keep their order, and kafkajs's idempotent producer is
 * never driven by concurrent sends (which loses or rejects records: tulios/kafkajs#598, #1005).
 *
 * Each append has its own deadline. One that expires before its batch was handed to the client
 * (queued, or while the batch waited for a connection) is dropped and never sent (its error's
 * cause is AppendNeverSent: certain, as the hand-over checks the deadline in the same tick);
 * one that expires once its batch is on the wire is rejected but may still be written later
 * (the ingress withdraws such a request). An acknowledged append resolves with its positions.
 */
export class AppendQueue {
  private pending: PendingAppend[] = [];
  private active = false;
  private closed = false;

  private readonly opts: AppendQueueOptions;
  constructor(opts: AppendQueueOptions) {
    this.opts = opts;
  }

  append(topic: string, messages: Message[]): Promise<LogPosition[]> {
    if (this.closed) return Promise.reject(logUnavailable(new AppendNeverSent('the event log is closed')));
    return new Promise<LogPosition[]>((resolve, reject) => {
      const item: PendingAppend = {
        topic,
        messages,
        settled: false,
        onWire: false,
        timer: setTimeout(() => {
          // Not handed to the client yet: dropped, never sent. On the wire: maybe written.
          const cause = item.onWire
            ? new Error(`append not acknowledged within ${this.opts.timeoutMs} ms`)
            : new AppendNeverSent(`append not sent within ${this.opts.timeoutMs} ms (the log did not take earlier ones)`);
          this.settle(item, { error: logUnavailable(cause) });
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
    for (const item of this.pending.splice(0)) this.settle(item, { error: logUnavailable(new AppendNeverSent('the event log is closed')) });
  }

  private settle(item: PendingAppend, outcome: { error: unknown } | { positions: LogPosition[] }): void {
    if (item.settled) return;
    item.settled = true;
    clearTimeout(item.timer);
    if ('positions' in outcome) item.resolve(outcome.positions);
    else item.reject(outcome.error);
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
    let sent: PendingAppend[] = [];
    const wire = (): TopicMessages[] => {
      sent = batch.filter((item) => !item.settled);
      const byTopic = new Map<string, Message[]>();
      for (const item of sent) {
        item.onWire = true;
        const messages = byTopic.get(item.topic) ?? [];
        messages.push(...item.messages);
        byTopic.set(item.topic, messages);
      }
      return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
    };
    let bases: PartitionBase[];
    try {
      bases = await this.opts.send([...new Set(batch.map((b) => b.topic))], wire);
    } catch (e) {
      // Before the hand-over (topics, connection): nothing was sent. After: maybe written.
      for (const item of batch) this.settle(item, { error: logUnavailable(item.onWire ? e : new AppendNeverSent(String(e))) });
      return;
    }
    // Offsets: a partition's records of one batch are written in the batch's order from its base.
    const next = new Map(bases.map((b) => [`${b.topic}\u0000${b.partition}`, BigInt(b.baseOffset)]));
    for (const item of sent) {
      const positions: LogPosition[] = [];
      for (const m of item.messages) {
        const key = `${item.topic}\u0000${String(m.partition)}`;
        const offset = next.get(key);
        if (offset === undefined || m.partition === undefined) {
          this.settle(item, { error: logUnavailable(new Error(`the broker acknowledged no offset for ${key}`)) });
          break;
        }
        positions.push({ partition: m.partition, offset: String(offset) });
        next.set(key, offset + 1n);
      }
      this.settle(item, { positions });
    }
  }
}
