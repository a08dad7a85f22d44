// Probes for browser state that one render could leave for another: used by the renderer's
// integration tests and by the e2e tests over HTTP.

/** The reserved origin of tenant assets (ASSET_ORIGIN in @pressroom/core). */
const ASSET_ORIGIN = 'https://assets.pressroom.invalid';

/** The kinds of browser state a page of one origin can leave behind for a later document. */
export const STORAGE_KINDS = ['localStorage', 'sessionStorage', 'indexedDB', 'cacheStorage', 'cookie'] as const;
/**
 * What a framed document of the assets origin can write: the page around it has an opaque origin,
 * so the frame is no secure context and has no Cache Storage (only a top-level document has).
 */
export const FRAMED_STORAGE_KINDS = ['localStorage', 'sessionStorage', 'indexedDB', 'cookie'] as const;
export type StorageKind = (typeof STORAGE_KINDS)[number];

/**
 * Script (run in a document of the assets origin) that writes `secret` into every storage kind,
 * then tells the parent page "written".
 */
const WRITE = (secret: string) => `
(async () => {
  const s = ${JSON.stringify(secret)};
  const done = [];
  try { localStorage.setItem('probe', s); done.push('localStorage'); } catch (e) {}
  try { sessionStorage.setItem('probe', s); done.push('sessionStorage'); } catch (e) {}
  try { document.cookie = 'probe=' + s + '; Secure; SameSite=None; Max-Age=3600; Path=/'; done.push('cookie'); } catch (e) {}
  try {
    await new Promise((resolve, reject) => {
      const open = indexedDB.open('probe', 1);
      open.onupgradeneeded = () => open.result.createObjectStore('kv');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const tx = open.result.transaction('kv', 'readwrite');
        tx.objectStore('kv').put(s, 'probe');
        tx.oncomplete = () => { open.result.close(); resolve(); };
        tx.onerror = () => reject(tx.error);
      };
    });
    done.push('indexedDB');
  } catch (e) {}
  try { const c = await caches.open('probe'); await c.put('/probe', new Response(s)); done.push('cacheStorage'); } catch (e) {}
  report('written:' + done.join(','));
})();`;

/** Script that reads every storage kind and posts what it found to the parent page. */
const READ = `
(async () => {
  const found = {};
  try { found.localStorage = localStorage.getItem('probe'); } catch (e) { found.localStorage = 'error'; }
  try { found.sessionStorage = sessionStorage.getItem('probe'); } catch (e) { found.sessionStorage = 'error'; }
  try { found.cookie = (document.cookie.match(/probe=([^;]*)/) || [])[1] || null; } catch (e) { found.cookie = 'error'; }
  try {
    found.indexedDB = await new Promise((resolve) => {
      const open = indexedDB.open('probe');
      open.onerror = () => resolve('error');
      open.onsuccess = () => {
        const db = open.result;
        if (!db.objectStoreNames.contains('kv')) { db.close(); return resolve(null); }
        const get = db.transaction('kv').objectStore('kv').get('probe');
        get.onsuccess = () => { db.close(); resolve(get.result === undefined ? null : get.result); };
        get.onerror = () => { db.close(); resolve('error'); };
      };
    });
  } catch (e) { found.indexedDB = 'error'; }
  try {
    const c = await caches.open('probe');
    const r = await c.match('/probe');
    found.cacheStorage = r ? await r.text() : null;
  } catch (e) { found.cacheStorage = 'error'; }
  report('read:' + JSON.stringify(found));
})();`;

/** Framed, the probe posts its result to the page around it; top-level, it keeps it in window.probeResult. */
const REPORT = `function report(msg) { window.probeResult = msg; if (parent !== window) parent.postMessage(msg, '*'); }`;

/** An SVG document whose script runs when the SVG is framed (as a tenant's scripted asset would). */
export function scriptedSvg(script: string): Uint8Array {
  return new TextEncoder().encode(
    `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script><![CDATA[${REPORT}${script}]]></script></svg>`,
  );
}

export const writerSvg = (secret: string) => scriptedSvg(WRITE(secret));
export const readerSvg = () => scriptedSvg(READ);

/**
 * A page that frames asset `name` and prints what the framed document posts back; ready once it
 * did (readiness expression `window.probeDone`).
 */
export function probePageHtml(name: string): string {
  return (
    '<pre id="out">pending</pre>' +
    `<script>addEventListener('message', (e) => { document.getElementById('out').textContent = String(e.data); window.probeDone = true; });</script>` +
    `<iframe src="${ASSET_ORIGIN}/${name}" width="20" height="20"></iframe>`
  );
}
export const PROBE_READY = { expression: 'window.probeDone === true' } as const;
