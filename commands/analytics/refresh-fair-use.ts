// The analytics refresh's fair use per workspace and clock hour (table analytics_refresh_windows): how many calls
// it made and how many posts they read. A call beyond the hour's calls is refused with the time to wait; the
// posts a call may read are reserved once it knows how many it wants, so calls at once never share a post of
// the allowance, and what a call did not read is given back when it ends.
import { sql, type Kysely } from 'kysely';

export interface RefreshLimits {
  callsPerHour: number;
  postsPerHour: number;
}

const hourMs = 3_600_000;

export const refreshWindowOf = (now: Date) => new Date(Math.floor(now.getTime() / hourMs) * hourMs);

export class RefreshFairUse {
  constructor(
    // Only its own table is touched.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    private readonly db: Kysely<any>,
    private readonly limits: RefreshLimits,
  ) {}

  /**
   * Counts a call in the workspace's hour: `{ allowed: true }`, or `{ allowed: false, retryAfterSeconds }` (the
   * time until the next hour) when the hour's calls are made; a refused call is not counted.
   */
  async beginCall(
    orgId: string,
    now: Date,
  ): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
    const window = refreshWindowOf(now);
    const max = this.limits.callsPerHour;
    const { rows } = await sql<{ granted: number }>`
      insert into analytics_refresh_windows as w (org_id, window_start, calls, posts, granted)
      values (${orgId}, ${window.toISOString()}, 1, 0, 1)
      on conflict (org_id) do update set
        granted = case when w.window_start >= excluded.window_start and w.calls >= ${max} then 0 else 1 end,
        calls = case when w.window_start < excluded.window_start then 1
          when w.calls >= ${max} then w.calls else w.calls + 1 end,
        posts = case when w.window_start < excluded.window_start then 0 else w.posts end,
        window_start = greatest(w.window_start, excluded.window_start)
      returning granted`.execute(this.db);
    if (rows[0]?.granted === 1) return { allowed: true };
    const retryAfterMs = window.getTime() + hourMs - now.getTime();
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
  }

  /** Reserves up to `posts` of the hour's allowance (after beginCall); the number granted. */
  async reserve(orgId: string, now: Date, posts: number): Promise<number> {
    if (posts <= 0) return 0;
    const window = refreshWindowOf(now).toISOString();
    const max = this.limits.postsPerHour;
    const { rows } = await sql<{ granted: number }>`
      update analytics_refresh_windows as w set
        granted = least(${posts}, greatest(0, ${max} - w.posts)),
        posts = w.posts + least(${posts}, greatest(0, ${max} - w.posts))
      where org_id = ${orgId} and window_start = ${window}
      returning granted`.execute(this.db);
    return rows[0]?.granted ?? 0;
  }

  /** Gives back posts reserved but not read (in the hour they were reserved in). */
  async giveBack(orgId: string, now: Date, posts: number): Promise<void> {
    if (posts <= 0) return;
    await sql`
      update analytics_refresh_windows set posts = greatest(0, posts - ${posts})
      where org_id = ${orgId} and window_start = ${refreshWindowOf(now).toISOString()}`.execute(this.db);
  }
}
