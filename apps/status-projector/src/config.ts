import type { PressroomConfig } from '@pressroom/runtime';
import { readConfigOrExit } from '@pressroom/runtime';

/** The only place this app reads the environment. */
export const readConfig = (): PressroomConfig => readConfigOrExit(process.env);
