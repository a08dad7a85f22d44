import type { PressroomConfig } from '@pressroom/core';
import { readConfigOrExit } from '@pressroom/runtime';

/** The only place this app reads the environment. */
export const readConfig = (): PressroomConfig => readConfigOrExit(process.env);
