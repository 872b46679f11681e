// Post group and draft routes: create, edit, approve, reject and schedule groups, create drafts for review,
// read one group, and the auditors' approval history replayed from the group's stream.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Kysely } from 'kysely';
import {
  approvePostGroup,
  createPostGroup,
  rejectPostGroup,
  schedulePostGroup,
  updatePostGroup,
  type PostGroupDeps,
  type WriteOptions,
  type WriteResult,
} from '../../commands/post-groups/post-group-commands.js';
import { newId } from '../../commands/shared/ids.js';
import type { StoredResponse } from '../../commands/shared/idempotency.js';
import type { ActivePostGroup, NewPostInput } from '../../domain/post-groups/post-group.js';
import { checkPostContent, type ContentContext } from '../../domain/post-groups/content-rules.js';
import { checkPostAccounts } from '../shared/post-accounts.js';
import type { PlatformPayload } from '../../domain/post-groups/post-content.js';
import { postGroupView, postView } from '../../domain/post-groups/views.js';
import { NotFound, ValidationError, type ErrorDetail } from '../../domain/shared/errors.js';
import { postGroupAuditTrail } from '../../projections/post-groups/audit-trail.js';
import { getPostGroupWithPosts } from '../../projections/post-groups/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import { existingTagIds } from '../../projections/tags/queries.js';
import { requirePermission, secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { commandMetadata, idempotentWrite } from '../shared/write.js';
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

/** Tags deleted since they were put on the group are left out of answers (the read model drops them too). */
export async function renderGroup(db: Kysely<ReadModels>, group: ActivePostGroup) {
  const view = postGroupView(group);
  if (view.tagIds.length === 0) return view;
  const live = await existingTagIds(db, group.orgId, view.tagIds);
  return { ...view, tagIds: view.tagIds.filter((id) => live.has(id)) };
}

/**
 * Runs a post-group write under the Idempotency-Key: the answer is rendered from the state the command left
 * and stored in the append's transaction; a no-op command renders the state it found.
 */
export function groupWrite(
  c: Context<AppEnv>,
  services: RouteServices,
  body: unknown,
  execute: (options: WriteOptions) => Promise<WriteResult>,
  render: (db: Kysely<ReadModels>, result: WriteResult) => Promise<unknown>,
): Promise<Response> {
  return idempotentWrite(c, services, body, async ({ record, idempotencySeed }) => {
    let response: StoredResponse | undefined;
    const result = await execute({
      ...(idempotencySeed ? { idempotencySeed } : {}),
      sideWrite: async (trx, group) => {
        response = {
          status: 200,
          body: { data: await render(trx as Kysely<ReadModels>, { group, appended: true }) },
        };
        await record?.(trx, response);
      },
    });
    if (!result.appended || !response) {
      response = { status: 200, body: { data: await render(services.readModels, result) } };
    }
    return { response, appended: result.appended };
  });
}

/** Unknown tag ids are a bad request naming each one. */
async function assertTags(services: RouteServices, orgId: string, tagIds: readonly string[] | undefined) {
  if (!tagIds || tagIds.length === 0) return;
  const live = await existingTagIds(services.readModels, orgId, tagIds);
  const details: ErrorDetail[] = tagIds.flatMap((id, index) =>
    live.has(id) ? [] : [{ path: `body.tagIds.${index}`, message: 'Unknown tag in this workspace' }],
  );
  if (details.length > 0) throw new ValidationError('Unknown tag ids', undefined, details);
}

const liftedKeys = [
  'reddit',
  'youtube',
  'tiktok',
  'thread',
  'quoteTweetUrl',
  'communityUrl',
  'replySettings',
  'poll',
] as const;

/**
 * Platform settings given beside the post (drafts take them all there, post groups take replySettings) are kept
 * in platformPayload; content problems are reported under the names the caller used.
 */
function toNewPosts(
  posts: ReadonlyArray<Record<string, unknown> & { platform: NewPostInput['platform']; contentText: string }>,
  groupTitle: string,
  idFor: (index: number) => string,
  accounts: ContentContext = {},
): NewPostInput[] {
  const details: ErrorDetail[] = [];
  const out = posts.map((p, index) => {
    const given = (p.platformPayload as PlatformPayload | undefined) ?? {};
    const payload: Record<string, unknown> = { ...given };
    const lifted = new Set<string>();
    for (const key of liftedKeys) {
      if (p[key] !== undefined) {
        payload[key] = p[key];
        lifted.add(key);
      }
    }
    const post: NewPostInput = {
      postId: idFor(index),
      platform: p.platform,
      socialAccountId: (p.socialAccountId as string | undefined) ?? null,
      contentText: p.contentText,
      media: (p.media as NewPostInput['media'] | undefined) ?? null,
      platformPayload: Object.keys(payload).length > 0 ? payload : null,
    };
    for (const problem of checkPostContent(post, { ...accounts, groupTitle })) {
      const key = /^platformPayload\.([^.]+)/.exec(problem.path)?.[1];
      const path = key && lifted.has(key) ? problem.path.slice('platformPayload.'.length) : problem.path;
      details.push({ path: `body.posts.${index}.${path}`, message: problem.message });
    }
    return post;
  });
  if (details.length > 0)
    throw new ValidationError('The content does not meet the platform rules', undefined, details);
  return out;
}

const groupAndPosts = async (db: Kysely<ReadModels>, { group }: WriteResult) => ({
  group: await renderGroup(db, group),
  posts: group.posts.map((p) => postView(group, p)),
});
const groupOnly = async (db: Kysely<ReadModels>, { group }: WriteResult) => renderGroup(db, group);

const base = '/v1/orgs/{orgId}/marketing';

const createGroupRoute = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'post',
  path: `${base}/post-groups`,
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
  tags: ['marketing'],
  summary: 'A post group with its posts',
  request: { params: groupParams },
  responses: {
    200: jsonResponse(dataOf(groupWithPostsSchema), 'The group and its posts'),
    ...errorResponses(400, 401, 403, 404),
  },
});

