// Reads of the post read models (projections/post-groups) for the home summary: the posts waiting for approval by
// group, the next scheduled posts, and how many are scheduled ahead or failed. Each is led by the posts'
// (org_id, status, scheduled_for_utc, id) index.
import { sql, type Kysely } from 'kysely';
import type { Platform } from '../../domain/shared/platforms.js';
import type { ReadModels } from '../read-models.js';

export interface PendingGroup {
  groupId: string;
  title: string;
  topic: string | null;
  platforms: Platform[];
  /** Posts of the group waiting for approval. */
  postsPending: number;
  /** When the longest-waiting of them last changed (was submitted, or edited back into review). */
  waitingSince: string;
}

export interface PendingApprovals {
  postsPending: number;
  groupsPending: number;
  /** The groups waiting longest first, at most `limit`. */
  groups: PendingGroup[];
}

/** Posts waiting for approval, by group, the longest waiting first. */
export async function pendingApprovals(
  db: Kysely<ReadModels>,
  orgId: string,
  limit: number,
): Promise<PendingApprovals> {
  const { rows } = await sql<{
    groups_pending: number;
    posts_pending: number;
    group_id: string | null;
    title: string | null;
    topic: string | null;
    platforms: Platform[] | null;
    group_posts: number | null;
    waiting_since: string | null;
  }>`
    with pending as (
      select group_id, count(*)::int as posts, min(updated_at) as waiting_since,
        array_agg(distinct platform order by platform) as platforms
      from posts where org_id = ${orgId} and status = 'pending_approval'
      group by group_id
    ), oldest as (
      select * from pending order by waiting_since, group_id limit ${limit}
    )
    select (select count(*)::int from pending) as groups_pending,
      (select coalesce(sum(posts), 0)::int from pending) as posts_pending,
      o.group_id, g.title, g.body->>'topic' as topic, o.platforms, o.posts as group_posts, o.waiting_since
    from (select 1) as one
    left join oldest o on true
    left join post_groups g on g.id = o.group_id
    order by o.waiting_since, o.group_id`.execute(db);
  const first = rows[0];
  return {
    postsPending: first?.posts_pending ?? 0,
    groupsPending: first?.groups_pending ?? 0,
    groups: rows
      .filter((r) => r.group_id !== null)
      .map((r) => ({
        groupId: r.group_id!,
        title: r.title ?? '',
        topic: r.topic,
        platforms: r.platforms ?? [],
        postsPending: r.group_posts ?? 0,
        waitingSince: r.waiting_since!,
      })),
  };
}

export interface NextScheduledPost {
  postId: string;
  groupId: string;
  title: string;
  platform: Platform;
  contentText: string;
  scheduledForUtc: string;
}

/** The next `limit` posts scheduled after `now`, soonest first. */
export async function nextScheduledPosts(
  db: Kysely<ReadModels>,
  orgId: string,
  now: string,
  limit: number,
): Promise<NextScheduledPost[]> {
  const { rows } = await sql<{
    id: string;
    group_id: string;
    title: string | null;
    platform: Platform;
    content_text: string | null;
    scheduled_for_utc: string;
  }>`
    with next as (
      select id, group_id, platform, scheduled_for_utc, body from posts
      where org_id = ${orgId} and status = 'scheduled' and scheduled_for_utc > ${now}
      order by scheduled_for_utc, id
      limit ${limit}
    )
    select n.id, n.group_id, g.title, n.platform, n.body->>'contentText' as content_text, n.scheduled_for_utc
    from next n left join post_groups g on g.id = n.group_id
    order by n.scheduled_for_utc, n.id`.execute(db);
  return rows.map((r) => ({
    postId: r.id,
    groupId: r.group_id,
    title: r.title ?? '',
    platform: r.platform,
    contentText: r.content_text ?? '',
    scheduledForUtc: r.scheduled_for_utc,
  }));
}

/** Posts scheduled after `now`, and posts whose publishing failed for good. */
export async function scheduleCounts(
  db: Kysely<ReadModels>,
  orgId: string,
  now: string,
): Promise<{ postsUpcoming: number; postsFailed: number }> {
  const { rows } = await sql<{ upcoming: number; failed: number }>`
    select count(*) filter (where status = 'scheduled' and scheduled_for_utc > ${now})::int as upcoming,
      count(*) filter (where status = 'failed')::int as failed
    from posts where org_id = ${orgId} and status in ('scheduled', 'failed')`.execute(db);
  return { postsUpcoming: rows[0]?.upcoming ?? 0, postsFailed: rows[0]?.failed ?? 0 };
}
