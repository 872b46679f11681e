// Post routes: list posts (filters, sorts, paging), the scheduler calendar, edit, delete and post-now.
// Lists come from the posts read model; writes go through the post's group aggregate.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { deletePost, postNow, updatePost } from '../../commands/post-groups/post-group-use-cases.js';
import { postStatuses } from '../../domain/post-groups/post-group.js';
import { platforms } from '../../domain/post-groups/post-content.js';
import {
  listPostsJson,
  listSchedulerEvents,
  type PostFilter,
  type PostQuery,
  type PostSort,
} from '../../projections/post-groups/queries.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { defineListQuery, pagedResponse, type ParsedListQuery } from '../platform/paging.js';
import { dataOf, dataPageJson, jsonBody, jsonResponse, jsonTextResponse } from '../platform/responses.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';
import { postGroupUseCaseDeps } from '../post-groups/routes.js';
import { canonicalUuid, idempotencyHeaders, orgParams } from '../shared/params.js';
import { postWritePermissions, securedAnyOf } from '../shared/permissions.js';
import { postSchema, updatePostBody } from '../post-groups/schemas.js';

const instantFilter = z.iso.datetime({ offset: true }).transform((v) => new Date(v).toISOString());

const listDefinition = {
  filters: {
    platform: { ops: ['eq', 'in'], value: z.enum(platforms) },
    status: { ops: ['eq', 'in'], value: z.enum(postStatuses) },
    socialAccountId: { ops: ['eq'], value: canonicalUuid() },
    tagId: { ops: ['eq', 'in'], value: canonicalUuid() },
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

export function toPostQuery(query: ParsedListQuery<string, string>): PostQuery {
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
  operationId: 'listPosts',
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
  operationId: 'listSchedulerEvents',
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
  ...securedAnyOf(postWritePermissions),
  method: 'patch',
  path: `${base}/posts/{postId}`,
  operationId: 'updatePost',
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
  operationId: 'deletePost',
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
  operationId: 'postNow',
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

export function postRoutes(services: RouteServices) {
  const deps = { ...postGroupUseCaseDeps(services), postNowWaitMs: services.env.POST_NOW_WAIT_MS };
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(listRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const query = c.req.valid('query');
      const input = { orgId, page: query.page, ...toPostQuery(query) };
      // The posts' stored JSON goes into the answer as it is (parsing and serialising it again was a tenth of
      // the CPU time of a list request); the envelope around it is the one c.json would write.
      const page = await listPostsJson(services.readModels, callerOf(c), input);
      return jsonTextResponse(c, dataPageJson(page), 200);
    });

    app.openapi(eventsRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const query = c.req.valid('query');
      const input = { orgId, ...toPostQuery(query) };
      const items = await listSchedulerEvents(services.readModels, callerOf(c), input);
      return c.json({ data: items }, 200);
    });

    app.openapi(updateRoute, async (c) => {
      const body = c.req.valid('json');
      const input = { ...c.req.valid('param'), ...body };
      const written = await updatePost(deps, callerOf(c), input, writeRequest(c, services, body));
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(deleteRoute, async (c) => {
      const input = c.req.valid('param');
      const written = await deletePost(deps, callerOf(c), input, writeRequest(c, services, undefined));
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(postNowRoute, async (c) => {
      const input = c.req.valid('param');
      const written = await postNow(deps, callerOf(c), input, writeRequest(c, services, undefined));
      return c.json({ data: answered(c, written) }, 200);
    });
  };
}