const updateGroupRoute = createRoute({
  ...secured(),
  method: 'patch',
  path: `${base}/post-groups/{groupId}`,
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
  const deps = postGroupDeps(services);

  /** Post groups and drafts are created alike; drafts carry fewer fields and enter review at once. */
  const create = async (
    c: Context<AppEnv>,
    orgId: string,
    origin: 'post_groups' | 'drafts',
    body: z.infer<typeof createDraftBody> | z.infer<typeof createPostGroupBody>,
  ) => {
    // Drafts take none of the composer's planning fields (timezone, time, tags, strategy links).
    const b: Partial<z.infer<typeof createPostGroupBody>> = origin === 'post_groups' ? body : {};
    const accounts = await checkPostAccounts(
      services.readModels,
      orgId,
      body.posts.map((p, index) => ({
        platform: p.platform,
        socialAccountId: p.socialAccountId,
        path: `body.posts.${index}.socialAccountId`,
      })),
    );
    return groupWrite(
      c,
      services,
      body,
      (options) => {
        const seed = options.idempotencySeed;
        return createPostGroup(
          deps,
          {
            orgId,
            groupId: newId(seed ? [seed, 'group'] : undefined),
            origin,
            fields: {
              title: body.title,
              topic: body.topic ?? null,
              objective: body.objective ?? null,
              timezone: b.timezone ?? 'UTC',
              scheduledFor: b.scheduledFor ?? null,
              tagIds: [...new Set(b.tagIds ?? [])],
            },
            strategy: {
              strategyId: b.strategyId ?? null,
              strategyVersion: b.strategyVersion ?? null,
              pillarId: b.pillarId ?? null,
              priorityId: b.priorityId ?? null,
              contentType: b.contentType ?? null,
              opportunityId: b.opportunityId ?? null,
            },
            posts: toNewPosts(
              body.posts,
              body.title,
              (i) => newId(seed ? [seed, 'post', String(i)] : undefined),
              accounts,
            ),
            contentContext: accounts,
          },
          commandMetadata(c, services),
          options,
        );
      },
      groupAndPosts,
    ) as never;
  };

  /** Approve, reject and schedule: one command on the group, answered with the group. */
  const review = <Body>(
    c: Context<AppEnv>,
    ref: { orgId: string; groupId: string },
    body: Body,
    command: (
      deps: PostGroupDeps,
      ref: { orgId: string; groupId: string },
      body: Body,
      metadata: ReturnType<typeof commandMetadata>,
      options: WriteOptions,
    ) => Promise<WriteResult>,
  ) =>
    groupWrite(
      c,
      services,
      body,
      (options) => command(deps, ref, body, commandMetadata(c, services), options),
      groupOnly,
    ) as never;

  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(createGroupRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      await assertTags(services, orgId, body.tagIds);
      return create(c, orgId, 'post_groups', body);
    });

    app.openapi(createDraftRoute, (c) =>
      create(c, c.req.valid('param').orgId, 'drafts', c.req.valid('json')),
    );

    app.openapi(getGroupRoute, async (c) => {
      const { orgId, groupId } = c.req.valid('param');
      const found = await getPostGroupWithPosts(services.readModels, orgId, groupId);
      if (!found) throw new NotFound('Post group not found');
      return c.json({ data: found }, 200);
    });

    app.openapi(updateGroupRoute, async (c) => {
      const { orgId, groupId } = c.req.valid('param');
      const body = c.req.valid('json');
      const { status, ...changes } = body;
      if (
        Object.keys(changes).length > 0 ||
        status === 'draft' ||
        status === 'pending_approval' ||
        status === 'canceled'
      )
        requirePermission(c, 'posts:draft');
      if (status === 'approved') requirePermission(c, 'posts:approve');
      if (status === 'scheduled') requirePermission(c, 'posts:schedule');
      await assertTags(services, orgId, changes.tagIds);
      return groupWrite(
        c,
        services,
        body,
        // The edit and the status move are one decision: a refused move leaves the edit unsaved too.
        (options) =>
          updatePostGroup(
            deps,
            { orgId, groupId },
            { changes, ...(status !== undefined ? { status } : {}) },
            commandMetadata(c, services),
            options,
          ),
        groupOnly,
      ) as never;
    });

    app.openapi(approveRoute, (c) =>
      review(c, c.req.valid('param'), c.req.valid('json') ?? {}, approvePostGroup),
    );
    app.openapi(rejectRoute, (c) =>
      review(c, c.req.valid('param'), c.req.valid('json') ?? {}, rejectPostGroup),
    );
    app.openapi(scheduleRoute, (c) =>
      review(c, c.req.valid('param'), c.req.valid('json') ?? {}, schedulePostGroup),
    );

    app.openapi(historyRoute, async (c) => {
      const { orgId, groupId } = c.req.valid('param');
      const query = c.req.valid('query');
      const trail = await postGroupAuditTrail(services.commands.eventStore, orgId, groupId, {
        ...(query.revision !== undefined ? { revision: query.revision } : {}),
        ...(query.asOf !== undefined ? { asOf: query.asOf } : {}),
      });
      return c.json(
        {
          data: {
            groupId: trail.groupId,
            revision: trail.revision,
            asOf: trail.asOf,
            entries: trail.entries,
            group: postGroupView(trail.group),
            posts: trail.group.posts.map((p) => postView(trail.group, p)),
          },
        },
        200,
      );
    });
  };
}
