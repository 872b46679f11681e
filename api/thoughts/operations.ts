// The thoughts slice's operations (spec part 2, "Thoughts"): GET ORG/thoughts (list_thoughts), POST (save_thought),
// PATCH and DELETE ORG/thoughts/{thoughtId} (update_thought; the delete has no tool) and POST
// ORG/thoughts/{thoughtId}/drafts (draft_post_from_thought). Writes answer from the aggregate; the list reads the
// thoughts read model (caught up by the write).
import { draftFromThought, type ThoughtDraftDeps } from '../../commands/thoughts/draft-use-case.js';
import { deleteThought, saveThought, updateThought } from '../../commands/thoughts/thought-use-cases.js';
import { listThoughts } from '../../projections/thoughts/queries.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { billingServices } from '../billing/services.js';
import { pageSchema } from '../platform/paging.js';
import { postGroupUseCaseDeps } from '../post-groups/deps.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import { visualsServices } from '../visuals/services.js';
import {
  draftFromThoughtBody,
  draftFromThoughtResult,
  listThoughtsQuery,
  saveThoughtBody,
  thoughtParams,
  thoughtSchema,
  updateThoughtBody,
} from './schemas.js';

const operation = operationsWith<ThoughtDraftDeps>();
const path = '/v1/orgs/{orgId}/thoughts';
const tags = ['thoughts'];
/** Members who draft (owners, admins, editors); assistants with posts:write. */
const writing = { permission: 'posts:draft', scope: 'posts:write' } as const;
const clip = (text: string) => (text.length <= 60 ? text : `${text.slice(0, 59)}…`);

