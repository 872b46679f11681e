// Post group and draft routes: create, edit, approve, reject and schedule groups, create drafts for review,
// read one group, and the auditors' approval history replayed from the group's stream.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { PostGroupDeps } from '../../commands/post-groups/post-group-commands.js';
import {
  approvePostGroup,
  createDraftPost,
  createPostGroup,
  rejectPostGroup,
  schedulePostGroup,
  updatePostGroup,
  type PostGroupUseCaseDeps,
} from '../../commands/post-groups/post-group-use-cases.js';
import { getPostGroup, getPostGroupHistory } from '../../projections/post-groups/queries.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import { postWritePermissions, securedAnyOf } from '../shared/permissions.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';
import {
  approveBody,
  approvalSchema,
  createDraftBody,
  createPostGroupBody,
  groupWithPostsSchema,
  instantSchema,
  postGroupSchema,
  postSchema,
  rejectBody,
  scheduleBody,
  updatePostGroupBody,
} from './schemas.js';

const groupParams = orgParams.extend({
  groupId: z.uuid().openapi({ param: { name: 'groupId', in: 'path' } }),
});
/** A body the spec marks optional: absent, or a JSON object. */
const optionalBody = <T extends z.ZodType>(schema: T) =>
  ({ required: false, content: { 'application/json': { schema } } }) as const;

export function postGroupDeps(services: RouteServices): PostGroupDeps {
  return { ...services.commands, slotFinder: services.slotFinder };
}

/** What the post-group and post use cases need from the route services. */
export function postGroupUseCaseDeps(services: RouteServices): PostGroupUseCaseDeps {
  return {
    postGroups: postGroupDeps(services),
    readModels: services.readModels,
    idempotency: services.idempotency,
  };
}

const base = '/v1/orgs/{orgId}/marketing';

const createGroupRoute = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'post',
  path: `${base}/post-groups`,
  operationId: 'createPostGroup',
  tags: ['marketing'],
  summary: 'Create a post group with one post per platform; it starts as a draft',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(createPostGroupBody) },
  responses: {
    200: jsonResponse(dataOf(groupWithPostsSchema), 'The group and its posts'),
    ...errorResponses(400, 401, 403, 413, 422, 503),
  },
});

const createDraftRoute = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'post',
  path: `${base}/drafts`,
  operationId: 'createDraftPost',
  tags: ['marketing'],
  summary: 'Create a draft: one group, one variant per platform, all waiting for approval (never published)',
  description: 'Tool: create_draft_post.',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(createDraftBody) },
  responses: {
    200: jsonResponse(dataOf(groupWithPostsSchema), 'The group and its posts, all pending_approval'),
    ...errorResponses(400, 401, 403, 413, 422, 503),
  },
});

const getGroupRoute = createRoute({
  ...secured({ permission: 'posts:read' }),
  method: 'get',
  path: `${base}/post-groups/{groupId}`,
  operationId: 'getPostGroup',
  tags: ['marketing'],
  summary: 'A post group with its posts',
  request: { params: groupParams },
  responses: {
    200: jsonResponse(dataOf(groupWithPostsSchema), 'The group and its posts'),
    ...errorResponses(400, 401, 403, 404),
  },
});

const updateGroupRoute = createRoute({
  ...securedAnyOf(postWritePermissions),
  method: 'patch',
  path: `${base}/post-groups/{groupId}`,
  operationId: 'updatePostGroup',
  tags: ['marketing'],
  summary: 'Edit a post group; editing title, topic or objective of an approved group withdraws its approval',
  description:
    'Tool: update_post_group. Omitted keys stay. Needs posts:draft; `status: approved` needs posts:approve and ' +
    '`status: scheduled` posts:schedule (scheduling a draft or pending group is 409).',
  request: { params: groupParams, headers: idempotencyHeaders, body: jsonBody(updatePostGroupBody) },
  responses: {
    200: jsonResponse(dataOf(postGroupSchema), 'The group'),
    ...errorResponses(400, 401, 403, 404, 409, 413, 422, 503),
  },
});

const approveRoute = createRoute({
  ...secured({ permission: 'posts:approve' }),
  method: 'post',
  path: `${base}/post-groups/{groupId}/approve`,
  operationId: 'approvePostGroup',
  tags: ['marketing'],
  summary:
    'Approve a group (or some of its posts); unless autoSchedule is false, each gets the best free slot',
  description: 'Tool: approve_post_group.',
  request: { params: groupParams, headers: idempotencyHeaders, body: optionalBody(approveBody) },
  responses: {
    200: jsonResponse(dataOf(postGroupSchema), 'The group'),
    ...errorResponses(400, 401, 403, 404, 409, 413, 422, 503),
  },
});

const rejectRoute = createRoute({
  ...secured({ permission: 'posts:approve' }),
  method: 'post',
  path: `${base}/post-groups/{groupId}/reject`,
  operationId: 'rejectPostGroup',
  tags: ['marketing'],
  summary: 'Reject a group (or some of its posts) back to draft; the reason is kept as a preference signal',
  description: 'Tool: reject_post_group.',
  request: { params: groupParams, headers: idempotencyHeaders, body: optionalBody(rejectBody) },
  responses: {
    200: jsonResponse(dataOf(postGroupSchema), 'The group'),
    ...errorResponses(400, 401, 403, 404, 409, 413, 422, 503),
  },
});

