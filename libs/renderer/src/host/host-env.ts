/** Only what Node and Chromium need: the host never sees the service's settings or secrets. */
const PASSED = /^(PATH|LANG|LC_[A-Z]+|TZ|FONTCONFIG_[A-Z_]+|PLAYWRIGHT_[A-Z_]+|DEBUG)$/;

/**
 * The environment of a renderer host. `dir` is the host's private directory: HOME and TMPDIR
 * point there, so Chromium's profile (Playwright makes it under os.tmpdir()) and every temporary
 * file land in it and go when the supervisor removes it.
 */
export function hostEnv(dir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && PASSED.test(k)) env[k] = v;
  return { ...env, HOME: dir, TMPDIR: dir };
}
