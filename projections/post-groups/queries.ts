// Queries over the post-group read models: list posts (filters, sorts, paging with a total), the calendar,
// single posts and groups, and the scheduled times the slot finder must avoid.
import { CompiledQuery, sql, type Kysely, type OrderByItemBuilder } from 'kysely';
import {
  postGroupView,
  postView,
  type PostGroupView,
  type PostView,
} from '../../domain/post-groups/views.js';
import type { Platform } from '../../domain/shared/platforms.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { NotFound } from '../../domain/shared/errors.js';
import { asJsonText, type JsonText } from '../../domain/shared/json-text.js';
import { toPage, type Page } from '../../domain/shared/page.js';
import type { EventStore } from '../../infra/event-store/port.js';
import type { ReadModels } from '../read-models.js';
import { postGroupAuditTrail, type AuditEntry } from './audit-trail.js';

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

/** The page's rows in the query's order (ties broken by id, so pages never overlap). */
function pageQuery(db: Kysely<ReadModels>, orgId: string, query: PostQuery) {
  return filtered(db, orgId, query)
    .orderBy(sql.ref(sortColumns[query.sortBy]), (ob) => sortOrder(ob, query))
    .orderBy('id', query.sortDir)
    .limit(query.limit)
    .offset(query.offset);
}

/**
 * The list statement written out rather than built with kysely's query builder, whose building and compiling
 * were a tenth of a list request's CPU: the same conditions as `filtered`, the same order as `pageQuery`. The
 * count, and the page beside it as a lateral subquery; the page's bodies become text outside it (inside, every
 * row the sort sees would be serialised, not only the page's).
 */
function listStatement(
  orgId: string,
  query: PostQuery,
): CompiledQuery<{ total: string; body: string | null }> {
  const values: unknown[] = [orgId];
  const value = (v: unknown) => `$${values.push(v)}`;
  const where = ['org_id = $1'];
  if (query.onlyTimed) where.push('scheduled_for_utc is not null');
  for (const f of query.filters) {
    switch (f.field) {
      case 'platform':
      case 'status':
        where.push(
          f.op === 'eq'
            ? `${f.field} = ${value(f.value)}`
            : `${f.field} in (${f.values.map(value).join(', ')})`,
        );
        break;
      case 'tagId':
        where.push(`tag_ids && ${value(f.op === 'eq' ? [f.value] : f.values)}::uuid[]`);
        break;
      case 'socialAccountId':
        where.push(`social_account_id = ${value(f.value)}`);
        break;
      case 'scheduledFrom':
        where.push(`scheduled_for_utc >= ${value(f.value)}`);
        break;
      case 'scheduledTo':
        where.push(`scheduled_for_utc <= ${value(f.value)}`);
        break;
    }
  }
  const conditions = where.join(' and ');
  const dir = query.sortDir === 'asc' ? 'asc' : 'desc';
  const nulls = dir === 'desc' && query.sortBy === 'scheduledForUtc' ? ' nulls last' : '';
  const text =
    `select c.n as total, p.body::text as body from (select count(*) as n from posts where ${conditions}) c ` +
    `left join lateral (select body from posts where ${conditions} ` +
    `order by ${sortColumns[query.sortBy]} ${dir}${nulls}, id ${dir} ` +
    `limit ${value(query.limit)} offset ${value(query.offset)}) p on true`;
  return CompiledQuery.raw(text, values);
}

/** One page of post bodies in the query's order. */
async function page(db: Kysely<ReadModels>, orgId: string, query: PostQuery): Promise<PostView[]> {
  const rows = await pageQuery(db, orgId, query).select('body').execute();
  return rows.map((r) => r.body);
}

/**
 * One page of posts as their stored JSON text, for answers that pass them on without parsing and serialising
 * them again, and the number of all matches: one statement (the count, then the page beside it, in its order).
 */
async function findPostsJson(
  db: Kysely<ReadModels>,
  orgId: string,
  query: PostQuery,
): Promise<{ items: JsonText<PostView>[]; total: number }> {
  const result = await db.executeQuery<{ total: string; body: string | null }>(listStatement(orgId, query));
  return {
    items: result.rows.flatMap((r) => (r.body === null ? [] : [asJsonText<PostView>(r.body)])),
    total: Number(result.rows[0]?.total ?? 0),
  };
}

/** One page of posts and the number of all matches. */
export async function findPosts(
  db: Kysely<ReadModels>,
  orgId: string,
  query: PostQuery,
): Promise<{ items: PostView[]; total: number }> {
  const { items, total } = await findPostsJson(db, orgId, query);
  return { items: items.map((item) => JSON.parse(item) as PostView), total };
}

/** A page of the list, from page 1 (`offset` is where it starts). */
export type PostListInput = { orgId: string; page: number } & PostQuery;

const readingPosts = (orgId: string) => ({ orgId, permission: 'posts:read', scope: 'mcp:read' }) as const;

/** Tool: list_posts. Posts with filters, sorting and paging; total counts every match. */
export async function listPosts(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: PostListInput,
): Promise<Page<PostView>> {
  const { items, ...page } = await listPostsJson(db, caller, input);
  return { items: items.map((item) => JSON.parse(item) as PostView), ...page };
}

/** listPosts with each post as the JSON the read model stores, for answers that pass it on as it is. */
export async function listPostsJson(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: PostListInput,
): Promise<Page<JsonText<PostView>>> {
  const { orgId, page, ...query } = input;
  authorize(caller, readingPosts(orgId));
  const { items, total } = await findPostsJson(db, orgId, query);
  return toPage(items, total, page, query.limit);
}

/** The calendar: the posts that have a time, with the list's query (a plain list, no total). */
export function listSchedulerEvents(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: { orgId: string } & PostQuery,
): Promise<PostView[]> {
  const { orgId, ...query } = input;
  authorize(caller, readingPosts(orgId));
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

// ---------------------------------------------------------------------------------------- for a caller

/** A post group with its posts, for a caller who may read posts (an assistant: mcp:read). */
export async function getPostGroup(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: { orgId: string; groupId: string },
): Promise<{ group: PostGroupView; posts: PostView[] }> {
  authorize(caller, { orgId: input.orgId, permission: 'posts:read', scope: 'mcp:read' });
  const found = await getPostGroupWithPosts(db, input.orgId, input.groupId);
  if (!found) throw new NotFound('Post group not found');
  return found;
}

export interface PostGroupHistory {
  groupId: string;
  /** The revision the history and the group stand at. */
  revision: number;
  asOf: string | null;
  entries: AuditEntry[];
  group: PostGroupView;
  posts: PostView[];
}

/**
 * The approval history of a group, replayed from its stream (never from a read model), and the group as it stood
 * at `revision` or `asOf` (the latest without either); for callers with audit:read.
 */
export async function getPostGroupHistory(
  eventStore: EventStore<unknown>,
  caller: Caller,
  input: { orgId: string; groupId: string; revision?: number; asOf?: string },
): Promise<PostGroupHistory> {
  const { orgId, groupId } = input;
  authorize(caller, { orgId, permission: 'audit:read', scope: 'mcp:read' });
  const trail = await postGroupAuditTrail(eventStore, orgId, groupId, {
    ...(input.revision !== undefined ? { revision: input.revision } : {}),
    ...(input.asOf !== undefined ? { asOf: input.asOf } : {}),
  });
  return {
    groupId: trail.groupId,
    revision: trail.revision,
    asOf: trail.asOf,
    entries: trail.entries,
    group: postGroupView(trail.group),
    posts: trail.group.posts.map((p) => postView(trail.group, p)),
  };
}
