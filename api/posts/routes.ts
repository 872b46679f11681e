// Post routes: list posts (filters, sorts, paging), the scheduler calendar, edit, delete and post-now.
// Lists come from the posts read model; writes go through the post's group aggregate.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import {
  deletePost,
  requestPublishNow,
  updatePost,
  type WriteResult,
} from '../../commands/post-groups/post-group-commands.js';
import { postStatuses } from '../../domain/post-groups/post-group.js';
import { platforms, type Platform } from '../../domain/post-groups/post-content.js';
import { checkPostAccounts } from '../shared/post-accounts.js';
import { postView, type PostView } from '../../domain/post-groups/views.js';
import { NotFound } from '../../domain/shared/errors.js';
import {
  findPostGroupIdOfPost,
  findPostRow,
  listPosts,
  listSchedulerEvents,
  type PostFilter,
  type PostQuery,
  type PostSort,
} from '../../projections/post-groups/queries.js';
import { principalOf, requirePermission, secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { defineListQuery, pagedResponse, type ParsedListQuery } from '../platform/paging.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import type { RouteServices } from '../shared/services.js';
import { amendIdempotentResponse, commandMetadata } from '../shared/write.js';
import { groupWrite, postGroupDeps } from '../post-groups/routes.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import { postSchema, updatePostBody } from '../post-groups/schemas.js';

const instantFilter = z.iso.datetime({ offset: true }).transform((v) => new Date(v).toISOString());

const listDefinition = {
  filters: {
    platform: { ops: ['eq', 'in'], value: z.enum(platforms) },
    status: { ops: ['eq', 'in'], value: z.enum(postStatuses) },
    socialAccountId: { ops: ['eq'], value: z.uuid() },
    tagId: { ops: ['eq', 'in'], value: z.uuid() },
    scheduledFrom: { ops: ['gte'], value: instantFilter, description: 'Posts at or after this instant' },
    scheduledTo: { ops: ['lte'], value: instantFilter, description: 'Posts at or before this instant' },
  },
  sortBy: ['scheduledForUtc', 'createdAt', 'status', 'platform'],
} as const;

export const postListQuery = defineListQuery({
  ...listDefinition,
  defaultSort: { by: 'createdAt', dir: 'desc' },
  defaultLimit: 25,
  maxLimit: 100,
});

/** The calendar takes the same query; its defaults suit a calendar (by time, a bigger page). */
export const schedulerEventsQuery = defineListQuery({
  ...listDefinition,
  defaultSort: { by: 'scheduledForUtc', dir: 'asc' },
  defaultLimit: 100,
  maxLimit: 500,
});

function toPostQuery(query: ParsedListQuery<string, string>): PostQuery {
  return {
    filters: query.filters.map((f) =>
      f.op === 'in'
        ? { field: f.field, op: 'in', values: f.values.map(String) }
        : { field: f.field, op: f.op, value: String(f.value) },
    ) as PostFilter[],
    sortBy: (query.sortBy ?? 'createdAt') as PostSort,
    sortDir: query.sortDir,
    limit: query.limit,
    offset: query.offset,
  };
}

const base = '/v1/orgs/{orgId}/marketing';
const postParams = orgParams.extend({
  postId: z.uuid().openapi({ param: { name: 'postId', in: 'path' } }),
});

const listRoute = createRoute({
  ...secured({ permission: 'posts:read' }),
  method: 'get',
  path: `${base}/posts`,
  tags: ['marketing'],
  summary: 'List posts with filters, sorting and paging; total counts every match',
  description: 'Tool: list_posts. Default sort createdAt desc; page size default 25, maximum 100.',
  request: { params: orgParams, query: postListQuery.schema },
  responses: {
    200: jsonResponse(pagedResponse(postSchema), 'A page of posts'),
    ...errorResponses(400, 401, 403),
  },
});

const eventsRoute = createRoute({
  ...secured({ permission: 'posts:read' }),
  method: 'get',
  path: `${base}/scheduler/events`,
  tags: ['marketing'],
  summary: 'The calendar: posts that have a time, with the list-posts query (plain array)',
  description: 'Default sort scheduledForUtc asc; page size default 100, maximum 500.',
  request: { params: orgParams, query: schedulerEventsQuery.schema },
  responses: {
    200: jsonResponse(dataOf(z.array(postSchema)), 'Posts'),
    ...errorResponses(400, 401, 403),
  },
});

const updateRoute = createRoute({
  ...secured(),
  method: 'patch',
  path: `${base}/posts/{postId}`,
  tags: ['marketing'],
  summary:
    'Edit a post; editing the content of an approved, scheduled or failed post invalidates its approval',
  description:
    'Tool: update_post. Omitted keys stay; null removes quoteTweetUrl, communityUrl, replySettings or poll. ' +
    'Content changes need posts:draft, `status: approved` posts:approve, scheduling posts:schedule.',
  request: { params: postParams, headers: idempotencyHeaders, body: jsonBody(updatePostBody) },
  responses: {
    200: jsonResponse(dataOf(postSchema), 'The post'),
    ...errorResponses(400, 401, 403, 404, 409, 413, 422, 503),
  },
});

const deleteRoute = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'delete',
  path: `${base}/posts/{postId}`,
  tags: ['marketing'],
  summary: 'Remove a post from its group (and from the schedule); answers with the post as it was',
  request: { params: postParams, headers: idempotencyHeaders },
  responses: {
    200: jsonResponse(dataOf(postSchema), 'The removed post'),
    ...errorResponses(400, 401, 403, 404, 409, 422, 503),
  },
});

