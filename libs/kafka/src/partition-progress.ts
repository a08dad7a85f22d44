/**
 * What one member has taken from one partition, so it can run records out of order and still
 * commit in order: the position to commit is the lowest record taken and not finished, or,
 * when none is open, the one after the last record taken. Offsets are bigint (Kafka's exceed
 * 2^53) and need not be contiguous (compaction, transaction markers).
 */
export class PartitionProgress {
  /** The offset after the last record taken; undefined before the first. */
  #next: bigint | undefined;
  readonly #open = new Set<bigint>();
  readonly #keys = new Set<string>();
  #committed: bigint | undefined;

  /**
   * Whether the record was already taken by this member (a redelivery after a rejoin, which
   * restarts from the committed position): it is running or done here, so it is skipped.
   */
  seen(offset: bigint): boolean {
    return this.#next !== undefined && offset < this.#next;
  }

  /** Whether a record of this key is running: the next one of that key waits (per-key order). */
  keyBusy(key: string): boolean {
    return this.#keys.has(key);
  }

  take(offset: bigint, key: string): void {
    if (this.seen(offset)) throw new Error(`offset ${offset} was taken already`);
    this.#next = offset + 1n;
    this.#open.add(offset);
    this.#keys.add(key);
  }

  /** The record's handler resolved: it no longer holds the committed position back. */
  finish(offset: bigint, key: string): void {
    this.#open.delete(offset);
    this.#keys.delete(key);
  }

  /** The handler gave up (stopping): the record stays open, so the position stays at or before it. */
  release(key: string): void {
    this.#keys.delete(key);
  }

  /** The position to commit (Kafka's meaning: the next record to read), or undefined when nothing changed since the last commit. */
  toCommit(): bigint | undefined {
    if (this.#next === undefined) return undefined;
    let low = this.#next;
    for (const offset of this.#open) if (offset < low) low = offset;
    return low === this.#committed ? undefined : low;
  }

  committed(position: bigint): void {
    this.#committed = position;
  }

  get openCount(): number {
    return this.#open.size;
  }
}
