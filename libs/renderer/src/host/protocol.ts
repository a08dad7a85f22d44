import type { RenderJob } from '@pressroom/core';
import type { PngEncoding } from '../png-capture.ts';

/**
 * Messages between the supervisor (supervised-renderer.ts) and the renderer host process
 * (renderer-host.ts), over the IPC channel of child_process.fork with `advanced` serialization,
 * so the file bytes travel as a Uint8Array (no base64).
 */

/** What the host needs to build its PlaywrightRenderer: plain data only. */
export interface HostSettings {
  executablePath: string;
  pages: number;
  recycleAfter: number;
  allowedHosts: string[];
  /** Allowed hosts may resolve to private (not loopback or metadata) addresses. */
  allowPrivateHosts: boolean;
  maxOutputBytes: number;
  /** Largest PNG in pixels; undefined: the renderer's default. */
  maxPngPixels?: number;
  /** How PNG output is compressed; undefined: the renderer's default. */
  pngEncoding?: PngEncoding;
  sandbox: boolean;
  /** The host's private directory (HOME, TMPDIR); the host removes it itself when orphaned. */
  dir: string;
}

/** A job as it crosses the channel: the assets stay with the supervisor and are asked for by name. */
export type WireJob = Omit<RenderJob, 'assets'>;

export type ToHost =
  | { t: 'start'; settings: HostSettings }
  | { t: 'render'; id: number; job: WireJob; hasAssets: boolean }
  | { t: 'asset'; reqId: number; asset: { bytes: Uint8Array; contentType: string } | null }
  | { t: 'ping'; id: number }
  | { t: 'close' };

export type FromHost =
  | { t: 'ready'; pid: number; sandbox: boolean }
  // pagesReplaced: the host pool's count of pages replaced so far (recycled after recycleAfter
  // jobs, spoiled by a job, or a reset that failed), as of this answer.
  | { t: 'rendered'; id: number; bytes: Uint8Array; contentType: string; html?: string; pagesReplaced?: number }
  | { t: 'failed'; id: number; code: string; message: string; pagesReplaced?: number }
  | { t: 'asset?'; reqId: number; jobId: number; name: string }
  | { t: 'pong'; id: number; error?: string }
  | { t: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; msg: string; fields?: Record<string, unknown> };

/** Exit status of a host that hit an error it cannot vouch for the state after. */
export const HOST_FAULT_EXIT = 70;
