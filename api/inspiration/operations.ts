// The inspiration slice's operations (spec part 2, "Inspiration"; issue 31): the four endpoints the spec describes
// (GET ORG/inspiration, GET, PATCH and DELETE ORG/inspiration/{itemId}) and the ones designed here (docs/decisions.md,
// "Inspiration library (issue 31)"): GET ORG/inspiration/opportunities (Tool: list_inspiration_opportunities),
// POST ORG/inspiration (save by link or text), POST …/{itemId}/analyze, …/{itemId}/opportunity and
// …/{itemId}/drafts. Writes answer from the aggregate; reads come from the inspiration read model.
import { X_POST_READ } from '../../commands/x-posts/read-x-posts.js';
import {
  draftFromInspiration,
  type InspirationDraftDeps,
} from '../../commands/inspiration/draft-use-case.js';
import {
  deleteInspiration,
  moveInspirationOpportunity,
  reanalyseInspiration,
  saveInspiration,
  updateInspiration,
} from '../../commands/inspiration/inspiration-use-cases.js';
import { inspirationCompactView } from '../../domain/inspiration/views.js';
import {
  getInspirationItem,
  listInspiration,
  listInspirationOpportunities,
} from '../../projections/inspiration/queries.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { billingServices } from '../billing/services.js';
import { postGroupUseCaseDeps } from '../post-groups/deps.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import {
  draftFromInspirationBody,
  draftFromInspirationResult,
  inspirationItemSchema,
  inspirationListSchema,
  itemParams,
  listInspirationQuery,
  listOpportunitiesQuery,
  opportunitiesSchema,
  opportunityBody,
  saveInspirationBody,
  updateInspirationBody,
} from './schemas.js';

const operation = operationsWith<InspirationDraftDeps>();
const path = '/v1/orgs/{orgId}/inspiration';
const tags = ['inspiration'];
/** Members who draft (owners, admins, editors); no tool writes the library. */
const writing = { permission: 'posts:draft', scope: 'posts:write' } as const;
const reading = { permission: 'workspace:read', scope: 'mcp:read' } as const;
const clip = (text: string) => (text.length <= 60 ? text : `${text.slice(0, 59)}…`);

