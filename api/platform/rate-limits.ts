// Request rate limits per token and per workspace, by route group: the groups, their defaults, the
// RATE_LIMITS overrides, and the limiter authenticated requests pass (counters in PostgreSQL, shared).
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';
import { TooManyRequests } from '../../domain/shared/errors.js';
import { ConfigError } from '../../infra/config/env.js';
import type { RateLimitEnv } from './settings.js';
import type { Principal } from '../auth/principal.js';

/**
 * `read`: GET and HEAD; `write`: every other method; `billing`: any method under `…/billing` (calls the
 * payment provider); `mcp`: the assistant-tool server at /mcp (one JSON-RPC message per request).
 */
export const rateLimitGroups = ['read', 'write', 'billing', 'mcp'] as const;
export type RateLimitGroup = (typeof rateLimitGroups)[number];

export interface RateLimit {
  /** Requests one token (sign-in session, or assistant connection) may make per window. */
  perToken: number;
  /** Requests all tokens of one workspace together may make per window. */
  perWorkspace: number;
  /** Fixed window: the counters start over this many seconds after their first request. */
  windowSeconds: number;
}

export type RateLimits = Record<RateLimitGroup, RateLimit>;

/**
 * Far above what a person or a well-behaved integration sends (a busy web app page makes a few dozen reads),
 * so only a runaway client meets them: 20 reads or 5 writes a second sustained per token, five such tokens
 * per workspace. Billing calls the payment provider and gets less; the tool server a use case per message.
 */
export const defaultRateLimits: RateLimits = {
  read: { perToken: 1200, perWorkspace: 6000, windowSeconds: 60 },
  write: { perToken: 300, perWorkspace: 1500, windowSeconds: 60 },
  billing: { perToken: 60, perWorkspace: 300, windowSeconds: 60 },
  mcp: { perToken: 300, perWorkspace: 1200, windowSeconds: 60 },
};

const count = z.number().int().positive().max(1_000_000_000);
const groupOverride = z
  .strictObject({ perToken: count, perWorkspace: count, windowSeconds: count.max(86_400) })
  .partial()
  .optional();
const overridesSchema = z.strictObject({
  read: groupOverride,
  write: groupOverride,
  billing: groupOverride,
  mcp: groupOverride,
} satisfies Record<RateLimitGroup, typeof groupOverride>);

/** RATE_LIMITS laid over the defaults, group by group and field by field; else a ConfigError naming it. */
export function parseRateLimits(raw: string | undefined): RateLimits {
  if (raw === undefined || raw.trim() === '') return defaultRateLimits;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new ConfigError([
      'RATE_LIMITS: must be JSON, e.g. {"write":{"perToken":60,"perWorkspace":300,"windowSeconds":60}}',
    ]);
  }
  const parsed = overridesSchema.safeParse(json);
  if (!parsed.success)
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const where = issue.path.map(String).join('.');
        const message =
          issue.code !== 'unrecognized_keys'
            ? issue.message
            : issue.path.length === 0
              ? `unknown group ${issue.keys.join(', ')} (groups: ${rateLimitGroups.join(', ')})`
              : `unknown field ${issue.keys.join(', ')} (fields: perToken, perWorkspace, windowSeconds)`;
        return `RATE_LIMITS${where ? `.${where}` : ''}: ${message}`;
      }),
    );
  const limits = { ...defaultRateLimits };
  for (const group of rateLimitGroups) limits[group] = { ...limits[group], ...parsed.data[group] };
  return limits;
}

/** The limits the environment asks for; null when RATE_LIMITS_ENABLED is false (RATE_LIMITS is checked). */
export function rateLimitsFromEnv(env: RateLimitEnv): RateLimits | null {
  const limits = parseRateLimits(env.RATE_LIMITS);
  return env.RATE_LIMITS_ENABLED ? limits : null;
}

