import Type from 'typebox';
import { Bool, Int, optional, slice, splitList, Str } from './setting.ts';

/** The render worker: pages, per-tenant caps, limits of one render, retries, Chromium. */
export const renderSlice = slice({
  env: {
    PRESSROOM_RENDER_TIMEOUT_MS: Int('Time limit of one render.', 60000, 100),
    PRESSROOM_RENDER_PAGES: Int(
      'Warm Chromium pages per render worker (renders at once). One tenant renders on at most pages − 1 of them (see PRESSROOM_RENDER_TENANT_CAPS), so the default lets one tenant render two documents at once and keeps a page for the others.',
      3,
      1,
    ),
    PRESSROOM_RENDER_TENANT_CAPS: Type.String({
      default: 'standard=1,high=2',
      pattern: '^ *([A-Za-z0-9_-]+ *= *[0-9]+ *(, *[A-Za-z0-9_-]+ *= *[0-9]+ *)*)?$',
      description:
        'Renders in flight per tenant and render worker, by plan (`plan=n`, comma-separated). A plan not listed gets the smallest cap listed. Never more than pages − 1 (with more than one page), so one tenant never holds every page.',
    }),
    PRESSROOM_RENDER_READ_AHEAD: Int(
      'Render requests a worker holds per lane (read ahead, waiting for their turn): how far it can look past a tenant at its cap to serve others.',
      64,
      1,
    ),
    PRESSROOM_RENDER_ASYNC_YIELD_MS: Int(
      'How the async lane gives way to sync callers: a render worker starts no async render while a sync render runs or could start, nor for this long after the last one ended (async renders use the time sync traffic leaves idle). 0: the lanes only share out the pages.',
      250,
      0,
    ),
    PRESSROOM_RENDER_ASYNC_YIELD_MAX_MS: Int(
      'The bound on that yield: a sync render holds the async lane only during its first this-many ms, and the async lane is never held longer than this in a row (then one async render starts), so no sync traffic stops the async lane.',
      5000,
      1,
    ),
    PRESSROOM_RENDER_RECYCLE_AFTER: Int('Renders after which a page is replaced.', 200, 1),
    PRESSROOM_RENDER_MAX_OUTPUT_BYTES: Int('Largest file a render may produce.', 50 * 1024 * 1024, 1024),
    PRESSROOM_RENDER_MAX_PNG_PIXELS: Int(
      'Largest PNG a render may produce, in pixels (width x height); a larger one fails with OUTPUT_TOO_LARGE before it is captured.',
      25_000_000,
      1,
    ),
    PRESSROOM_RENDER_PNG_ENCODING: Type.Union([Type.Literal('fast'), Type.Literal('small')], {
      default: 'fast',
      description:
        'How Chromium compresses PNG output: `fast` (its speed-optimized encoding: about a quarter less Chromium CPU per PNG, files about a fifth larger) or `small` (its default compression: smaller files, slower).',
    }),
    PRESSROOM_RENDER_RETRY_BASE_MS: Int(
      'Delay before a render step (storing the file, appending the outcome) that failed for a transient reason is tried again; it doubles per attempt (with jitter).',
      1000,
      1,
    ),
    PRESSROOM_RENDER_RETRY_MAX_MS: Int('Longest delay between two attempts of a render step.', 30000, 1),
    PRESSROOM_RENDER_RETRY_MAX_ATTEMPTS: Int(
      'Attempts of a render step before a transient failure is final (FAILED STORAGE_ERROR, or the request is rendered again).',
      10,
      1,
    ),
    PRESSROOM_RENDER_ALLOWED_HOSTS: Str('Comma-separated hosts a page may fetch over https (none by default).', ''),
    PRESSROOM_RENDER_ALLOW_PRIVATE_HOSTS: Bool(
      'Let allowed render hosts resolve to private addresses (RFC 1918, CGNAT, unique-local): asset servers on an internal network. Loopback, link-local and metadata addresses are refused regardless.',
      false,
    ),
    PRESSROOM_RENDER_CRASH_RETRIES: Int(
      'Further attempts at a render whose renderer process crashed or stopped answering, before it is recorded FAILED with RENDER_CRASHED.',
      2,
      0,
    ),
    PRESSROOM_RENDER_USER: Str(
      'Unprivileged user the renderer process (and Chromium, with its sandbox on) runs as when the service runs as root, e.g. `pressroom-render` (see infra/renderer-user.sh). Default for a root service: `nobody` when that user exists. `root` keeps the renderer as root, without the sandbox (not recommended).',
    ),
    CHROMIUM_PATH: Str('Chromium binary. Default: chromium-headless-shell when installed, else chromium.'),
  },
  read(c) {
    return {
      render: {
        timeoutMs: Number(c.PRESSROOM_RENDER_TIMEOUT_MS),
        pages: Number(c.PRESSROOM_RENDER_PAGES),
        /** Cap on renders in flight per tenant, by plan name. */
        tenantCaps: Object.fromEntries(
          splitList(c.PRESSROOM_RENDER_TENANT_CAPS).map((pair) => {
            const [plan = '', cap = ''] = pair.split('=');
            return [plan.trim(), Number(cap.trim())];
          }),
        ),
        readAhead: Number(c.PRESSROOM_RENDER_READ_AHEAD),
        /** How the async lane gives way to the sync lane (FairSchedulerOptions). */
        asyncYield: {
          asyncYieldMs: Number(c.PRESSROOM_RENDER_ASYNC_YIELD_MS),
          asyncYieldMaxMs: Number(c.PRESSROOM_RENDER_ASYNC_YIELD_MAX_MS),
        },
        recycleAfter: Number(c.PRESSROOM_RENDER_RECYCLE_AFTER),
        maxOutputBytes: Number(c.PRESSROOM_RENDER_MAX_OUTPUT_BYTES),
        maxPngPixels: Number(c.PRESSROOM_RENDER_MAX_PNG_PIXELS),
        pngEncoding: c.PRESSROOM_RENDER_PNG_ENCODING,
        allowedHosts: splitList(c.PRESSROOM_RENDER_ALLOWED_HOSTS),
        allowPrivateHosts: c.PRESSROOM_RENDER_ALLOW_PRIVATE_HOSTS === 'true',
        chromiumPath: optional(c.CHROMIUM_PATH),
        /** Retries of a render step that failed for a transient reason. */
        retry: {
          baseDelayMs: Number(c.PRESSROOM_RENDER_RETRY_BASE_MS),
          maxDelayMs: Number(c.PRESSROOM_RENDER_RETRY_MAX_MS),
          maxAttempts: Number(c.PRESSROOM_RENDER_RETRY_MAX_ATTEMPTS),
        },
        crashRetries: Number(c.PRESSROOM_RENDER_CRASH_RETRIES),
        user: optional(c.PRESSROOM_RENDER_USER),
      },
    };
  },
});
