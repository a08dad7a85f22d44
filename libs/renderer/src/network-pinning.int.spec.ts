import { silentLogger } from '@pressroom/core';
import { chromium, type Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs } from './chromium-args.ts';
import { resolveChromiumPath } from './chromium-path.ts';
import { createPlaywrightRenderer, type PlaywrightRenderer } from './index.ts';
import { guardNetwork, type LookupAll } from './network-guard.ts';
import { NetworkPolicy } from './network-policy.ts';
import { htmlSource } from './test-support/fixtures.ts';
import { pdfText } from './test-support/poppler.ts';
import { loopbackName, privateInterfaceAddress, selfSignedCertificate, startTlsHost, type TlsHost } from './test-support/tls-host.ts';

// Issue 7: an allowed host's name is resolved once per hop, vetted, and the fetch dials that
// address (pinned). A DNS server that answers a good address first and loopback afterwards
// (rebinding) must not get a single connection through to loopback.
//
// The allowed name is one the system resolver maps to loopback, and a loopback canary listens on
// the port the page asks for: a fetch that resolved the name again by any means (our resolver or
// the system's) would reach the canary. The test resolver stands for the hostile DNS server.

/** Answers each list in turn, then repeats the last: [first answer, every later answer]. */
function scriptedResolver(...initial: string[][]): LookupAll & { calls(): number; script(...answers: string[][]): void } {
  let answers = initial;
  let calls = 0;
  const lookup = async () => answers[Math.min(calls++, answers.length - 1)] ?? [];
  return Object.assign(lookup, {
    calls: () => calls,
    script: (...next: string[][]) => {
      answers = next;
      calls = 0;
    },
  });
}

const fetchIntoPage = (url: string) =>
  `<p id="r">pending</p><script>fetch(${JSON.stringify(url)}).then((r) => r.text()).then(` +
  `(t) => { document.getElementById("r").textContent = "got " + t }, ` +
  `() => { document.getElementById("r").textContent = "refused" })</script>`;

describe('allowed-host fetches are pinned to the vetted address', () => {
  let name: string;
  let loopback: string;
  let cert: { cert: string; key: string };
  let canary: TlsHost;

  beforeAll(async () => {
    ({ name, address: loopback } = await loopbackName());
    cert = selfSignedCertificate([name]);
    // The canary speaks TLS with a certificate the fetch trusts: a fetch that got there would succeed.
    canary = await startTlsHost({ address: loopback, port: 0, cert, body: 'CANARY-SECRET' });
  });
  afterAll(async () => {
    await canary?.close();
  });

  describe('in the network guard', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: resolveChromiumPath(), args: chromiumArgs() });
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('never connects to loopback when the name answered a public address when vetted and loopback afterwards', async () => {
      // Given an allowed name whose DNS answers a public address once, then loopback
      const resolver = scriptedResolver(['93.184.216.34'], [loopback]);
      const context = await browser.newContext();
      await guardNetwork(context, {
        policy: new NetworkPolicy([name]),
        logger: silentLogger,
        lookup: resolver,
        fetchTimeoutMs: 2_000,
        extraCa: [cert.cert],
      });
      const page = await context.newPage();
      const before = canary.connections();

      // When a page fetches it
      await page.setContent(fetchIntoPage(`https://${name}:${canary.port}/secret`));
      await page.waitForFunction(() => document.getElementById('r')?.textContent !== 'pending', null, { timeout: 20_000 });

      // Then the fetch went to the vetted public address (unreachable here) and failed: the page
      // got nothing, the name was resolved once, and the loopback canary saw no connection at all
      expect(await page.textContent('#r')).toBe('refused');
      expect(resolver.calls()).toBe(1);
      expect(canary.connections() - before).toBe(0);
      await context.close();
    });
  });

  describe('in a render', () => {
    let renderer: PlaywrightRenderer;
    let allowed: TlsHost;
    let resolver: ReturnType<typeof scriptedResolver>;
    let internal: string;

    beforeAll(async () => {
      // The allowed host is a real server on this machine's private interface address, on the same
      // port as the loopback canary; the operator opened private addresses (never loopback).
      internal = privateInterfaceAddress();
      allowed = await startTlsHost({
        address: internal,
        port: canary.port,
        cert,
        body: 'ALLOWED-CONTENT',
        redirects: { '/hop': `https://${name}:${canary.port}/after-hop.txt` },
      });
      resolver = scriptedResolver([internal], [loopback]);
      renderer = await createPlaywrightRenderer({
        pages: 1,
        recycleAfter: 50,
        maxOutputBytes: 2_000_000,
        allowedHosts: [name],
        allowPrivateHosts: true,
        fetching: { lookup: resolver, extraCa: [cert.cert] },
      });
    });
    afterAll(async () => {
      await renderer?.close();
      await allowed?.close();
    });

    it('renders what the allowed host served, from the vetted address, under its own name, while rebinding points at loopback', async () => {
      // Given the allowed name resolves to the internal server once, then to loopback
      const before = canary.connections();

      // When a page fetches from it during a render
      const out = await renderer.render({
        source: htmlSource(fetchIntoPage(`https://${name}:${canary.port}/asset.txt`)),
        output: 'pdf',
        ready: { expression: 'document.getElementById("r").textContent !== "pending"' },
        timeoutMs: 20_000,
      });

      // Then the PDF holds the allowed host's answer; the server saw one request that named the
      // host (TLS SNI and Host header), and the canary on loopback saw nothing
      expect(await pdfText(out.bytes)).toContain('got ALLOWED-CONTENT');
      expect(allowed.hits()).toEqual([{ path: '/asset.txt', host: `${name}:${canary.port}`, servername: name }]);
      expect(resolver.calls()).toBe(1);
      expect(canary.connections() - before).toBe(0);
    });

    it('vets every redirect hop again: a hop whose name now answers loopback is refused', async () => {
      // Given the allowed name answers the internal server for the first hop, loopback afterwards
      resolver.script([internal], [loopback]);
      const before = canary.connections();
      const hitsBefore = allowed.hits().length;

      // When a page fetches a URL that redirects to the same name
      const out = await renderer.render({
        source: htmlSource(fetchIntoPage(`https://${name}:${canary.port}/hop`)),
        output: 'pdf',
        ready: { expression: 'document.getElementById("r").textContent !== "pending"' },
        timeoutMs: 20_000,
      });

      // Then the first hop was fetched, the second resolved again, refused, and never dialled
      expect(await pdfText(out.bytes)).toContain('refused');
      expect(
        allowed
          .hits()
          .slice(hitsBefore)
          .map((h) => h.path),
      ).toEqual(['/hop']);
      expect(resolver.calls()).toBe(2);
      expect(canary.connections() - before).toBe(0);
    });

    it('still refuses loopback for an allowed host when private addresses are open', async () => {
      // Given the name resolves to loopback from the start
      resolver.script([loopback]);
      const before = canary.connections();
      const hitsBefore = allowed.hits().length;

      // When a page fetches from it
      const out = await renderer.render({
        source: htmlSource(fetchIntoPage(`https://${name}:${canary.port}/again.txt`)),
        output: 'pdf',
        ready: { expression: 'document.getElementById("r").textContent !== "pending"' },
        timeoutMs: 20_000,
      });

      // Then the fetch is refused before any connection is made
      expect(await pdfText(out.bytes)).toContain('refused');
      expect(canary.connections() - before).toBe(0);
      expect(allowed.hits().length).toBe(hitsBefore);
    });
  });
});
