import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/**
 * The embedded profile needs a secret without asking the user for one: it makes one on first
 * start and keeps it beside the data (mode 0600), so signed links survive a restart.
 */
export async function embeddedSecretKey(dataDir: string): Promise<string> {
  const path = join(dataDir, 'secret.key');
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    await mkdir(dataDir, { recursive: true });
    const key = randomBytes(32).toString('base64url');
    await writeFile(path, key + '\n', { flag: 'wx', mode: 0o600 }).catch(async () => undefined);
    await chmod(path, 0o600);
    return (await readFile(path, 'utf8')).trim();
  }
}
