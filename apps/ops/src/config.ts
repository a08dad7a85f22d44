import { loadConfig, ConfigError, type PressroomConfig } from '@pressroom/core';

/** The only place this app reads the environment. Exits with every problem listed. */
export function readConfig(): PressroomConfig {
  try {
    return loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(err.message + '\n');
      process.exit(2);
    }
    throw err;
  }
}
