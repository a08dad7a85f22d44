/**
 * The features Playwright (1.65) disables with its own `--disable-features` switch. Chromium reads
 * only the last `--disable-features` on its command line, and ours comes after Playwright's, so
 * ours repeats them (chromium-args.unit.spec.ts checks this list against the installed Playwright).
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
] as const;

/**
 * Features Pressroom turns off, for speed. RenderDocument gives every cross-document navigation a
 * new RenderFrameHost (a new frame, widget and compositor in the renderer): with it, the
 * about:blank navigation that isolates one job from the next (warm-page.ts, freshDocument) cost
 * ~75 ms of Chromium CPU per job, without it ~20 ms (bench/isolation.bench.ts, issue 13). The new
 * document still gets a new Window (globals, timers and listeners of the last job are gone): that
 * is the navigation, not the frame host.
 */
export const PRESSROOM_DISABLED_FEATURES = ['RenderDocument'] as const;

/**
 * Command-line switches for every Chromium we launch. Playwright adds its own defaults
 * (--hide-scrollbars, --mute-audio, ...); these are the ones Pressroom depends on. The renderer's
 * BrowserHost adds FRAME_CONTROL_ARGS (quiet-page.ts); the benchmarks' bare ceiling does not.
 */
export function chromiumArgs(opts: { sandbox?: boolean } = {}): string[] {
  return [
    // As root, Chromium refuses to start its sandbox; the renderer host runs as an unprivileged
    // user where it can (PRESSROOM_RENDER_USER), and then the namespace sandbox is on.
    ...(opts.sandbox ? [] : ['--no-sandbox']),
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    // /dev/shm is small in containers; a full one crashes renderers mid-print.
    '--disable-dev-shm-usage',
    // The browser itself resolves no host name or address, IP literals included: every request a
    // page makes is either answered by the network guard (which fetches allowed hosts from this
    // process, checking each hop) or fails. Preconnects, WebSockets and anything the route
    // interception does not see therefore reach nothing — WebSockets included (ws:// to a name,
    // to 127.0.0.1, [::1], 0x7f000001 …): they fail in the resolver, so no Playwright WebSocket
    // routing (whose bindings the page could call) is needed.
    '--host-resolver-rules=MAP * ~NOTFOUND',
    // WebRTC sends STUN over UDP outside the network stack above: with no proxy, this disables it.
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...PRESSROOM_DISABLED_FEATURES].join(',')}`,
  ];
}