/** The group of an authenticated HTTP request (the tool server names its own). */
export function routeGroupOf(method: string, path: string): RateLimitGroup {
  if (/\/billing(\/|$)/.test(path)) return 'billing';
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

/** Whose counters a request counts against: the token's, and its workspace's when it has one. */
export interface RateLimitKeys {
  token: string;
  workspace: string | null;
}

/**
 * The token of a principal: its sign-in session, which every token exchanged from it carries over (so
 * exchanging gives no fresh allowance), and its workspace.
 */
export function rateLimitKeysOf(principal: Principal): RateLimitKeys {
  return { token: `session:${principal.session.id}`, workspace: principal.orgId };
}

export interface RequestRateLimiter {
  /** Counts one request against both keys; TooManyRequests with the longer wait when either is spent. */
  consume(group: RateLimitGroup, keys: RateLimitKeys): Promise<void>;
  stop(): Promise<void>;
}

/** Where rate-limiter-flexible keeps the counters (`key`, `points`, `expire` in epoch ms); it creates it. */
export const rateLimitTable = 'rate_limit_counters';

// The library keeps no expiry of its own in PostgreSQL: counters of keys not seen again stay until deleted.
const sweepEveryMs = 5 * 60_000;
const keepExpiredMs = 60 * 60_000;

/** What the library exposes in JS but not in its types: an in-memory block's remaining ms (0 when none). */
interface InMemoryBlocks {
  getInMemoryBlockMsBeforeExpire(rlKey: string): number;
}

/**
 * One RateLimiterPostgres per group and key kind on the service's pool. A key over its points is also refused
 * from memory for the rest of its window (`inMemoryBlockOnConsumed`), so a client hammering after its 429
 * costs no query; should PostgreSQL fail, each instance limits on its own (`insuranceLimiter`) rather than
 * refuse everything or let everything through.
 */
export async function createRateLimiter(pool: pg.Pool, limits: RateLimits): Promise<RequestRateLimiter> {
  // The first limiter creates the table (CREATE TABLE IF NOT EXISTS; instances starting together are fine).
  let tableCreated = false;
  const limiterOf = async (group: RateLimitGroup, kind: 'token' | 'workspace') => {
    const points = kind === 'token' ? limits[group].perToken : limits[group].perWorkspace;
    const duration = limits[group].windowSeconds;
    const options = {
      storeClient: pool,
      storeType: 'pool',
      tableName: rateLimitTable,
      keyPrefix: `${group}:${kind}`,
      points,
      duration,
      inMemoryBlockOnConsumed: points + 1,
      clearExpiredByTimeout: false,
      insuranceLimiter: new RateLimiterMemory({ points, duration }),
    };
    if (tableCreated) return new RateLimiterPostgres({ ...options, tableCreated: true });
    const limiter = await new Promise<RateLimiterPostgres>((resolve, reject) => {
      const created: RateLimiterPostgres = new RateLimiterPostgres(options, (error) =>
        error ? reject(error) : resolve(created),
      );
    });
    tableCreated = true;
    return limiter;
  };
  const limiters = new Map<RateLimitGroup, { token: RateLimiterPostgres; workspace: RateLimiterPostgres }>();
  for (const group of rateLimitGroups)
    limiters.set(group, {
      token: await limiterOf(group, 'token'),
      workspace: await limiterOf(group, 'workspace'),
    });

  const sweep = setInterval(() => {
    pool
      .query(`delete from ${rateLimitTable} where expire < $1`, [Date.now() - keepExpiredMs])
      .catch(() => undefined);
  }, sweepEveryMs);
  sweep.unref();

  /** The ms to wait when the key is spent, 0 when the request counted. */
  const take = async (limiter: RateLimiterPostgres, key: string): Promise<number> => {
    try {
      await limiter.consume(key);
      return 0;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, rejection.msBeforeNext);
      throw rejection;
    }
  };
  const blockedMs = (limiter: RateLimiterPostgres, key: string) =>
    (limiter as unknown as InMemoryBlocks).getInMemoryBlockMsBeforeExpire(limiter.getKey(key));

  return {
    async consume(group, keys) {
      const { token, workspace } = limiters.get(group)!;
      // A key already refused here is refused again without counting against the other one, so a runaway
      // token does not spend its workspace's allowance with requests that never ran.
      let tokenMs = blockedMs(token, keys.token);
      let workspaceMs = keys.workspace === null ? 0 : blockedMs(workspace, keys.workspace);
      if (tokenMs === 0 && workspaceMs === 0)
        [tokenMs, workspaceMs] = await Promise.all([
          take(token, keys.token),
          keys.workspace === null ? 0 : take(workspace, keys.workspace),
        ]);
      if (tokenMs === 0 && workspaceMs === 0) return;
      const seconds = Math.max(1, Math.ceil(Math.max(tokenMs, workspaceMs) / 1000));
      const whose = workspaceMs >= tokenMs ? 'this workspace' : 'this token';
      throw new TooManyRequests(
        `Too many ${group} requests for ${whose}; try again in ${seconds} second${seconds === 1 ? '' : 's'}`,
        seconds,
      );
    },
    async stop() {
      clearInterval(sweep);
    },
  };
}
