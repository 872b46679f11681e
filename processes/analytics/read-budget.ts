// The platforms' request budgets for metrics reads, shared by every instance: per platform and limit, a fixed
// window (aligned to the epoch, so a day is a UTC day as LinkedIn's and YouTube's are) and the requests taken in
// it, for the whole app or per account. A take is one statement per limit: it grants what is left, never more.
import { sql, type Kysely } from 'kysely';
import type { Platform } from '../../domain/shared/platforms.js';
import type { RateLimit } from '../../infra/connectors/port.js';

export interface BudgetGrant {
  /** Requests granted, 0 to what was asked. */
  granted: number;
  /** When the limit that granted less than asked opens its next window; null when everything was granted. */
  nextWindowAt: Date | null;
}

export const windowStartOf = (at: Date, windowMs: number): number =>
  Math.floor(at.getTime() / windowMs) * windowMs;

/** The budget's key under a limit: the app's one, or the account's. */
const scopeOf = (limit: RateLimit, accountId: string) => (limit.per === 'app' ? 'app' : accountId);

export class ReadBudget {
  // Only the budget table is touched.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  constructor(private readonly db: Kysely<any>) {}

  /**
   * Takes up to `requests` from every limit of the platform for the account at `now`. What one limit grants
   * bounds what the next is asked; what an earlier limit granted beyond the final grant is given back, so no
   * window is charged for requests that will not be made.
   */
  async take(
    platform: Platform,
    accountId: string,
    limits: readonly RateLimit[],
    requests: number,
    now: Date,
  ): Promise<BudgetGrant> {
    let granted = Math.max(0, Math.floor(requests));
    let nextWindowAt: Date | null = null;
    const taken: Array<{ limit: RateLimit; granted: number }> = [];
    for (const limit of limits) {
      if (granted === 0) break;
      const got = await this.takeOne(platform, scopeOf(limit, accountId), limit, granted, now);
      if (got < granted) nextWindowAt = new Date(windowStartOf(now, limit.windowMs) + limit.windowMs);
      taken.push({ limit, granted: got });
      granted = got;
    }
    for (const entry of taken)
      if (entry.granted > granted)
        await this.giveBack(
          platform,
          scopeOf(entry.limit, accountId),
          entry.limit,
          entry.granted - granted,
          now,
        );
    return { granted, nextWindowAt };
  }

  /** Returns requests taken but not made (the window they were taken in only). */
  async giveBack(
    platform: Platform,
    scope: string,
    limit: RateLimit,
    requests: number,
    now: Date,
  ): Promise<void> {
    if (requests <= 0) return;
    await sql`
      update metrics_read_budgets set used = greatest(0, used - ${requests})
      where platform = ${platform} and scope = ${scope} and window_ms = ${limit.windowMs}
        and window_start = ${new Date(windowStartOf(now, limit.windowMs)).toISOString()}`.execute(this.db);
  }

  /** Returns requests taken for an account but not made, under every limit. */
  async refund(
    platform: Platform,
    accountId: string,
    limits: readonly RateLimit[],
    requests: number,
    now: Date,
  ): Promise<void> {
    for (const limit of limits)
      await this.giveBack(platform, scopeOf(limit, accountId), limit, requests, now);
  }

  private async takeOne(
    platform: Platform,
    scope: string,
    limit: RateLimit,
    requests: number,
    now: Date,
  ): Promise<number> {
    const start = new Date(windowStartOf(now, limit.windowMs)).toISOString();
    const first = Math.min(requests, limit.requests);
    // The row's old values are read under its lock (ON CONFLICT), so concurrent takes never grant the same
    // request twice. A row in a later window than ours (another instance's clock ahead) counts as current.
    const { rows } = await sql<{ granted: number }>`
      insert into metrics_read_budgets as b (platform, scope, window_ms, window_start, used, granted)
      values (${platform}, ${scope}, ${limit.windowMs}, ${start}, ${first}, ${first})
      on conflict (platform, scope, window_ms) do update set
        granted = case when b.window_start >= excluded.window_start
          then least(${requests}, greatest(0, ${limit.requests} - b.used)) else ${first} end,
        used = case when b.window_start >= excluded.window_start
          then b.used + least(${requests}, greatest(0, ${limit.requests} - b.used)) else ${first} end,
        window_start = greatest(b.window_start, excluded.window_start)
      returning granted`.execute(this.db);
    return rows[0]?.granted ?? 0;
  }
}
