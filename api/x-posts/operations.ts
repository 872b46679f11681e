// The X posts slice's operations: POST ORG/marketing/x-posts/delete (Tool: delete_x_post) — one of the
// workspace's own X posts, named by link or by our post id, deleted on X and removed here, or taken off the
// schedule when not sent yet — and the paid reads x-posts/read (Tool: get_x_post) and x-posts/thread (Tool:
// get_x_thread), charged per post returned.
import { z } from '@hono/zod-openapi';
import { deleteXPost } from '../../commands/x-posts/delete-x-post.js';
import { readXPost, readXThread, X_POST_READ, type XReadDeps } from '../../commands/x-posts/read-x-posts.js';
import { billingServices } from '../billing/services.js';
import { postGroupDeps } from '../post-groups/deps.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { canonicalUuid, orgParams } from '../shared/params.js';
import { readXPostBody, readXThreadBody, xPostReadSchema, xThreadReadSchema } from './schemas.js';
import type { SliceContext } from '../shared/slice-context.js';

export const deleteXPostBody = z
  .object({
    postUrl: z
      .string()
      .min(1)
      .optional()
      .openapi({ example: 'https://x.com/acme/status/1790000000000000000' }),
    postId: canonicalUuid()
      .optional()
      .openapi({ description: "A post of this workspace (the post's id here)" }),
    socialAccountId: canonicalUuid()
      .optional()
      .openapi({ description: 'The X account to delete with, for a link to a post published elsewhere' }),
  })
  .strict()
  .superRefine((body, ctx) => {
    const given = Number(body.postUrl !== undefined) + Number(body.postId !== undefined);
    if (given !== 1)
      ctx.addIssue({
        code: 'custom',
        path: given === 0 ? ['postUrl'] : ['postId'],
        message: given === 0 ? 'give postUrl or postId' : 'give postUrl or postId, not both',
      });
  })
  .openapi('DeleteXPost');

export const xPostDeletionSchema = z
  .object({
    outcome: z.enum(['deleted_on_x', 'removed_from_schedule']),
    postId: z.string().nullable(),
    xPostId: z.string().nullable(),
    socialAccountId: z.string().nullable(),
    warnings: z.array(z.string()),
  })
  .openapi('XPostDeletion');

/** What deleting and reading X posts need. */
export function xPostDeps(ctx: SliceContext) {
  const { services } = ctx;
  const billing = ctx.use(billingServices);
  const reads: XReadDeps = {
    idempotency: services.idempotency,
    accounts: services.accounts,
    connectors: services.connectors,
    credits: billing.credits,
    postCost: billing.catalog.actionCost(X_POST_READ)?.credits ?? 0,
  };
  return {
    postGroups: postGroupDeps(ctx),
    readModels: services.readModels,
    accounts: services.accounts,
    connectors: services.connectors,
    idempotency: services.idempotency,
    reads,
  };
}

/** The body's refinement lets exactly one of postId and postUrl through. */
function deletionTarget(body: z.output<typeof deleteXPostBody>) {
  return body.postId !== undefined ? { postId: body.postId } : { postUrl: body.postUrl ?? '' };
}

const operation = operationsWith<ReturnType<typeof xPostDeps>>();

