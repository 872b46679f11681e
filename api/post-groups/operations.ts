// The post-group slice's operations: create, edit, approve, reject and schedule groups, create drafts for
// review, read one group, and the auditors' approval history replayed from the group's stream. Drafts an
// assistant creates always wait for review; approving and scheduling need the posts:schedule scope.
import { z } from '@hono/zod-openapi';
import {
  approvePostGroup,
  createDraftPost,
  createPostGroup,
  postWritePermissions,
  rejectPostGroup,
  schedulePostGroup,
  updatePostGroup,
} from '../../commands/post-groups/post-group-use-cases.js';
import { getPostGroup, getPostGroupHistory } from '../../projections/post-groups/queries.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import { postOperationDeps, type PostOperationDeps } from './deps.js';
import {
  approveBody,
  createDraftBody,
  createPostGroupBody,
  groupWithPostsSchema,
  historyQuery,
  postGroupHistorySchema,
  postGroupSchema,
  rejectBody,
  scheduleBody,
  updatePostGroupBody,
} from './schemas.js';

const groupParams = orgParams.extend({
  groupId: z.uuid().openapi({ param: { name: 'groupId', in: 'path' } }),
});
const describeGroup = { groupId: 'The post group' };

type GroupAnswer = { id: string; status: string; title: string };
const groupSummary = (verb: string) => (group: GroupAnswer) =>
  `${verb} post group ${group.id} ("${group.title}"); it is now ${group.status}.`;

const operation = operationsWith<PostOperationDeps>();
const base = '/v1/orgs/{orgId}/marketing';
const group = `${base}/post-groups/{groupId}`;
const writeErrors = [400, 401, 403, 404, 409, 413, 422, 503] as const;