const scheduleRoute = createRoute({
  ...secured({ permission: 'posts:schedule' }),
  method: 'post',
  path: `${base}/post-groups/{groupId}/schedule`,
  operationId: 'schedulePostGroup',
  tags: ['marketing'],
  summary: 'Schedule the approved posts of a group at a time or the best free slot',
  description: 'Tool: schedule_post_group. 409 for groups in draft or pending_approval.',
  request: { params: groupParams, headers: idempotencyHeaders, body: optionalBody(scheduleBody) },
  responses: {
    200: jsonResponse(dataOf(postGroupSchema), 'The group'),
    ...errorResponses(400, 401, 403, 404, 409, 413, 422, 503),
  },
});

const actorSchema = z
  .object({
    type: z.enum(['user', 'assistant', 'system']),
    userId: z.uuid().nullable(),
    clientId: z.string().optional(),
    clientName: z.string().nullable().optional().openapi({
      description: 'For an assistant: the client name its user approved (null for older events)',
    }),
  })
  .openapi('AuditActor');

const auditEntrySchema = z
  .object({
    revision: z.number().int().openapi({ description: 'Revision of the event in the group stream' }),
    occurredAt: z.string(),
    actor: actorSchema,
    action: approvalSchema.shape.action,
    level: approvalSchema.shape.level,
    postId: z.uuid().nullable(),
    reason: z.string().nullable(),
    note: z.string().nullable(),
    cause: z
      .string()
      .nullable()
      .openapi({ description: 'For submissions: created, submitted, group_edited or post_edited' }),
    contentHash: z.string().openapi({
      description: 'sha256 of the content acted on; for a group-level entry, over all its posts’ hashes',
    }),
    posts: z.array(z.object({ postId: z.uuid(), contentHash: z.string() })),
  })
  .openapi('AuditEntry');

const historyQuery = z
  .object({
    revision: z.coerce
      .number()
      .int()
      .min(0)
      .optional()
      .openapi({ type: 'integer', minimum: 0, description: 'Stream revision to stop at (inclusive)' }),
    asOf: instantSchema
      .optional()
      .openapi({ description: 'Instant to stop at (events that occurred by then)' }),
  })
  .strict()
  .refine((q) => q.revision === undefined || q.asOf === undefined, {
    message: 'give revision or asOf, not both',
    path: ['asOf'],
  });

const historyRoute = createRoute({
  ...secured({ permission: 'audit:read' }),
  method: 'get',
  path: `${base}/post-groups/{groupId}/history`,
  operationId: 'getPostGroupHistory',
  tags: ['marketing'],
  summary: 'Approval history of a post group, replayed from its event stream (owners and admins)',
  description:
    'Beyond the spec, for auditors. Every submission, approval, re-approval and rejection with its revision, ' +
    'time, actor (a user, or an assistant client acting for one), level, post, reason, note and a hash of the ' +
    'content. With `revision` or `asOf`, the group and its posts as they stood then, rebuilt by replaying the ' +
    'stream up to that point.',
  request: { params: groupParams, query: historyQuery },
  responses: {
    200: jsonResponse(
      dataOf(
        z
          .object({
            groupId: z.uuid(),
            revision: z.number().int(),
            asOf: z.string().nullable(),
            entries: z.array(auditEntrySchema),
            group: postGroupSchema,
            posts: z.array(postSchema),
          })
          .openapi('PostGroupHistory'),
      ),
      'The history and the group at that point',
    ),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function postGroupRoutes(services: RouteServices) {
  const deps = postGroupUseCaseDeps(services);
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(createGroupRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await createPostGroup(
        deps,
        callerOf(c),
        { orgId, ...body },
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(createDraftRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await createDraftPost(
        deps,
        callerOf(c),
        { orgId, ...body },
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(getGroupRoute, async (c) => {
      return c.json(
        { data: await getPostGroup(services.readModels, callerOf(c), c.req.valid('param')) },
        200,
      );
    });

    app.openapi(updateGroupRoute, async (c) => {
      const body = c.req.valid('json');
      const input = { ...c.req.valid('param'), ...body };
      const written = await updatePostGroup(deps, callerOf(c), input, writeRequest(c, services, body));
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(approveRoute, async (c) => {
      const body = c.req.valid('json') ?? {};
      const input = { ...c.req.valid('param'), ...body };
      const written = await approvePostGroup(deps, callerOf(c), input, writeRequest(c, services, body));
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(rejectRoute, async (c) => {
      const body = c.req.valid('json') ?? {};
      const input = { ...c.req.valid('param'), ...body };
      const written = await rejectPostGroup(deps, callerOf(c), input, writeRequest(c, services, body));
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(scheduleRoute, async (c) => {
      const body = c.req.valid('json') ?? {};
      const input = { ...c.req.valid('param'), ...body };
      const written = await schedulePostGroup(deps, callerOf(c), input, writeRequest(c, services, body));
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(historyRoute, async (c) => {
      const input = { ...c.req.valid('param'), ...c.req.valid('query') };
      const history = await getPostGroupHistory(services.commands.eventStore, callerOf(c), input);
      return c.json({ data: history }, 200);
    });
  };
}