export const xPostOperations = operationGroup(xPostDeps, [
  operation({
    name: 'delete_x_post',
    kind: 'write',
    method: 'post',
    path: '/v1/orgs/{orgId}/marketing/x-posts/delete',
    tags: ['marketing'],
    summary: "Delete one of the workspace's own X posts",
    description:
      'Tool: delete_x_post. A published post is deleted on X and removed here (`deleted_on_x`); a post not sent ' +
      'yet is canceled (`removed_from_schedule`); a link to a post published elsewhere is deleted with the ' +
      "workspace's X account (or `socialAccountId`). Irreversible for published posts.",
    params: orgParams,
    body: deleteXPostBody,
    output: xPostDeletionSchema,
    outputDescription: 'What was done',
    errors: [400, 401, 403, 404, 409, 422, 429, 503],
    access: { permission: 'posts:delete', scope: 'posts:delete' },
    tool: {
      title: 'Delete an X post',
      description:
        'Deletes one of the workspace’s own posts on X, named by its link (`postUrl`) or by the post’s id here ' +
        '(`postId`); a post not sent yet is taken off the schedule instead. Irreversible for published posts: ' +
        'confirm with the person first.',
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
      summary: (d) =>
        d.outcome === 'deleted_on_x'
          ? `Deleted X post ${d.xPostId ?? ''} on X.`
          : `Took post ${d.postId ?? ''} off the schedule (it was not sent to X).`,
    },
    run: (deps, { caller, request }, input) =>
      deleteXPost(
        deps,
        caller,
        {
          orgId: input.orgId,
          target: deletionTarget(input),
          socialAccountId: input.socialAccountId ?? null,
        },
        request,
      ),
  }),
  operation({
    name: 'get_x_post',
    kind: 'write',
    method: 'post',
    path: '/v1/orgs/{orgId}/marketing/x-posts/read',
    tags: ['marketing'],
    summary: 'Read one X post (paid: credits per post returned)',
    description:
      "Tool: get_x_post. Reads a post on X by link or id with the workspace's X account: text, author, numbers, " +
      'links, hashtags, mentions, cashtags, media (with includeMedia) and the posts it answers or quotes. One ' +
      '`x_post_read` is charged for the post returned; nothing when the post is not there or X fails. 402 ' +
      '`fair_use_limit` when the credits do not cover it.',
    params: orgParams,
    body: readXPostBody,
    output: xPostReadSchema,
    outputDescription: 'The post and what the read used',
    errors: [400, 401, 402, 403, 404, 409, 422, 429, 503],
    access: { permission: 'posts:draft', scope: 'posts:write', billing: 'paid' },
    tool: {
      title: 'Read an X post',
      description:
        'Reads one post on X, named by its link (https://x.com/<handle>/status/<id>) or id: its text, author ' +
        '(handle, name, followers, verified), numbers (likes, reposts, replies, quotes, bookmarks, impressions), ' +
        'links, hashtags, mentions, cashtags, media when includeMedia is true, and the posts it replies to or ' +
        'quotes. Costs usage credits for the post returned (see usage); nothing is charged when the read fails. ' +
        'Use it to study a post before drafting an answer or a post in its style. It never posts anything.',
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      summary: ({ post, usage }) =>
        `Post ${post.id} by ${post.author?.handle ? `@${post.author.handle}` : 'an unknown author'}: ` +
        `${post.metrics.likes} likes, ${post.metrics.replies} replies; ${usage.creditsUsed} credit(s) used.`,
    },
    run: (deps, { caller, request }, { orgId, post, includeMedia, socialAccountId }) =>
      readXPost(
        deps.reads,
        caller,
        {
          orgId,
          post,
          ...(includeMedia !== undefined ? { includeMedia } : {}),
          ...(socialAccountId !== undefined ? { socialAccountId } : {}),
        },
        request,
      ),
  }),
  operation({
    name: 'get_x_thread',
    kind: 'write',
    method: 'post',
    path: '/v1/orgs/{orgId}/marketing/x-posts/thread',
    tags: ['marketing'],
    summary: "Read an X post's conversation (paid: credits per post returned)",
    description:
      "Tool: get_x_thread. The post, its conversation's root, the root author's own thread oldest first and, with " +
      "includeReplies, other people's replies (X's conversation search covers the last seven days), at most " +
      '`limit` of thread and replies together. Credits for the most it may return (limit + 2) are held while X is ' +
      'read; each distinct post returned is charged once, a failed read charges nothing.',
    params: orgParams,
    body: readXThreadBody,
    output: xThreadReadSchema,
    outputDescription: 'The post, its root, the thread, the replies and what the read used',
    errors: [400, 401, 402, 403, 404, 409, 422, 429, 503],
    access: { permission: 'posts:draft', scope: 'posts:write', billing: 'paid' },
    tool: {
      title: 'Read an X thread',
      description:
        "Reads the conversation of a post on X (link or id): the conversation's first post (root), the root " +
        "author's own thread in order and, with includeReplies, other people's replies, at most `limit` (default " +
        '25) of thread and replies together; hasMore says when more exist. Costs usage credits for each distinct ' +
        'post returned (see usage); the credits for the most it may return must be available. Nothing is charged ' +
        'when the read fails. It never posts anything.',
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      summary: (d) =>
        `Conversation of ${d.post.id}: root ${d.root?.id ?? 'not available'}, ${d.thread.length} thread post(s), ` +
        `${d.replies.length} repl${d.replies.length === 1 ? 'y' : 'ies'}${d.hasMore ? ' (more exist)' : ''}; ` +
        `${d.usage.creditsUsed} credit(s) used.`,
    },
    run: (deps, { caller, request }, { orgId, post, includeMedia, includeReplies, limit, socialAccountId }) =>
      readXThread(
        deps.reads,
        caller,
        {
          orgId,
          post,
          ...(includeMedia !== undefined ? { includeMedia } : {}),
          ...(includeReplies !== undefined ? { includeReplies } : {}),
          ...(limit !== undefined ? { limit } : {}),
          ...(socialAccountId !== undefined ? { socialAccountId } : {}),
        },
        request,
      ),
  }),
]);