const postNowRoute = createRoute({
  ...secured({ permission: 'posts:publish' }),
  method: 'post',
  path: `${base}/posts/{postId}/post-now`,
  tags: ['marketing'],
  summary: 'Publish an approved post now; 409 for draft or pending_approval',
  description:
    'Tool: post_now. Records the publish request and hands it to the publishing pipeline at once; answers with ' +
    'the post once the attempt has an outcome (published, awaiting_platform, a retry time, or failed), or as ' +
    '`publishing` when it takes longer than POST_NOW_WAIT_MS.',
  request: { params: postParams, headers: idempotencyHeaders },
  responses: {
    200: jsonResponse(dataOf(postSchema), 'The post'),
    ...errorResponses(400, 401, 403, 404, 409, 422, 503),
  },
});

/** The post once it has left `publishing` (published, awaiting the platform, retrying or failed), or null. */
async function awaitPublishOutcome(
  services: RouteServices,
  orgId: string,
  postId: string,
  waitMs: number,
): Promise<PostView | null> {
  const deadline = Date.now() + waitMs;
  for (let delay = 20; Date.now() < deadline; delay = Math.min(200, delay * 2)) {
    await new Promise((resolve) => setTimeout(resolve, delay));
    const row = await findPostRow(services.readModels, orgId, postId);
    if (!row) return null;
    if (row.body.status !== 'publishing') return row.body;
  }
  return null;
}

/**
 * The post's group, looked up inside the idempotent write: a replay answers the stored response without it, so
 * a retried DELETE (the post is gone from the read model by then) replays its answer instead of a 404.
 */
async function groupOfPost(services: RouteServices, orgId: string, postId: string) {
  const groupId = await findPostGroupIdOfPost(services.readModels, orgId, postId);
  if (!groupId) throw new NotFound('Post not found');
  return { orgId, groupId, postId };
}

/** Answers a post write with that post as the command left it. */
const renderPost =
  (postId: string) =>
  async (_db: unknown, { group }: WriteResult): Promise<PostView> => {
    const post = group.posts.find((p) => p.id === postId);
    if (!post) throw new NotFound('Post not found');
    return postView(group, post);
  };

