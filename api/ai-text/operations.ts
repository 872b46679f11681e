// The ai-text slice's operations: POST ORG/ai/content/generate and POST ORG/ai/summarize (spec part 2, "AI and agent
// runs"; no tool), and the two tools whose paths the spec does not show: rewrite_post (POST
// ORG/marketing/posts/{postId}/rewrite) and create_x_thread (POST ORG/marketing/drafts/x-thread); docs/decisions.md,
// "AI text, rewrite_post and create_x_thread (issue 29)", says why.
import { z } from '@hono/zod-openapi';
import {
  createXThread,
  generateText,
  rewritePost,
  summarizeText,
  type AiTextDeps,
} from '../../commands/ai-text/ai-text-use-cases.js';
import { activeThoughtBriefs } from '../../projections/thoughts/queries.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { billingServices } from '../billing/services.js';
import { postGroupUseCaseDeps } from '../post-groups/deps.js';
import type { slotFinderService } from '../scheduling/services.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import type { SliceContext } from '../shared/slice-context.js';
import {
  aiTextResultSchema,
  createXThreadBody,
  generateTextBody,
  rewritePostBody,
  rewrittenPostSchema,
  summarizeBody,
  xThreadDraftSchema,
} from './schemas.js';

type AiTextContext = SliceContext<
  typeof aiJobsService | typeof brandContextService | typeof billingServices | typeof slotFinderService
>;

function aiTextDeps(ctx: AiTextContext): AiTextDeps {
  const { credits } = ctx.use(billingServices);
  return {
    ...postGroupUseCaseDeps(ctx),
    commands: ctx.services.commands,
    aiJobs: ctx.use(aiJobsService),
    brandContext: ctx.use(brandContextService),
    // The thoughts read model (the thoughts slice): active thoughts, newest first.
    activeThoughts: (orgId, limit) => activeThoughtBriefs(ctx.services.readModels, orgId, limit),
    remainingCredits: async (orgId) =>
      (await credits.summaryOf(orgId, { recentLimit: 0 })).creditBalance.total,
  };
}

const operation = operationsWith<AiTextDeps>();
const org = '/v1/orgs/{orgId}';
/** Writing spends credits: a paid action, as generating a strategy is (docs/decisions.md, "Billing"). */
const textAccess = { permission: 'posts:draft', billing: 'paid' } as const;
const postToolAccess = { permission: 'posts:draft', scope: 'posts:write', billing: 'paid' } as const;

const postParams = orgParams.extend({
  postId: z.uuid().openapi({ param: { name: 'postId', in: 'path' } }),
});

export const aiTextOperations = operationGroup(aiTextDeps, [
  operation({
    name: 'generateText',
    kind: 'write',
    method: 'post',
    path: `${org}/ai/content/generate`,
    tags: ['ai'],
    summary: 'Write the text a prompt asks for, in the brand voice (a model, or the offline writer)',
    description:
      'One `ai.generate` agent run, priced `ai_text` when a model writes it (the offline writer is free). The ' +
      'prompt is grounded in the public brand context only.',
    params: orgParams,
    body: generateTextBody,
    output: aiTextResultSchema,
    outputDescription: 'The text, the credits it used and those left',
    errors: [400, 401, 402, 403, 409, 422, 503],
    access: textAccess,
    run: (deps, { caller, request }, input) => generateText(deps, caller, input, request),
  }),
  operation({
    name: 'summarizeText',
    kind: 'write',
    method: 'post',
    path: `${org}/ai/summarize`,
    tags: ['ai'],
    summary: 'Summarise a text (a model, or the offline writer: its most telling sentences, in order)',
    description: 'One `ai.summarize` agent run, priced `ai_text` when a model writes it.',
    params: orgParams,
    body: summarizeBody,
    output: aiTextResultSchema,
    outputDescription: 'The summary, the credits it used and those left',
    errors: [400, 401, 402, 403, 409, 422, 503],
    access: textAccess,
    run: (deps, { caller, request }, input) => summarizeText(deps, caller, input, request),
  }),
  operation({
    name: 'rewrite_post',
    kind: 'write',
    method: 'post',
    path: `${org}/marketing/posts/{postId}/rewrite`,
    tags: ['marketing'],
    summary:
      "Rewrite one post's text by guidance in the brand voice; an ordinary edit, so it withdraws any approval",
    description:
      'Tool: rewrite_post (path not shown by the spec). One `posts.rewrite` agent run (priced `ai_draft`), then the ' +
      'edit as PATCH of the post makes it; 409 for a post being published or published.',
    params: postParams,
    body: rewritePostBody,
    output: rewrittenPostSchema,
    outputDescription: 'The edited post, the model that wrote it, the credits used and left',
    errors: [400, 401, 402, 403, 404, 409, 422, 503],
    access: postToolAccess,
    tool: {
      title: 'Rewrite a post',
      description:
        "Rewrites one post's text following your guidance (e.g. 'shorter', 'more formal', 'add a question', " +
        "'remove emoji'), in the brand voice and within the platform's limit, and saves it as an edit of the " +
        'post. Editing withdraws any approval: an approved or scheduled post goes back to review ' +
        '(pending_approval) and is not published until a person approves it again. Posts being published or ' +
        'already published cannot be rewritten. Spends AI credits when a model writes it.',
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      describe: { postId: 'The post to rewrite' },
      summary: ({ post, creditsUsed }) =>
        `Rewrote post ${post.id} (${post.platform}); it is now ${post.status}. ${creditsUsed} credit(s) used.`,
    },
    run: (deps, { caller, request }, input) => rewritePost(deps, caller, input, request),
  }),
  operation({
    name: 'create_x_thread',
    kind: 'write',
    method: 'post',
    path: `${org}/marketing/drafts/x-thread`,
    tags: ['marketing'],
    summary:
      'Write an X thread on a topic in the brand voice, as a draft waiting for approval (never scheduled)',
    description:
      'Tool: create_x_thread (path not shown by the spec). One `posts.x_thread` agent run (priced `ai_draft`), ' +
      'then a draft as POST drafts makes it: one X post, its first part in contentText and the others in ' +
      'platformPayload.thread, pending_approval.',
    params: orgParams,
    body: createXThreadBody,
    output: xThreadDraftSchema,
    outputDescription: 'The draft group and its post, the model that wrote it, the credits used and left',
    errors: [400, 401, 402, 403, 409, 413, 422, 503],
    access: postToolAccess,
    tool: {
      title: 'Write an X thread as a draft',
      description:
        'Writes an X (Twitter) thread on a topic, grounded in the brand profile, strategy and recent posts, every ' +
        'part within 280 characters, and saves it as a draft for review: one X post whose text is the first ' +
        'part and whose platformPayload.thread holds the rest. It waits for a person’s approval ' +
        '(pending_approval); it is never scheduled or published by this tool. Spends AI credits when a model ' +
        'writes it.',
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      summary: ({ group, posts, creditsUsed }) =>
        `Created draft ${group.id}: an X thread of ${1 + (posts[0]?.platformPayload?.thread?.length ?? 0)} ` +
        `part(s), waiting for approval (${group.status}). ${creditsUsed} credit(s) used.`,
    },
    run: (deps, { caller, request }, input) => createXThread(deps, caller, input, request),
  }),
]);
