import { request as httpsRequest, type RequestOptions } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';

/** One request a page made to an allowed host, to be sent to an address already vetted. */
export interface PinnedRequest {
  url: URL;
  /**
   * The vetted addresses: the socket dials these and nothing else, whatever DNS says by now
   * (several when the name had several, so Node can fall back from one family to the other).
   */
  addresses: readonly string[];
  method: string;
  headers: Record<string, string>;
  body?: Buffer | undefined;
  /** Whole exchange, connect to last byte. */
  timeoutMs: number;
  /** Largest body handed to the page, after decompression. */
  maxBytes: number;
  /** Extra trust roots, added to Node's (tests; deployments use NODE_EXTRA_CA_CERTS). */
  extraCa?: readonly string[] | undefined;
}

export interface FetchedResource {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** PinnedFetchError happens when the fetch fails, times out or exceeds its size bound. */
export class PinnedFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PinnedFetchError';
  }
}

/**
 * Headers a page may not choose for us (the connection is ours), or that would carry state across
 * the boundary: cookies are neither sent to nor accepted from allowed hosts.
 */
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'accept-encoding',
  'cookie',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
]);
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'set-cookie',
  'set-cookie2',
  'trailer',
  'upgrade',
]);

/**
 * Fetches over https from the vetted address only: the socket's lookup answers that address, so
 * the TLS name (SNI, certificate check) and the Host header stay the URL's name while no second
 * DNS answer can move the connection elsewhere (DNS rebinding). Bounded in time and size; the
 * body is decompressed here (bounded too), so the page receives plain bytes.
 */
export function pinnedFetch(req: PinnedRequest): Promise<FetchedResource> {
  const vetted = req.addresses.map((address) => ({ address, family: isIP(address) }));
  if (vetted.length === 0 || vetted.some((a) => a.family === 0)) {
    return Promise.reject(new PinnedFetchError(`not addresses: ${req.addresses.join(', ')}`));
  }
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, vetted);
    else callback(null, vetted[0]!.address, vetted[0]!.family);
  };
  const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br' };
  for (const [name, value] of Object.entries(req.headers)) {
    // HTTP/2 pseudo-headers (`:authority`) are the browser's, not headers we could send.
    if (!name.startsWith(':') && !DROPPED_REQUEST_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  if (req.body && req.body.length > 0) headers['content-length'] = String(req.body.length);
  const options: RequestOptions = {
    method: req.method,
    headers,
    lookup,
    agent: false,
    ...(req.extraCa && req.extraCa.length > 0 ? { ca: [...rootCertificates, ...req.extraCa] } : {}),
  };

  return new Promise<FetchedResource>((resolve, reject) => {
    let settled = false;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(new PinnedFetchError(message));
    };
    const timer = setTimeout(() => fail(`no complete answer within ${req.timeoutMs} ms`), req.timeoutMs);
    const request = httpsRequest(req.url, options, (res) => {
      const body = decoded(res, res.headers['content-encoding']);
      if (!body) return fail(`unsupported content-encoding ${String(res.headers['content-encoding'])}`);
      const chunks: Buffer[] = [];
      let size = 0;
      body.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > req.maxBytes) {
          body.destroy();
          fail(`answer larger than ${req.maxBytes} bytes`);
        } else chunks.push(chunk);
      });
      body.on('error', (err) => fail(err.message));
      body.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 502, headers: responseHeaders(res.headers), body: Buffer.concat(chunks) });
      });
    });
    request.on('error', (err: NodeJS.ErrnoException) => fail(err.code ?? err.message));
    request.end(req.body && req.body.length > 0 ? req.body : undefined);
  });
}

/** The body stream as the page should see it, or undefined for an encoding we do not decode. */
function decoded(res: Readable, encoding: string | undefined): Readable | undefined {
  const name = (encoding ?? 'identity').trim().toLowerCase();
  if (name === 'identity' || name === '') return res;
  const decoder =
    name === 'gzip' || name === 'x-gzip'
      ? createGunzip()
      : name === 'deflate'
        ? createInflate()
        : name === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return undefined;
  res.on('error', (err) => decoder.destroy(err));
  return res.pipe(decoder);
}

function responseHeaders(raw: NodeJS.Dict<string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
