import { PressroomError, evolveTemplateHead, templateVersionOf, type TemplateHead, type TemplateVersionRecord } from '@pressroom/domain';
import { silentLogger, type Logger, type TemplateView } from '@pressroom/core';
import type { TemplateEvent } from '@pressroom/schemas';
import { connectRedis, disconnectRedis } from './connect.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';
import { redisGuard } from './guard.ts';

const guard = redisGuard('template view');

export interface RedisTemplateViewOptions {
  url: string;
  /** Every key starts with it, e.g. `pressroom:`; tests use a unique one. */
  keyPrefix: string;
  logger?: Logger;
}

const MAX_APPLY_ATTEMPTS = 32;

/**
 * Sets a hash field to `next` only if it still holds `expected` (or is absent when
 * expectPresent is '0'). Returns 1 when written, 0 when the field had changed.
 *   KEYS[1] hash   ARGV: field, expectPresent ('1'|'0'), expected, next
 */
const HASH_COMPARE_AND_SET = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[2] == '1' then
  if current ~= ARGV[3] then return 0 end
elseif current then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
return 1
`;

/**
 * The distributed profile's template view. Layout:
 *
 *   <prefix>templates:heads:<tenantId>                    hash templateId → TemplateHead JSON
 *   <prefix>templates:versions:<tenantId>:<templateId>    hash version → TemplateVersionRecord JSON
 *   <prefix>templates:built                               set once a rebuild from the log completed
 *
 * A version record is immutable, written with HSETNX (a replay writes the same thing). The
 * head moves with `evolveTemplateHead` (the one rule, kept in TypeScript) through a Lua
 * compare-and-set on its hash field, retried when another writer got there first: the
 * ingress and the projector apply the same events concurrently without losing either.
 * Everything lives under `<prefix>templates:`, so `clear` (before a rebuild) touches nothing else.
 */
export function createRedisTemplateView(options: RedisTemplateViewOptions): TemplateView {
  const logger = options.logger ?? silentLogger;
  const p = `${options.keyPrefix}templates:`;
  const headsKey = (tenantId: string) => `${p}heads:${tenantId}`;
  const versionsKey = (tenantId: string, templateId: string) => `${p}versions:${tenantId}:${templateId}`;
  const redis = connectRedis({ url: options.url, name: `pressroom-templates@${options.keyPrefix}`, logger });
  redis.defineCommand('pressroomHashCas', { numberOfKeys: 1, lua: HASH_COMPARE_AND_SET });
  const cas = (key: string, ...args: string[]) =>
    (redis as unknown as { pressroomHashCas(key: string, ...args: string[]): Promise<number> }).pressroomHashCas(key, ...args);

  const liveHead = async (tenantId: string, templateId: string): Promise<TemplateHead | undefined> => {
    const raw = await guard(redis.hget(headsKey(tenantId), templateId));
    const head = raw === null ? undefined : (JSON.parse(raw) as TemplateHead);
    return head && !head.deleted ? head : undefined;
  };

  return {
    async apply(event: TemplateEvent) {
      const record = templateVersionOf(event);
      if (record) await guard(redis.hsetnx(versionsKey(event.tenantId, event.templateId), String(record.version), JSON.stringify(record)));
      const key = headsKey(event.tenantId);
      for (let attempt = 0; attempt < MAX_APPLY_ATTEMPTS; attempt++) {
        const raw = await guard(redis.hget(key, event.templateId));
        const current = raw === null ? undefined : (JSON.parse(raw) as TemplateHead);
        const next = evolveTemplateHead(current, event);
        if (next === undefined || next === current) return;
        if ((await guard(cas(key, event.templateId, raw === null ? '0' : '1', raw ?? '', JSON.stringify(next)))) === 1) return;
      }
      throw new PressroomError('DEPENDENCY_UNAVAILABLE', `Template ${event.templateId} kept changing; gave up applying.`, {
        retryable: true,
      });
    },
    head: liveHead,
    async version(tenantId, templateId, version) {
      const head = await liveHead(tenantId, templateId);
      if (!head) return undefined;
      const raw = await guard(redis.hget(versionsKey(tenantId, templateId), String(version ?? head.latestVersion)));
      return raw === null ? undefined : (JSON.parse(raw) as TemplateVersionRecord);
    },
    async versions(tenantId, templateId) {
      if (!(await liveHead(tenantId, templateId))) return [];
      const all = (await guard(redis.hvals(versionsKey(tenantId, templateId)))).map((r) => JSON.parse(r) as TemplateVersionRecord);
      return all.sort((a, b) => a.version - b.version);
    },
    async list(tenantId) {
      const all = (await guard(redis.hvals(headsKey(tenantId)))).map((r) => JSON.parse(r) as TemplateHead).filter((h) => !h.deleted);
      return all.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.templateId.localeCompare(b.templateId));
    },
    async isBuilt() {
      return (await guard(redis.exists(`${p}built`))) === 1;
    },
    async markBuilt() {
      await guard(redis.set(`${p}built`, new Date().toISOString()));
    },
    async clear() {
      await guard(unlinkByPrefix(redis, p));
    },
    async ping() {
      await guard(redis.ping());
    },
    async close() {
      await disconnectRedis(redis);
    },
  };
}