export function postRoutes(services: RouteServices) {
  const deps = postGroupDeps(services);
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(listRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const query = c.req.valid('query');
      const { items, total } = await listPosts(services.readModels, orgId, toPostQuery(query));
      return c.json(
        {
          data: {
            items,
            page: query.page,
            limit: query.limit,
            total,
            hasMore: query.offset + items.length < total,
          },
        },
        200,
      );
    });

    app.openapi(eventsRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const query = c.req.valid('query');
      const items = await listSchedulerEvents(services.readModels, orgId, toPostQuery(query));
      return c.json({ data: items }, 200);
    });

    app.openapi(updateRoute, async (c) => {
      const { orgId, postId } = c.req.valid('param');
      const body = c.req.valid('json');
      const { status, scheduledForUtc, quoteTweetUrl, communityUrl, replySettings, poll, ...content } = body;
      // Whatever the body, editing a post takes a role that may write posts (a viewer's empty PATCH is a 403 too).
      requirePermission(c, 'posts:draft', 'posts:approve', 'posts:schedule');
      if (
        Object.keys(content).length > 0 ||
        (status !== undefined && !['approved', 'scheduled'].includes(status))
      )
        requirePermission(c, 'posts:draft');
      if (
        quoteTweetUrl !== undefined ||
        communityUrl !== undefined ||
        replySettings !== undefined ||
        poll !== undefined
      )
        requirePermission(c, 'posts:draft');
      if (status === 'approved') requirePermission(c, 'posts:approve');
      if (status === 'scheduled') requirePermission(c, 'posts:schedule');
      if (scheduledForUtc !== undefined) requirePermission(c, 'posts:draft', 'posts:schedule');
      const payloadPatch = Object.fromEntries(
        Object.entries({ quoteTweetUrl, communityUrl, replySettings, poll }).filter(
          ([, v]) => v !== undefined,
        ),
      );
      const maySchedule = principalOf(c).permissions.includes('posts:schedule');
      const row = await findPostRow(services.readModels, orgId, postId);
      const accounts = row
        ? await checkPostAccounts(services.readModels, orgId, [
            {
              platform: row.platform as Platform,
              socialAccountId: body.socialAccountId,
              path: 'body.socialAccountId',
            },
          ])
        : {};
      return groupWrite(
        c,
        services,
        body,
        async (options) =>
          updatePost(
            deps,
            await groupOfPost(services, orgId, postId),
            {
              changes: {
                ...content,
                ...(scheduledForUtc !== undefined ? { scheduledForUtc } : {}),
                ...(Object.keys(payloadPatch).length > 0 ? { payloadPatch } : {}),
              },
              ...(status !== undefined ? { status } : {}),
              contentContext: accounts,
            },
            commandMetadata(c, services),
            { ...options, maySchedule },
          ),
        renderPost(postId),
      ) as never;
    });

    app.openapi(deleteRoute, async (c) => {
      const { orgId, postId } = c.req.valid('param');
      let removed: ReturnType<typeof postView> | undefined;
      return groupWrite(
        c,
        services,
        undefined,
        async (options) =>
          deletePost(deps, await groupOfPost(services, orgId, postId), commandMetadata(c, services), {
            ...options,
            onTarget: (post, group) => {
              removed = {
                ...postView(group, post),
                // A removed post that never went out is canceled; a published one stays published on its platform.
                status: post.status === 'published' ? 'published' : 'canceled',
              };
            },
          }),
        async (_db, { group }) => {
          if (removed) return removed;
          throw new Error(`deleted post ${postId} of group ${group.id} was not captured`);
        },
      ) as never;
    });

    app.openapi(postNowRoute, async (c) => {
      const { orgId, postId } = c.req.valid('param');
      const response = await groupWrite(
        c,
        services,
        undefined,
        async (options) =>
          requestPublishNow(
            deps,
            await groupOfPost(services, orgId, postId),
            commandMetadata(c, services),
            options,
          ),
        renderPost(postId),
      );
      if (response.status !== 200 || response.headers.get('idempotent-replayed')) return response as never;
      // The pipeline picks the request up at once; the caller gets the outcome when it comes within the wait.
      const settled = await awaitPublishOutcome(services, orgId, postId, services.env.POST_NOW_WAIT_MS);
      if (!settled) return response as never;
      await amendIdempotentResponse(c, services, undefined, { status: 200, body: { data: settled } });
      return c.json({ data: settled }, 200);
    });
  };
}
