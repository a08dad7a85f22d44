import { uuidv7 } from 'uuidv7';

export interface Clock {
  now(): Date;
}
export interface Ids {
  /** UUIDv7: time-ordered, so ids sort by issue time in logs and keys. */
  next(): string;
}

export const systemClock: Clock = { now: () => new Date() };
export const uuidV7Ids: Ids = { next: () => uuidv7() };
