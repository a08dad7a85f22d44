import { PressroomError } from '@pressroom/domain';

const MAX_KEY_LENGTH = 1024;

/**
 * Why a key is unsafe to use as a path under the storage folder, or undefined when it is
 * safe. Keys look like `tenant/requestId.ext`: relative, `/`-separated, no empty, `.` or `..`
 * segment, no backslash, no control character.
 */
export function unsafeKeyReason(key: string): string | undefined {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return `must be 1 to ${MAX_KEY_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) return 'must not contain control characters';
  if (key.includes('\\')) return 'must not contain a backslash';
  if (key.startsWith('/')) return 'must be relative';
  if (key.split('/').some((s) => s === '' || s === '.' || s === '..')) return 'must not contain empty, "." or ".." segments';
  return undefined;
}

/** InvalidKey happens when a caller asks to store or sign a key that `unsafeKeyReason` refuses. */
export function assertSafeKey(key: string): void {
  const reason = unsafeKeyReason(key);
  if (reason) throw new PressroomError('VALIDATION_FAILED', `Object key ${JSON.stringify(key)} ${reason}.`);
}

/** The key as a URL path: each segment percent-encoded, the slashes kept. */
export function encodeKeyPath(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

/** The inverse of `encodeKeyPath`; undefined when the path is not valid percent-encoding. */
export function decodeKeyPath(path: string): string | undefined {
  try {
    return path.split('/').map(decodeURIComponent).join('/');
  } catch {
    return undefined;
  }
}
