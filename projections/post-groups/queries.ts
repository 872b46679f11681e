// Queries over the post-group read models: list posts (filters, sorts, paging with a total), the calendar,
// single posts and groups, and the scheduled times the slot finder must avoid.
import { sql, type Kysely, type OrderByItemBuilder } from 'kysely';
import type { PostGroupView, PostView } from '../../domain/post-groups/views.js';
import type { Platform } from '../../domain/post-groups/post-content.js';
import type { ReadModels } from '../read-models.js';

export type PostFilter =
  | { field: 'platform' | 'status' | 'tagId'; op: 'eq'; value: string }
  | { field: 'platform' | 'status' | 'tagId'; op: 'in'; values: string[] }
  | { field: 'socialAccountId'; op: 'eq'; value: string }
  | { field: 'scheduledFrom'; op: 'gte'; value: string }
  | { field: 'scheduledTo'; op: 'lte'; value: string };

export type PostSort = 'scheduledForUtc' | 'createdAt' | 'status' | 'platform';

export interface PostQuery {
  filters: readonly PostFilter[];
  sortBy: PostSort;
  sortDir: 'asc' | 'desc';
  limit: number;
  offset: number;
  /** The calendar only shows posts that have a time. */
  onlyTimed?: boolean;
}

const sortColumns = {
  scheduledForUtc: 'scheduled_for_utc',
  createdAt: 'created_at',
  status: 'status',
  platform: 'platform',
} as const;

/**
 * Posts without a time come last either way. Only `scheduled_for_utc` can be null; the other sort columns keep
 * plain asc/desc so a backward scan of their index serves the order (a NULLS LAST there would force a sort).
 */
function sortOrder(ob: OrderByItemBuilder, query: Pick<PostQuery, 'sortBy' | 'sortDir'>): OrderByItemBuilder {
  if (query.sortDir === 'asc') return ob.asc();
  return query.sortBy === 'scheduledForUtc' ? ob.desc().nullsLast() : ob.desc();
}

function filtered(db: Kysely<ReadModels>, orgId: string, query: Pick<PostQuery, 'filters' | 'onlyTimed'>) {
  let q = db.selectFrom('posts').where('org_id', '=', orgId);
  if (query.onlyTimed) q = q.where('scheduled_for_utc', 'is not', null);
  for (const f of query.filters) {
    switch (f.field) {
      case 'platform':
      case 'status':
        q = f.op === 'eq' ? q.where(f.field, '=', f.value) : q.where(f.field, 'in', f.values);
        break;
      case 'tagId': {
        const ids = f.op === 'eq' ? [f.value] : f.values;
        q = q.where(sql<boolean>`tag_ids && ${sql.val(ids)}::uuid[]`);
        break;
      }
      case 'socialAccountId':
        q = q.where('social_account_id', '=', f.value);
        break;
      case 'scheduledFrom':
        q = q.where('scheduled_for_utc', '>=', f.value);
        break;
      case 'scheduledTo':
        q = q.where('scheduled_for_utc', '<=', f.value);
        break;
    }
  }
  return q;
}

/** One page of post bodies in the query's order (ties broken by id, so pages never overlap). */
async function page(db: Kysely<ReadModels>, orgId: string, query: PostQuery): Promise<PostView[]> {
  const rows = await filtered(db, orgId, query)
    .select('body')
    .orderBy(sql.ref(sortColumns[query.sortBy]), (ob) => sortOrder(ob, query))
    .orderBy('id', query.sortDir)
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return rows.map((r) => r.body);
}

export async function listPosts(
  db: Kysely<ReadModels>,
  orgId: string,
  query: PostQuery,
): Promise<{ items: PostView[]; total: number }> {
  const [items, count] = await Promise.all([
    page(db, orgId, query),
    filtered(db, orgId, query)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(count.n) };
}

export function listSchedulerEvents(
  db: Kysely<ReadModels>,
  orgId: string,
  query: PostQuery,
): Promise<PostView[]> {
  return page(db, orgId, { ...query, onlyTimed: true });
}

/** The group a post belongs to, within the workspace (null for another workspace's or an unknown post). */
/** One post's row (its group, platform and spec body), or undefined when the workspace has no such post. */
export async function findPostRow(db: Kysely<ReadModels>, orgId: string, postId: string) {
  return db
    .selectFrom('posts')
    .select(['group_id', 'platform', 'body'])
    .where('id', '=', postId)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
}

/** The workspace's post published on the platform under this id (X post deletion by link). */
export async function findPostByExternalId(
  db: Kysely<ReadModels>,
  orgId: string,
  platform: Platform,
  externalId: string,
) {
  return db
    .selectFrom('posts')
    .select(['id', 'group_id'])
    .where('org_id', '=', orgId)
    .where('platform', '=', platform)
    .where((eb) => eb(eb.ref('body', '->>').key('publishedExternalId'), '=', externalId))
    .executeTakeFirst();
}

export async function findPostGroupIdOfPost(
  db: Kysely<ReadModels>,
  orgId: string,
  postId: string,
): Promise<string | null> {
  const row = await db
    .selectFrom('posts')
    .select('group_id')
    .where('id', '=', postId)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  return row?.group_id ?? null;
}

export async function getPostGroupWithPosts(
  db: Kysely<ReadModels>,
  orgId: string,
  groupId: string,
): Promise<{ group: PostGroupView; posts: PostView[] } | null> {
  const group = await db
    .selectFrom('post_groups')
    .select([
      'body',
      // The group's posts share created_at; the aggregate state keeps them in creation order.
      sql<string[]>`jsonb_path_query_array(state, '$.posts[*].id')`.as('postIds'),
    ])
    .where('id', '=', groupId)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  if (!group) return null;
  const posts = await db
    .selectFrom('posts')
    .select('body')
    .where('group_id', '=', groupId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const position = new Map(group.postIds.map((id, index) => [id, index]));
  const at = (id: string) => position.get(id) ?? Number.MAX_SAFE_INTEGER;
  const ordered = posts.map((p) => p.body).sort((a, b) => at(a.id) - at(b.id));
  return { group: group.body, posts: ordered };
}

/** Start times of the workspace's scheduled posts on a platform from `from` on (for the slot finder). */
export async function scheduledTimes(
  db: Kysely<ReadModels>,
  orgId: string,
  platform: string,
  from: string,
  excludePostIds: readonly string[] = [],
): Promise<string[]> {
  let query = db
    .selectFrom('posts')
    .select('scheduled_for_utc')
    .where('org_id', '=', orgId)
    .where('platform', '=', platform)
    .where('status', 'in', ['scheduled', 'publishing'])
    .where('scheduled_for_utc', '>=', from);
  if (excludePostIds.length > 0) query = query.where('id', 'not in', excludePostIds);
  const rows = await query.orderBy('scheduled_for_utc').execute();
  return rows.map((r) => r.scheduled_for_utc!);
}
