// Request rate limits per token and per workspace, by route group: the groups, their defaults, the
// RATE_LIMITS overrides, and the limiter authenticated requests pass (counters in PostgreSQL, shared).
import type pg from 'pg';
import { sql, type Kysely, type Migration } from 'kysely';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
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

/**
 * The shared counters: one row per key and fixed window. `points` is what the instances have claimed of the
 * window so far, `granted` what the last claim got (read back by that claim only). Unlogged: counters are worth
 * nothing after a crash, and an unlogged table writes no WAL.
 */
export const rateLimitTable = 'rate_limit_windows';

export const rateLimitMigrations: Record<string, Migration> = {
  '0035_rate_limit_windows': {
    async up(db: Kysely<unknown>) {
      // The table rate-limiter-flexible created at run time, when it kept one row per request's key.
      await sql`drop table if exists rate_limit_counters`.execute(db);
      await sql`
        create unlogged table rate_limit_windows (
          key text primary key,
          points integer not null,
          granted integer not null,
          expire bigint not null
        )`.execute(db);
      await sql`create index rate_limit_windows_expire on rate_limit_windows (expire)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table rate_limit_windows`.execute(db);
    },
  },
};

// Counters of keys not seen again stay until deleted.
const sweepEveryMs = 5 * 60_000;
const keepExpiredMs = 60 * 60_000;

/**
 * Claims `want` points of `key`'s window (or fewer: what is left under `limit`), starting a new window when the
 * last one has ended; one statement. Two instances claiming at once are serialised by the row's lock, so the
 * claims of one window never add up to more than its limit.
 */
const claimSql = `
  insert into ${rateLimitTable} as w (key, points, granted, expire)
  values ($1, least($2::int, $3::int), least($2::int, $3::int), $4::bigint + $5::bigint)
  on conflict (key) do update set
    granted = case when w.expire <= $4::bigint then least($2::int, $3::int)
                   else least($2::int, greatest(0, $3::int - w.points)) end,
    points = case when w.expire <= $4::bigint then least($2::int, $3::int)
                  else w.points + least($2::int, greatest(0, $3::int - w.points)) end,
    expire = case when w.expire <= $4::bigint then $4::bigint + $5::bigint else w.expire end
  returning points, granted, expire`;

/** What this instance holds of one key's current window. */
interface Held {
  /** Points claimed from the shared counter and not yet spent here. */
  left: number;
  /** Of the whole window, over every instance, as of this instance's last claim. */
  claimed: number;
  /** Epoch ms the window ends. */
  expire: number;
  /** Set when the last claim got nothing: refused from memory until the window ends. */
  spent: boolean;
}

/**
 * One key kind of one group (e.g. the read requests of each token): its points per window, spent from blocks
 * claimed from the shared counter. A block is a twentieth of the limit, never more than half of what is left
 * (so near the limit it shrinks to one point and every request asks), and one point for small limits: a busy
 * key costs one statement per block instead of one per request, and an instance holds at most one block that
 * the others cannot use until the window ends.
 */
class ClaimingLimiter {
  private readonly held = new Map<string, Held>();
  private readonly pending = new Map<string, Promise<void>>();
  readonly insurance: RateLimiterMemory;