export const thoughtOperations = operationGroup(
  (ctx): ThoughtDraftDeps => ({
    ...ctx.services,
    aiJobs: ctx.use(aiJobsService),
    brandContext: ctx.use(brandContextService),
    postGroups: postGroupUseCaseDeps(ctx),
    visuals: ctx.use(visualsServices).deps,
    credits: ctx.use(billingServices).credits,
  }),
  [
    operation({
      name: 'list_thoughts',
      kind: 'read',
      method: 'get',
      path,
      tags,
      summary: "The workspace's saved thoughts, newest first; archived ones only when asked for",
      params: orgParams,
      query: listThoughtsQuery,
      output: pageSchema(thoughtSchema),
      outputDescription: 'A page of thoughts',
      errors: [400, 401, 403],
      access: { permission: 'workspace:read', scope: 'mcp:read' },
      tool: {
        title: 'List saved thoughts',
        description:
          "Lists the workspace's saved thoughts (ideas, tips, opinions, stories, lessons the brand wants to post " +
          'about), newest first, a page at a time. status: active (new and drafted; the default), new, drafted, ' +
          'archived or all. Each has its text, kind, tags, status and the post groups drafted from it ' +
          '(draftGroupIds). Active thoughts feed every post generation; archived ones do not. Read-only.',
        hints: { readOnlyHint: true, openWorldHint: false },
        summary: (page) =>
          page.total === 0
            ? 'No thoughts match.'
            : `${page.total} thought(s); page ${page.page}: ${page.items.map((t) => `${t.id} (${t.status}) "${clip(t.text)}"`).join('; ')}.`,
      },
      run: (deps, { caller }, { orgId, status, page, limit }) =>
        listThoughts(deps.readModels, caller, { orgId, status, page, limit }),
    }),
    operation({
      name: 'save_thought',
      kind: 'write',
      method: 'post',
      path,
      tags,
      summary: 'Save a thought (status new); active thoughts feed post generation',
      params: orgParams,
      body: saveThoughtBody,
      output: thoughtSchema,
      outputDescription: 'The saved thought',
      status: 201,
      errors: [400, 401, 402, 403, 409, 422, 503],
      access: writing,
      tool: {
        title: 'Save a thought',
        description:
          'Saves a thought of the brand for later posts: text (required, up to 5000 characters), kind (thought, ' +
          'tip, opinion, story or lesson; default thought), source (where it came from) and tags. It starts as new ' +
          'and grounds every post the workspace generates until archived. Draft posts from it with ' +
          'draft_post_from_thought. Publishes nothing.',
        hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
        summary: (t) => `Saved thought ${t.id} (${t.kind}): "${clip(t.text)}".`,
      },
      run: (deps, { caller, request }, input) => saveThought(deps, caller, input, request),
    }),
    operation({
      name: 'update_thought',
      kind: 'write',
      method: 'patch',
      path: `${path}/{thoughtId}`,
      tags,
      summary: 'Edit a thought (text, kind, tags) or set its status; omitted fields stay, tags replace',
      params: thoughtParams,
      body: updateThoughtBody,
      output: thoughtSchema,
      outputDescription: 'The thought',
      errors: [400, 401, 402, 403, 404, 409, 422, 503],
      access: writing,
      tool: {
        title: 'Update a thought',
        description:
          'Edits a saved thought: text, kind, tags (replacing them) and status (new, drafted or archived, set as ' +
          'given). Archiving stops the thought from feeding post generation; setting it back to new brings it ' +
          'back. Omitted fields stay. Publishes nothing.',
        hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        summary: (t) => `Thought ${t.id} is ${t.status}: "${clip(t.text)}".`,
      },
      run: (deps, { caller, request }, { orgId, thoughtId, ...changes }) =>
        updateThought(deps, caller, { orgId, thoughtId, ...changes }, request),
    }),
    operation({
      name: 'deleteThought',
      kind: 'write',
      method: 'delete',
      path: `${path}/{thoughtId}`,
      tags,
      summary: 'Delete a thought; the drafts already made from it are kept. Answers the thought as it was',
      params: thoughtParams,
      output: thoughtSchema,
      outputDescription: 'The deleted thought',
      errors: [400, 401, 402, 403, 404, 422, 503],
      access: writing,
      run: (deps, { caller, request }, { orgId, thoughtId }) =>
        deleteThought(deps, caller, { orgId, thoughtId }, request),
    }),
    operation({
      name: 'draft_post_from_thought',
      kind: 'write',
      method: 'post',
      path: `${path}/{thoughtId}/drafts`,
      tags,
      summary:
        'Write posts from a thought (X and LinkedIn, or the platforms asked) in a viral format and the brand voice, with an optional branded visual, into review as pending approval',
      params: thoughtParams,
      body: draftFromThoughtBody,
      bodyRequired: false,
      output: draftFromThoughtResult,
      outputDescription: 'The thought, the group in review and its posts, the visual, and the credits',
      errors: [400, 401, 402, 403, 404, 409, 422, 429, 503],
      // Writing with a model spends credits: a paid action (docs/decisions.md, "Billing").
      access: { ...writing, billing: 'paid' },
      tool: {
        title: 'Draft posts from a thought',
        description:
          'Writes one post per platform (default x and linkedin; also threads, bluesky, facebook) from a saved ' +
          'thought, each in a documented viral format (contrarian take, lesson learned, how-to steps, story arc, ' +
          'myth vs fact, list, before and after, question hook) and the brand voice, grounded in the brand profile, ' +
          'the strategy pillars and priorities and recent top posts. guidance steers the angle; visual image or ' +
          'carousel adds a branded visual (aiBackground: an AI-generated background, extra credits). The posts go ' +
          'to review as one group pending approval; nothing is scheduled or published. The thought becomes ' +
          'drafted. Spends credits when a model writes. An archived thought is refused (409).',
        hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
        summary: (a) =>
          `Drafted ${a.posts.length} post(s) (${a.posts.map((p) => p.platform).join(', ')}) into group ${a.group.id}, ` +
          `${a.group.status}; ${a.creditsUsed} credit(s) used, ${a.remainingCredits} left.` +
          (a.visual ? ` Visual: ${a.visual.kind}.` : '') +
          (a.visualError ? ` The visual failed: ${a.visualError}` : ''),
      },
      run: (deps, { caller, request }, input) => draftFromThought(deps, caller, input, request),
    }),
  ],
);
