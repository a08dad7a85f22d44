/**
 * The renderer host: a child process that owns one PlaywrightRenderer (and its Chromium) for a
 * supervisor (supervised-renderer.ts). Anything that goes wrong in here — a Playwright callback
 * that throws outside our handlers, a hang, the OOM killer — ends this process only; the
 * supervisor fails the jobs it had with RENDER_CRASHED and starts a new one.
 *
 * Policy for errors nobody caught: the renderer's state is unknown after one, so the host logs
 * it and exits with HOST_FAULT_EXIT rather than serve on in a state nobody can vouch for.
 */
import { rm } from 'node:fs/promises';
import { RenderFailure, type AssetSource, type Logger, type RenderJob } from '@pressroom/core';
import { createPlaywrightRenderer, type PlaywrightRenderer } from '../playwright-renderer.ts';
import { HOST_FAULT_EXIT, type FromHost, type HostSettings, type ToHost } from './protocol.ts';

// Stack traces without source maps. Playwright captures a stack trace at every API call (several
// per job); with source maps on (tsx's loader turns them on, on Node 20) each of those was mapped
// through Node's source map support, a tenth of this process's CPU per render (issue 13). The
// host sends only an error's name and first line (see plain and fault), never a stack.
process.setSourceMapsEnabled(false);

function send(msg: FromHost): void {
  if (!process.connected) return;
  try {
    process.send?.(msg);
  } catch {
    /* the supervisor is gone: 'disconnect' ends this process */
  }
}

function plain(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!fields) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    out[k] = v instanceof Error ? { name: v.name, message: v.message.split('\n')[0] } : v;
  }
  return out;
}

function ipcLogger(base: Record<string, unknown> = {}): Logger {
  const at = (level: 'debug' | 'info' | 'warn' | 'error') => (msg: string, fields?: Record<string, unknown>) =>
    send({ t: 'log', level, msg, fields: plain({ ...base, ...fields }) ?? {} });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (f) => ipcLogger({ ...base, ...f }) };
}

const logger = ipcLogger();
let renderer: PlaywrightRenderer | undefined;
let ownDir: string | undefined;
let closing = false;
let nextAssetReq = 1;
const assetReplies = new Map<number, (asset: { bytes: Uint8Array; contentType: string } | undefined) => void>();

function fault(kind: string, err: unknown): void {
  const message = err instanceof Error ? `${err.name}: ${err.message.split('\n')[0]}` : String(err);
  process.stderr.write(`renderer host: ${kind}: ${message}\n`);
  logger.error(`renderer host: ${kind}; exiting so the supervisor starts a fresh one`, { err });
  process.exit(HOST_FAULT_EXIT);
}
process.on('uncaughtException', (err) => fault('uncaught exception', err));
process.on('unhandledRejection', (err) => fault('unhandled rejection', err));
// The supervisor died or closed the channel: nobody will read what this process renders, and
// nobody will remove this host's directory either, so the host does it itself.
process.on('disconnect', () => void shutdown({ orphaned: true }));

async function shutdown(opts: { orphaned?: boolean } = {}): Promise<void> {
  if (closing) return;
  closing = true;
  setTimeout(() => process.exit(0), 15_000).unref();
  await renderer?.close().catch(() => {});
  if (opts.orphaned && ownDir) await rm(ownDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
  process.exit(0);
}

async function start(settings: HostSettings): Promise<void> {
  ownDir = settings.dir || undefined;
  try {
    renderer = await createPlaywrightRenderer({ ...settings, logger });
  } catch (err) {
    logger.error('the renderer did not start', { err });
    process.exit(1);
  }
  send({ t: 'ready', pid: process.pid, sandbox: settings.sandbox });
}

function assetsOf(jobId: number): AssetSource {
  return {
    get: (name) =>
      new Promise((resolve) => {
        const reqId = nextAssetReq++;
        assetReplies.set(reqId, resolve);
        send({ t: 'asset?', reqId, jobId, name });
      }),
  };
}

async function render(id: number, wire: RenderJob, hasAssets: boolean): Promise<void> {
  try {
    if (!renderer) throw new Error('the renderer has not started');
    const job: RenderJob = hasAssets ? { ...wire, assets: assetsOf(id) } : wire;
    const out = await renderer.render(job);
    const pagesReplaced = renderer.stats().replaced;
    send({
      t: 'rendered',
      id,
      bytes: out.bytes,
      contentType: out.contentType,
      pagesReplaced,
      ...(out.html !== undefined ? { html: out.html } : {}),
    });
  } catch (err) {
    const pagesReplaced = renderer?.stats().replaced ?? 0;
    if (err instanceof RenderFailure) send({ t: 'failed', id, code: err.code, message: err.message, pagesReplaced });
    else send({ t: 'failed', id, code: 'RENDER_ERROR', message: 'The renderer failed unexpectedly.', pagesReplaced });
  }
}

process.on('message', (raw: unknown) => {
  const msg = raw as ToHost;
  switch (msg?.t) {
    case 'start':
      void start(msg.settings);
      break;
    case 'render':
      void render(msg.id, msg.job, msg.hasAssets);
      break;
    case 'asset': {
      const reply = assetReplies.get(msg.reqId);
      assetReplies.delete(msg.reqId);
      reply?.(msg.asset ?? undefined);
      break;
    }
    case 'ping':
      if (!renderer) send({ t: 'pong', id: msg.id, error: 'not started' });
      else
        renderer.ping().then(
          () => send({ t: 'pong', id: msg.id }),
          (err: unknown) => send({ t: 'pong', id: msg.id, error: err instanceof Error ? err.message : String(err) }),
        );
      break;
    case 'close':
      void shutdown();
      break;
  }
});
