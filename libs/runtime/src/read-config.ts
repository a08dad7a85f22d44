import { ConfigError, loadConfig, type PressroomConfig } from './config.ts';

/** Parses the settings at start; on any problem prints them all and exits with status 2. */
export function readConfigOrExit(env: Record<string, string | undefined>): PressroomConfig {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(err.message + '\n');
      process.exit(2);
    }
    throw err;
  }
}
