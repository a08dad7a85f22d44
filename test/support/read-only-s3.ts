import { request } from 'node:http';
import { listenOnLoopback, type LoopbackServer } from './loopback-server.ts';

/**
 * A bucket that refuses writes: an HTTP relay in front of the real S3 server that passes reads
 * (GET, HEAD, listings) through unchanged and answers every write (PUT, POST, DELETE) with S3's
 * own `403 AccessDenied`, as a bucket policy denying s3:PutObject would. The credentials are
 * valid and the bucket exists: only the write is refused, which is what a connection's test
 * write must find.
 */
export async function startReadOnlyS3(upstream: string): Promise<{ url: string; writesRefused: string[]; close(): Promise<void> }> {
  const up = new URL(upstream);
  const writesRefused: string[] = [];
  const server: LoopbackServer = await listenOnLoopback((req, res) => {
    if (req.method === 'PUT' || req.method === 'POST' || req.method === 'DELETE') {
      writesRefused.push(`${req.method} ${(req.url ?? '').split('?')[0]}`);
      req.resume();
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message>' +
          '<RequestId>read-only-relay</RequestId></Error>',
      );
      return;
    }
    const forward = request({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  return { url: `http://127.0.0.1:${server.port}`, writesRefused, close: () => server.close() };
}