  constructor(
    private readonly pool: pg.Pool,
    private readonly prefix: string,
    readonly points: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {
    this.insurance = new RateLimiterMemory({ points, duration: windowMs / 1000 });
  }

  /** ms until the key's window ends when it is refused from memory (spent, or its last claim got nothing). */
  blockedMs(key: string): number {
    const held = this.held.get(key);
    if (!held || !held.spent) return 0;
    const ms = held.expire - this.now();
    return ms > 0 ? ms : 0;
  }

  /** Spends one point of `key`: 0 when it counted, else the ms until its window ends. */
  async take(key: string): Promise<number> {
    for (;;) {
      const now = this.now();
      const held = this.held.get(key);
      if (held && held.expire > now) {
        if (held.left > 0) {
          held.left -= 1;
          return 0;
        }
        if (held.spent) return held.expire - now;
      }
      // One claim per key at a time: requests that find the block empty wait for the claim in flight.
      const inFlight = this.pending.get(key);
      if (inFlight) {
        await inFlight;
        continue;
      }
      const claim = this.claim(key, held && held.expire > now ? held : undefined);
      this.pending.set(
        key,
        claim.then(() => undefined),
      );
      try {
        // A number is the answer of the in-memory limiter (PostgreSQL could not be reached).
        const decided = await claim;
        if (decided !== null) return decided;
      } finally {
        this.pending.delete(key);
      }
    }
  }

  /** Claims a block and keeps it (null); or, when PostgreSQL fails, the in-memory limiter's answer. */
  private async claim(key: string, held: Held | undefined): Promise<number | null> {
    const remaining = held ? this.points - held.claimed : this.points;
    const want = Math.max(1, Math.min(Math.ceil(this.points / 20), Math.floor(remaining / 2)));
    let row: { points: number; granted: number; expire: string };
    try {
      const { rows } = await this.pool.query<typeof row>(claimSql, [
        `${this.prefix}:${key}`,
        want,
        this.points,
        this.now(),
        this.windowMs,
      ]);
      row = rows[0]!;
    } catch {
      // PostgreSQL cannot be reached: this instance limits on its own, with the limits of one instance.
      return this.insurance.consume(key).then(
        () => 0,
        (rejection: unknown) => {
          if (rejection instanceof RateLimiterRes) return Math.max(1, rejection.msBeforeNext);
          throw rejection;
        },
      );
    }
    this.held.set(key, {
      left: row.granted,
      claimed: row.points,
      expire: Number(row.expire),
      spent: row.granted === 0,
    });
    return null;
  }

  /** Forgets windows that have ended (memory stays bounded by the keys of one window). */
  forgetEnded(): void {
    const now = this.now();
    for (const [key, held] of this.held) if (held.expire <= now) this.held.delete(key);
  }
}

export interface RateLimiterOptions {
  /** The clock (tests). */
  now?: () => number;
}

/**
 * Counters in PostgreSQL, shared by every instance, claimed in blocks (ClaimingLimiter): a request costs no
 * statement while its key's block lasts. A key refused is refused from memory for the rest of its window, so a
 * client hammering after its 429 costs no query; should PostgreSQL fail, each instance limits on its own rather
 * than refuse everything or let everything through.
 */
export async function createRateLimiter(
  pool: pg.Pool,
  limits: RateLimits,
  options: RateLimiterOptions = {},
): Promise<RequestRateLimiter> {
  const now = options.now ?? Date.now;
  const limiters = new Map<RateLimitGroup, { token: ClaimingLimiter; workspace: ClaimingLimiter }>();
  for (const group of rateLimitGroups) {
    const { perToken, perWorkspace, windowSeconds } = limits[group];
    limiters.set(group, {
      token: new ClaimingLimiter(pool, `${group}:token`, perToken, windowSeconds * 1000, now),
      workspace: new ClaimingLimiter(pool, `${group}:workspace`, perWorkspace, windowSeconds * 1000, now),
    });
  }

  const sweep = setInterval(() => {
    for (const pair of limiters.values()) {
      pair.token.forgetEnded();
      pair.workspace.forgetEnded();
    }
    pool
      .query(`delete from ${rateLimitTable} where expire < $1`, [now() - keepExpiredMs])
      .catch(() => undefined);
  }, sweepEveryMs);
  sweep.unref();

  return {
    async consume(group, keys) {
      const { token, workspace } = limiters.get(group)!;
      // A key already refused here is refused again without counting against the other one, so a runaway
      // token does not spend its workspace's allowance with requests that never ran.
      let tokenMs = token.blockedMs(keys.token);
      let workspaceMs = keys.workspace === null ? 0 : workspace.blockedMs(keys.workspace);
      if (tokenMs === 0 && workspaceMs === 0)
        [tokenMs, workspaceMs] = await Promise.all([
          token.take(keys.token),
          keys.workspace === null ? 0 : workspace.take(keys.workspace),
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
