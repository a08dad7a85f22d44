import { accessSync, constants } from 'node:fs';

/**
 * Where Debian's packages put the browser, best first. The ELF binaries under /usr/lib/chromium
 * come before the /usr/bin launchers: those are shell scripts that source /etc/chromium.d (API keys,
 * extension flags) and, for the headless shell, do not `exec`, so killing the launched process
 * would leave the real browser running.
 */
export const CHROMIUM_CANDIDATES = [
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium-headless-shell',
  '/usr/lib/chromium/chromium',
  '/usr/bin/chromium',
] as const;

/** ChromiumNotFoundError happens when neither the given path nor any Debian location holds a browser. */
export class ChromiumNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChromiumNotFoundError';
  }
}

/**
 * The browser binary to launch: `preferred` when set (it must be executable), otherwise
 * Debian's chromium-headless-shell (the old headless mode, measurably faster at printing) when
 * installed, otherwise Debian's chromium.
 */
export function resolveChromiumPath(preferred?: string, isExecutable: (path: string) => boolean = canExecute): string {
  if (preferred) {
    if (isExecutable(preferred)) return preferred;
    throw new ChromiumNotFoundError(`Chromium was configured at ${preferred}, but no executable file is there.`);
  }
  const found = CHROMIUM_CANDIDATES.find((path) => isExecutable(path));
  if (found) return found;
  throw new ChromiumNotFoundError(
    `No Chromium found (looked in ${CHROMIUM_CANDIDATES.join(', ')}). ` +
      'Install it with `bash infra/chromium/ensure.sh` (Debian packages chromium and chromium-headless-shell), ' +
      'or set its path explicitly.',
  );
}

function canExecute(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