export const postGroupOperations = operationGroup(postOperationDeps, [
  operation({
    name: 'createPostGroup',
    kind: 'write',
    method: 'post',
    path: `${base}/post-groups`,
    tags: ['marketing'],
    summary: 'Create a post group with one post per platform; it starts as a draft',
    params: orgParams,
    body: createPostGroupBody,
    output: groupWithPostsSchema,
    outputDescription: 'The group and its posts',
    errors: [400, 401, 403, 413, 422, 503],
    access: { permission: 'posts:draft' },
    run: (deps, { caller, request }, input) => createPostGroup(deps, caller, input, request),
  }),
  operation({
    name: 'create_draft_post',
    kind: 'write',
    method: 'post',
    path: `${base}/drafts`,
    tags: ['marketing'],
    summary:
      'Create a draft: one group, one variant per platform, all waiting for approval (never published)',
    description: 'Tool: create_draft_post.',
    params: orgParams,
    body: createDraftBody,
    output: groupWithPostsSchema,
    outputDescription: 'The group and its posts, all pending_approval',
    errors: [400, 401, 403, 413, 422, 503],
    access: { permission: 'posts:draft', scope: 'posts:write' },
    tool: {
      title: 'Create a draft post for review',
      description:
        'Creates one post group with one variant per platform (x, linkedin, …). Drafts created by an ' +
        'assistant always wait for a person’s approval (`pending_approval`): they are never scheduled or ' +
        'published without it. Platform settings (reddit, youtube, tiktok, poll, …) go beside each post’s ' +
        'contentText.',
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      summary: ({ group, posts }) =>
        `Created post group ${group.id} with ${posts.length} post(s), waiting for approval (${group.status}).`,
    },
    run: (deps, { caller, request }, input) => createDraftPost(deps, caller, input, request),
  }),
  operation({
    name: 'getPostGroup',
    kind: 'read',
    method: 'get',
    path: group,
    tags: ['marketing'],
    summary: 'A post group with its posts',
    params: groupParams,
    output: groupWithPostsSchema,
    outputDescription: 'The group and its posts',
    errors: [400, 401, 403, 404],
    access: { permission: 'posts:read' },
    run: (deps, { caller }, input) => getPostGroup(deps.readModels, caller, input),
  }),
  operation({
    name: 'update_post_group',
    kind: 'write',
    method: 'patch',
    path: group,
    tags: ['marketing'],
    summary:
      'Edit a post group; editing title, topic or objective of an approved group withdraws its approval',
    description:
      'Tool: update_post_group. Omitted keys stay. Needs posts:draft; `status: approved` needs posts:approve ' +
      'and `status: scheduled` posts:schedule (scheduling a draft or pending group is 409).',
    params: groupParams,
    body: updatePostGroupBody,
    output: postGroupSchema,
    outputDescription: 'The group',
    errors: writeErrors,
    access: { permission: postWritePermissions, scope: 'posts:write' },
    tool: {
      title: 'Edit a post group',
      description:
        'Edits a post group’s title, topic, objective, time zone, time or tags (omitted fields stay). Editing ' +
        'the title, topic or objective of an approved group withdraws its approval. `status` moves it (draft, ' +
        'pending_approval, canceled; approved and scheduled need the posts:schedule scope).',
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      describe: describeGroup,
      summary: groupSummary('Updated'),
    },
    run: (deps, { caller, request }, input) => updatePostGroup(deps, caller, input, request),
  }),
  operation({
    name: 'approve_post_group',
    kind: 'write',
    method: 'post',
    path: `${group}/approve`,
    tags: ['marketing'],
    summary:
      'Approve a group (or some of its posts); unless autoSchedule is false, each gets the best free slot',
    description: 'Tool: approve_post_group.',
    params: groupParams,
    body: approveBody,
    bodyRequired: false,
    output: postGroupSchema,
    outputDescription: 'The group',
    errors: writeErrors,
    access: {
      permission: 'posts:approve',
      scope: 'posts:schedule',
      // Approving schedules (a paid action) unless autoSchedule is false.
      billing: (input) => (input.autoSchedule === false ? 'write' : 'paid'),
    },
    tool: {
      title: 'Approve a post group',
      description:
        'Approves a post group waiting for approval (or some of its posts). Unless `autoSchedule` is false, ' +
        'each approved post gets the best free publishing slot. Needs the posts:schedule scope and a role ' +
        'that may approve.',
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      describe: describeGroup,
      summary: groupSummary('Approved'),
    },
    run: (deps, { caller, request }, input) => approvePostGroup(deps, caller, input, request),
  }),
  operation({
    name: 'reject_post_group',
    kind: 'write',
    method: 'post',
    path: `${group}/reject`,
    tags: ['marketing'],
    summary: 'Reject a group (or some of its posts) back to draft; the reason is kept as a preference signal',
    description: 'Tool: reject_post_group.',
    params: groupParams,
    body: rejectBody,
    bodyRequired: false,
    output: postGroupSchema,
    outputDescription: 'The group',
    errors: writeErrors,
    access: { permission: 'posts:approve', scope: 'posts:write' },
    tool: {
      title: 'Reject a post group',
      description:
        'Sends a post group (or some of its posts, `rejectPosts`) back to draft, with an optional reason and ' +
        'note kept as a preference signal for later drafts.',
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      describe: describeGroup,
      summary: groupSummary('Rejected'),
    },
    run: (deps, { caller, request }, input) => rejectPostGroup(deps, caller, input, request),
  }),
  operation({
    name: 'schedule_post_group',
    kind: 'write',
    method: 'post',
    path: `${group}/schedule`,
    tags: ['marketing'],
    summary: 'Schedule the approved posts of a group at a time or the best free slot',
    description: 'Tool: schedule_post_group. 409 for groups in draft or pending_approval.',
    params: groupParams,
    body: scheduleBody,
    bodyRequired: false,
    output: postGroupSchema,
    outputDescription: 'The group',
    errors: writeErrors,
    access: { permission: 'posts:schedule', scope: 'posts:schedule', billing: 'paid' },
    tool: {
      title: 'Schedule a post group',
      description:
        'Schedules the approved posts of a group at `scheduledFor` or the best free slot. Groups in draft or ' +
        'pending_approval are refused (409): they need approval first.',
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      describe: describeGroup,
      summary: groupSummary('Scheduled'),
    },
    run: (deps, { caller, request }, input) => schedulePostGroup(deps, caller, input, request),
  }),
  operation({
    name: 'getPostGroupHistory',
    kind: 'read',
    method: 'get',
    path: `${group}/history`,
    tags: ['marketing'],
    summary: 'Approval history of a post group, replayed from its event stream (owners and admins)',
    description:
      'Beyond the spec, for auditors. Every submission, approval, re-approval and rejection with its ' +
      'revision, time, actor (a user, or an assistant client acting for one), level, post, reason, note and ' +
      'a hash of the content. With `revision` or `asOf`, the group and its posts as they stood then, rebuilt ' +
      'by replaying the stream up to that point.',
    params: groupParams,
    query: historyQuery,
    output: postGroupHistorySchema,
    outputDescription: 'The history and the group at that point',
    errors: [400, 401, 403, 404],
    access: { permission: 'audit:read' },
    run: (deps, { caller }, input) => getPostGroupHistory(deps.postGroups.eventStore, caller, input),
  }),
]);
