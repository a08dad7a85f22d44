import Type, { type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { kafkaSlice } from './config/kafka.ts';
import { limitsSlice } from './config/limits.ts';
import { plansProblems, plansSlice, retiredSettingsProblems } from './config/plans.ts';
import { redisSlice } from './config/redis.ts';
import { renderSlice } from './config/render.ts';
import { serviceSlice } from './config/service.ts';
import { storageSlice } from './config/storage.ts';
import { toolsSlice } from './config/tools.ts';
import { webhooksSlice } from './config/webhooks.ts';

/**
 * Every setting Pressroom reads, with its default and meaning, gathered from the slices in
 * ./config/ (one per concern: service, limits, plans, webhooks, render, kafka, redis, storage). A new
 * setting goes into the slice of its concern. Only an app's config.ts passes `process.env` in;
 * the README's configuration table is generated from this schema (`npm run docs:config`).
 */
const slices = [
  serviceSlice,
  limitsSlice,
  plansSlice,
  webhooksSlice,
  renderSlice,
  toolsSlice,
  kafkaSlice,
  redisSlice,
  storageSlice,
] as const;

export const ConfigSchema = Type.Object({
  ...serviceSlice.env,
  ...limitsSlice.env,
  ...plansSlice.env,
  ...webhooksSlice.env,
  ...renderSlice.env,
  ...toolsSlice.env,
  ...kafkaSlice.env,
  ...redisSlice.env,
  ...storageSlice.env,
});

type Part<S> = S extends { read(...args: never[]): infer C } ? C : never;
type Parts<T extends readonly unknown[]> = T extends readonly [infer H, ...infer R] ? Part<H> & Parts<R> : unknown;

/** The typed configuration: the union of what every slice reads. */
export type PressroomConfig = Parts<typeof slices>;

/** ConfigError happens at start when settings are missing or malformed; it lists every problem. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
    this.name = 'ConfigError';
  }
}

const validator = Compile(ConfigSchema);

export function loadConfig(env: Record<string, string | undefined>): PressroomConfig {
  const raw: Record<string, string> = {};
  for (const [name, schema] of Object.entries(ConfigSchema.properties) as [string, TSchema & { default?: string }][]) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
    else if (schema.default !== undefined) raw[name] = schema.default;
  }
  const problems = [...validator.Errors(raw)].map((e) => `${e.instancePath.slice(1) || '(root)'}: ${e.message}`);
  problems.push(...plansProblems(raw.PRESSROOM_PLANS), ...retiredSettingsProblems(env));
  if (problems.length) throw new ConfigError(problems);
  const valid = raw as never;
  const { profile } = serviceSlice.read(valid, 'embedded');
  const config = Object.assign({}, ...slices.map((s) => s.read(valid, profile))) as PressroomConfig;
  // The profile's requirements, listed in the order operators have always seen them.
  const more = [kafkaSlice, redisSlice, serviceSlice].flatMap((s) => s.check?.(config as never, profile) ?? []);
  if (more.length) throw new ConfigError(more);
  return config;
}