export const inspirationOperations = operationGroup(
  (ctx): InspirationDraftDeps => {
    const billing = ctx.use(billingServices);
    return {
      ...ctx.services,
      aiJobs: ctx.use(aiJobsService),
      brandContext: ctx.use(brandContextService),
      postGroups: postGroupUseCaseDeps(ctx),
      accounts: ctx.services.accounts,
      connectors: ctx.services.connectors,
      xReads: {
        idempotency: ctx.services.idempotency,
        accounts: ctx.services.accounts,
        connectors: ctx.services.connectors,
        credits: billing.credits,
        postCost: billing.catalog.actionCost(X_POST_READ)?.credits ?? 0,
      },
    };
  },
  [
    operation({
      name: 'listInspiration',
      kind: 'read',
      method: 'get',
      path,
      tags,
      summary: 'The inspiration library across X and LinkedIn: filtered, recent or most relevant first',
      params: orgParams,
      query: listInspirationQuery,
      output: inspirationListSchema,
      outputDescription: 'A page of items, full (verbose) or compact',
      errors: [400, 401, 403],
      access: { permission: reading.permission },
      run: async (deps, { caller }, { orgId, verbose, ...filters }) => {
        const page = await listInspiration(deps.readModels, caller, { orgId, ...filters });
        return verbose ? page : { ...page, items: page.items.map(inspirationCompactView) };
      },
    }),
    operation({
      name: 'list_inspiration_opportunities',
      kind: 'read',
      method: 'get',
      path: `${path}/opportunities`,
      tags,
      summary: 'Saved posts still worth acting on (open and saved), most relevant to the strategy first',
      params: orgParams,
      query: listOpportunitiesQuery,
      output: opportunitiesSchema,
      outputDescription: 'A page of items in the compact form',
      errors: [400, 401, 403],
      access: reading,
      tool: {
        title: 'List inspiration opportunities',
        description:
          "Lists the posts saved in the workspace's inspiration library (X and LinkedIn) that are still worth " +
          'acting on: open or saved (status), not hidden, dismissed or already acted on, the most relevant to the ' +
          "workspace's strategy first. Each has an excerpt, its analysis (topic, hook, keywords), its relevance " +
          'score with the breakdown (strategy fit, audience fit, quality, freshness, engagement), the pillars and ' +
          'priorities it matches and why it matters, and the drafts written from it. Read-only.',
        hints: { readOnlyHint: true, openWorldHint: false },
        summary: (page) =>
          page.total === 0
            ? 'No open or saved inspiration items.'
            : `${page.total} opportunit${page.total === 1 ? 'y' : 'ies'}; page ${page.page}: ${page.items
                .map(
                  (i) =>
                    `${i.id} (${i.relevanceScore ?? 'unscored'}, ${i.opportunityStatus}) "${clip(i.contentExcerpt)}"`,
                )
                .join('; ')}.`,
      },
      run: async (deps, { caller }, input) => {
        const page = await listInspirationOpportunities(deps.readModels, caller, input);
        return { ...page, items: page.items.map(inspirationCompactView) };
      },
    }),
    operation({
      name: 'saveInspiration',
      kind: 'write',
      method: 'post',
      path,
      tags,
      summary:
        'Save a post by link (X and LinkedIn, read through the connected account; an X read costs credits) or by text; it is analysed at once',
      description:
        'Give `url` or `contentText` (with `platform`). A link the workspace saved already answers the item saved ' +
        'before, unchanged, and reads and charges nothing. The analysis runs before the answer: analysisStatus is ' +
        'ready, failed (with analysisError; POST …/analyze tries again) or skipped (no text).',
      params: orgParams,
      body: saveInspirationBody,
      output: inspirationItemSchema,
      outputDescription: 'The saved item',
      status: 201,
      errors: [400, 401, 402, 403, 404, 409, 422, 429, 503],
      // A link's X read and the analysis by a model spend credits.
      access: { ...writing, billing: 'paid' },
      run: (deps, { caller, request }, input) => saveInspiration(deps, caller, input, request),
    }),
    operation({
      name: 'getInspirationItem',
      kind: 'read',
      method: 'get',
      path: `${path}/{itemId}`,
      tags,
      summary: 'One inspiration item, read against the strategy',
      params: itemParams,
      output: inspirationItemSchema,
      outputDescription: 'The item',
      errors: [400, 401, 403, 404],
      access: { permission: reading.permission },
      run: (deps, { caller }, input) => getInspirationItem(deps.readModels, caller, input),
    }),
    operation({
      name: 'updateInspirationItem',
      kind: 'write',
      method: 'patch',
      path: `${path}/{itemId}`,
      tags,
      summary:
        'Edit an item (notes, tags, text, author, drafts); omitted fields stay, lists replace; new text is analysed again',
      params: itemParams,
      body: updateInspirationBody,
      output: inspirationItemSchema,
      outputDescription: 'The item',
      errors: [400, 401, 402, 403, 404, 409, 422, 503],
      access: writing,
      run: (deps, { caller, request }, input) => updateInspiration(deps, caller, input, request),
    }),
    operation({
      name: 'deleteInspirationItem',
      kind: 'write',
      method: 'delete',
      path: `${path}/{itemId}`,
      tags,
      summary: 'Remove an item; drafts already put in review stay. Answers the item as it was',
      params: itemParams,
      output: inspirationItemSchema,
      outputDescription: 'The removed item',
      errors: [400, 401, 402, 403, 404, 422, 503],
      access: writing,
      run: (deps, { caller, request }, input) => deleteInspiration(deps, caller, input, request),
    }),
    operation({
      name: 'analyzeInspirationItem',
      kind: 'write',
      method: 'post',
      path: `${path}/{itemId}/analyze`,
      tags,
      summary: 'Analyse the item again (the model, or the offline writer); 409 while an analysis runs',
      params: itemParams,
      output: inspirationItemSchema,
      outputDescription: 'The item with its analysis (ready, failed or skipped)',
      errors: [400, 401, 402, 403, 404, 409, 422, 503],
      access: { ...writing, billing: 'paid' },
      run: (deps, { caller, request }, input) => reanalyseInspiration(deps, caller, input, request),
    }),
    operation({
      name: 'moveInspirationOpportunity',
      kind: 'write',
      method: 'post',
      path: `${path}/{itemId}/opportunity`,
      tags,
      summary: 'Save, hide, dismiss or act on an item, or open it again (opportunityStatus)',
      params: itemParams,
      body: opportunityBody,
      output: inspirationItemSchema,
      outputDescription: 'The item',
      errors: [400, 401, 402, 403, 404, 409, 422, 503],
      access: writing,
      run: (deps, { caller, request }, input) => moveInspirationOpportunity(deps, caller, input, request),
    }),
    operation({
      name: 'draftFromInspiration',
      kind: 'write',
      method: 'post',
      path: `${path}/{itemId}/drafts`,
      tags,
      summary:
        'Write drafts from an item per destination (x, linkedin, thread, article) and style; kept on the item, and put in review as a group pending approval only with review: true',
      params: itemParams,
      body: draftFromInspirationBody,
      bodyRequired: false,
      output: draftFromInspirationResult,
      outputDescription: 'The item, the drafts, the group in review (or null) and its posts, and the credits',
      errors: [400, 401, 402, 403, 404, 409, 422, 429, 503],
      access: { ...writing, billing: 'paid' },
      run: (deps, { caller, request }, input) => draftFromInspiration(deps, caller, input, request),
    }),
  ],
);
