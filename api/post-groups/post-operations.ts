// The post-group slice's operations on single posts: list posts (filters, sorts, paging), the scheduler calendar,
// edit, delete and post-now. Lists come from the posts read model; writes go through the post's group aggregate.
// Publishing now needs the posts:publish scope and is a paid action.
import { z } from '@hono/zod-openapi';
import {
  deletePost,
  postNow,
  postWritePermissions,
  updatePost,
} from '../../commands/post-groups/post-group-use-cases.js';
import { postStatuses } from '../../domain/post-groups/post-group.js';
import { platforms } from '../../domain/shared/platforms.js';
import {
  listPosts,
  listPostsJson,
  listSchedulerEvents,
  type PostFilter,
  type PostListInput,
  type PostQuery,
  type PostSort,
} from '../../projections/post-groups/queries.js';
import { defineListQuery, pageSchema, type ParsedListQuery } from '../platform/paging.js';
import { dataPageJson } from '../platform/responses.js';
import { postOperationDeps, type PostOperationDeps } from './deps.js';
import { postSchema, updatePostBody } from './schemas.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { canonicalUuid, orgParams } from '../shared/params.js';

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

/** A page of the list as the read model takes it. */
const listInput = ({
  orgId,
  ...query
}: { orgId: string } & ParsedListQuery<string, string>): PostListInput => ({
  orgId,
  page: query.page,
  ...toPostQuery(query),
});

const postParams = orgParams.extend({
  postId: z.uuid().openapi({ param: { name: 'postId', in: 'path' } }),
});
const describePost = { postId: 'The post' };

const operation = operationsWith<PostOperationDeps>();
const base = '/v1/orgs/{orgId}/marketing';
const post = `${base}/posts/{postId}`;

export const postOperations = operationGroup(postOperationDeps, [
  operation({
    name: 'list_posts',
    kind: 'read',
    method: 'get',
    path: `${base}/posts`,
    tags: ['marketing'],
    summary: 'List posts with filters, sorting and paging; total counts every match',
    description: 'Tool: list_posts. Default sort createdAt desc; page size default 25, maximum 100.',
    params: orgParams,
    query: postListQuery.schema,
    output: pageSchema(postSchema),
    outputDescription: 'A page of posts',
    errors: [400, 401, 403],
    access: { permission: 'posts:read', scope: 'mcp:read' },
    tool: {
      title: 'List posts',
      description:
        'Lists the workspace’s posts (every platform variant of every post group), newest first unless ' +
        'sorted otherwise. Filter with `filter[<field>]` (status, platform, socialAccountId, tagId, ' +
        'scheduledFrom, scheduledTo) and `filterOp[<field>]` (e.g. `in` with comma-separated values); page ' +
        'with `page` and `limit`.',
      hints: { readOnlyHint: true, openWorldHint: false },
      summary: (page) =>
        `${page.items.length} of ${page.total} posts (page ${page.page}${page.hasMore ? ', more follow' : ''}).`,
    },
    run: (deps, { caller }, input) => listPosts(deps.readModels, caller, listInput(input)),
    // The posts' stored JSON goes into the REST answer as it is (parsing and serialising it again was a tenth
    // of the CPU time of a list request); the envelope around it is the one c.json would write.
    runJson: async (deps, { caller }, input) =>
      dataPageJson(await listPostsJson(deps.readModels, caller, listInput(input))),
  }),
  operation({
    name: 'listSchedulerEvents',
    kind: 'read',
    method: 'get',
    path: `${base}/scheduler/events`,
    tags: ['marketing'],
    summary: 'The calendar: posts that have a time, with the list-posts query (plain array)',
    description: 'Default sort scheduledForUtc asc; page size default 100, maximum 500.',
    params: orgParams,
    query: schedulerEventsQuery.schema,
    output: z.array(postSchema),
    outputDescription: 'Posts',
    errors: [400, 401, 403],
    access: { permission: 'posts:read' },
    run: (deps, { caller }, { orgId, ...query }) =>
      listSchedulerEvents(deps.readModels, caller, { orgId, ...toPostQuery(query) }),
  }),
  operation({
    name: 'update_post',
    kind: 'write',
    method: 'patch',
    path: post,
    tags: ['marketing'],
    summary:
      'Edit a post; editing the content of an approved, scheduled or failed post invalidates its approval',
    description:
      'Tool: update_post. Omitted keys stay; null removes quoteTweetUrl, communityUrl, replySettings or poll. ' +
      'Content changes need posts:draft, `status: approved` posts:approve, scheduling posts:schedule.',
    params: postParams,
    body: updatePostBody,
    output: postSchema,
    outputDescription: 'The post',
    errors: [400, 401, 403, 404, 409, 413, 422, 503],
    access: { permission: postWritePermissions, scope: 'posts:write' },
    tool: {
      title: 'Edit a post',
      description:
        'Edits one post (one platform variant): its text, media, platform settings, time or status. Editing ' +
        'the content of an approved post withdraws its approval, so it goes back to review.',
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      describe: describePost,
      summary: (post) => `Updated post ${post.id} (${post.platform}); it is now ${post.status}.`,
    },
    run: (deps, { caller, request }, input) => updatePost(deps, caller, input, request),
  }),
  operation({
    name: 'deletePost',
    kind: 'write',
    method: 'delete',
    path: post,
    tags: ['marketing'],
    summary: 'Remove a post from its group (and from the schedule); answers with the post as it was',
    params: postParams,
    output: postSchema,
    outputDescription: 'The removed post',
    errors: [400, 401, 403, 404, 409, 422, 503],
    access: { permission: 'posts:draft' },
    run: (deps, { caller, request }, input) => deletePost(deps, caller, input, request),
  }),
  operation({
    name: 'post_now',
    kind: 'write',
    method: 'post',
    path: `${post}/post-now`,
    tags: ['marketing'],
    summary: 'Publish an approved post now; 409 for draft or pending_approval',
    description:
      'Tool: post_now. Records the publish request and hands it to the publishing pipeline at once; answers ' +
      'with the post once the attempt has an outcome (published, awaiting_platform, a retry time, or ' +
      'failed), or as `publishing` when it takes longer than POST_NOW_WAIT_MS.',
    params: postParams,
    output: postSchema,
    outputDescription: 'The post',
    errors: [400, 401, 403, 404, 409, 422, 503],
    access: { permission: 'posts:publish', scope: 'posts:publish', billing: 'paid' },
    tool: {
      title: 'Publish a post now',
      description:
        'Publishes one approved post at once on its platform and answers with its outcome (or `publishing` ' +
        'when the platform takes longer). A post that is not approved is refused (409): it must be approved ' +
        'first.',
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      describe: describePost,
      summary: (post) =>
        `Post ${post.id} (${post.platform}) is ${post.status}` +
        (post.publishedUrl ? `: ${post.publishedUrl}` : '') +
        '.',
    },
    run: (deps, { caller, request }, input) => postNow(deps, caller, input, request),
  }),
]);
