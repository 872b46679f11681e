// The strategy slice's operations (spec part 2, "Strategy"): GET ORG/strategy (get_strategy), PATCH, POST confirm,
// generate and priorities, and the two the spec leaves unnamed: GET ORG/strategy/versions (the version history)
// and POST ORG/strategy/recommendations/{recommendationId} (accept or reject one); docs/decisions.md says why.
import { z } from '@hono/zod-openapi';
import {
  addStrategyPriority,
  confirmStrategy,
  decideStrategyRecommendation,
  generateStrategy,
  getStrategy,
  listStrategyVersions,
  updateStrategy,
  type StrategyDeps,
} from '../../commands/strategy/strategy-use-cases.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import {
  addPriorityBody,
  confirmStrategyBody,
  decideRecommendationBody,
  generateStrategyBody,
  strategySchema,
  updateStrategyBody,
  versionsQuery,
} from './schemas.js';

const operation = operationsWith<StrategyDeps>();
const path = '/v1/orgs/{orgId}/strategy';
/** Owners and admins (docs/decisions.md, "Role matrix": strategy). */
const managing = { permission: 'strategy:manage' } as const;

const recommendationParams = orgParams.extend({
  recommendationId: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'recommendationId', in: 'path' } }),
});

export const strategyOperations = operationGroup(
  (ctx): StrategyDeps => ({
    ...ctx.services,
    aiJobs: ctx.use(aiJobsService),
    brandContext: ctx.use(brandContextService),
  }),
  [
    operation({
      name: 'get_strategy',
      kind: 'read',
      method: 'get',
      path,
      tags: ['strategy'],
      summary:
        "The workspace's content strategy: the active version, else the draft waiting to be confirmed, else null",
      params: orgParams,
      output: strategySchema.nullable(),
      outputDescription: 'The strategy, or null',
      errors: [400, 401, 403],
      access: { permission: 'workspace:read', scope: 'mcp:read' },
      tool: {
        title: 'Get the content strategy',
        description:
          "Returns the workspace's content strategy: primary objective, target audience, pillars (themes to post " +
          'about, with keywords), channel priorities (platforms, enabled, postsPerWeek), the content mix (percent per ' +
          'content type: educational, opinion, personal, community, promotional), positioning angles, opportunities, ' +
          'time-bounded priorities (status expired once past endsAt), guardrail notes and recommendations. It is the ' +
          'active version; when none is active yet, the draft waiting for confirmation (status draft); null when the ' +
          'workspace has no strategy. Answers { strategy }. Use it to choose topics and formats that fit the plan. Read-only.',
        hints: { readOnlyHint: true, openWorldHint: false },
        // Structured content is an object: the strategy (or null) under `strategy`.
        answer: async (_deps, _call, _input, strategy) => ({ strategy }),
        summary: ({ strategy: s }) =>
          s === null
            ? 'The workspace has no content strategy yet.'
            : `Strategy version ${s.version} (${s.status}${s.meta.confirmedAt ? ', confirmed' : ''}): ${s.primaryObjective || 'no objective'}; ` +
              `pillars: ${s.pillars.map((p) => p.name).join(', ') || 'none'}.`,
      },
      run: (deps, { caller, request }, { orgId }) => getStrategy(deps, caller, { orgId }, request.now),
    }),
    operation({
      name: 'listStrategyVersions',
      kind: 'read',
      method: 'get',
      path: `${path}/versions`,
      tags: ['strategy'],
      summary: 'Every version of the strategy, newest first: drafts, the active one and those it superseded',
      params: orgParams,
      query: versionsQuery,
      output: z.array(strategySchema),
      outputDescription: 'Versions, newest first',
      errors: [400, 401, 403],
      access: { permission: 'workspace:read' },
      run: (deps, { caller, request }, input) => listStrategyVersions(deps, caller, input, request.now),
    }),
    operation({
      name: 'updateStrategy',
      kind: 'write',
      method: 'patch',
      path,
      tags: ['strategy'],
      summary:
        'Edit the strategy GET shows (the active version, else the draft); with none, start a draft. Omitted fields stay; lists replace',
      params: orgParams,
      body: updateStrategyBody,
      output: strategySchema,
      outputDescription: 'The edited version',
      errors: [400, 401, 402, 403, 409, 422, 503],
      access: managing,
      run: (deps, { caller, request }, { orgId, ...changes }) =>
        updateStrategy(deps, caller, { orgId, changes }, request),
    }),
    operation({
      name: 'confirmStrategy',
      kind: 'write',
      method: 'post',
      path: `${path}/confirm`,
      tags: ['strategy'],
      summary:
        'Confirm the strategy, applying `updates` first: a draft becomes the active version (the previous one is superseded); without a draft the active version is confirmed',
      params: orgParams,
      body: confirmStrategyBody,
      bodyRequired: false,
      output: strategySchema,
      outputDescription: 'The active, confirmed version',
      errors: [400, 401, 402, 403, 404, 409, 422, 503],
      access: managing,
      run: (deps, { caller, request }, { orgId, updates }) =>
        confirmStrategy(deps, caller, { orgId, ...(updates ? { updates } : {}) }, request),
    }),
    operation({
      name: 'generateStrategy',
      kind: 'write',
      method: 'post',
      path: `${path}/generate`,
      tags: ['strategy'],
      summary:
        'Propose a strategy from a goal and the brand context (a model, or the offline writer): a new draft, or with replaceActive the active version',
      params: orgParams,
      body: generateStrategyBody,
      bodyRequired: false,
      output: strategySchema,
      outputDescription: 'The generated version',
      errors: [400, 401, 402, 403, 409, 422, 503],
      // Generating may spend credits: a paid action (docs/decisions.md, "Billing").
      access: { ...managing, billing: 'paid' },
      run: (deps, { caller, request }, input) => generateStrategy(deps, caller, input, request),
    }),
    operation({
      name: 'addStrategyPriority',
      kind: 'write',
      method: 'post',
      path: `${path}/priorities`,
      tags: ['strategy'],
      summary:
        'Add a time-bounded priority to the strategy GET shows; it reads expired once endsAt has passed',
      params: orgParams,
      body: addPriorityBody,
      output: strategySchema,
      outputDescription: 'The strategy with the priority',
      errors: [400, 401, 402, 403, 404, 409, 422, 503],
      access: managing,
      run: (deps, { caller, request }, input) => addStrategyPriority(deps, caller, input, request),
    }),
    operation({
      name: 'decideStrategyRecommendation',
      kind: 'write',
      method: 'post',
      path: `${path}/recommendations/{recommendationId}`,
      tags: ['strategy'],
      summary: 'Accept or reject a pending recommendation of the strategy GET shows',
      params: recommendationParams,
      body: decideRecommendationBody,
      output: strategySchema,
      outputDescription: 'The strategy with the decision',
      errors: [400, 401, 402, 403, 404, 409, 422, 503],
      access: managing,
      run: (deps, { caller, request }, input) => decideStrategyRecommendation(deps, caller, input, request),
    }),
  ],
);
