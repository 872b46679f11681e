// The ai slice's operations: GET ORG/agent-runs (recent durable job runs, filtered by status and jobType) and
// GET ORG/agent-runs/{runId}/steps (oldest first: how a client follows a run in progress). Both read the agent
// runs read model; every member may read them (docs/decisions.md, "Agent runs").
import { z } from '@hono/zod-openapi';
import { runStatuses } from '../../domain/agent-runs/agent-run.js';
import { stepKinds } from '../../domain/agent-runs/event-codec.js';
import { listAgentRunSteps, listAgentRuns } from '../../projections/agent-runs/queries.js';
import { pageParams, pageSchema } from '../platform/paging.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { canonicalUuid, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';

const json = z.record(z.string(), z.unknown());

export const agentRunSchema = z
  .object({
    id: z.uuid(),
    orgId: z.uuid(),
    jobType: z
      .string()
      .openapi({ example: 'strategy.generate', description: 'See docs/decisions.md, "Agent runs"' }),
    status: z.enum(runStatuses),
    payload: json,
    resultSummary: json.nullable(),
    attemptCount: z.number().int().min(0),
    maxAttempts: z.number().int().min(1),
    idempotencyKey: z.string().nullable(),
    errorMessage: z.string().nullable(),
    costCredits: z
      .number()
      .nullable()
      .openapi({ description: 'Credits charged (0 for the offline writer and failures)' }),
    estimatedCostMilliUsd: z
      .number()
      .nullable()
      .openapi({ description: "The model provider's estimated charge, thousandths of a US dollar" }),
    createdByUserId: z.uuid().nullable(),
    startedAt: z.string().nullable(),
    completedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('AgentRun');

export const agentRunStepSchema = z
  .object({
    id: z.uuid(),
    traceId: z.uuid(),
    parentStepId: z.uuid().nullable(),
    role: z
      .string()
      .openapi({ example: 'writer', description: '`writer` or `offline_writer` (docs/decisions.md)' }),
    kind: z.enum(stepKinds),
    status: z.enum(['running', 'succeeded', 'failed']),
    label: z.string().nullable(),
    input: json.nullable(),
    output: z.string().nullable(),
    reasoningSummary: z.string().nullable(),
    promptTokens: z.number().int().min(0),
    completionTokens: z.number().int().min(0),
    reasoningTokens: z.number().int().min(0),
    durationMs: z.number().int().min(0).nullable(),
    errorMessage: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('AgentRunStep');

const listQuery = z
  .object({
    ...pageParams(20, 100),
    status: z.enum(runStatuses).optional(),
    jobType: z.string().min(1).max(100).optional().openapi({ example: 'strategy.generate' }),
  })
  .strict();

const runParams = orgParams.extend({
  runId: canonicalUuid().openapi({ param: { name: 'runId', in: 'path' } }),
});

const operation = operationsWith<RouteServices>();
const path = '/v1/orgs/{orgId}/agent-runs';
const tags = ['agent-runs'];
/** Every member; reading is never refused for the subscription. */
const anyMember = { permission: 'workspace:read', billing: null } as const;

export const agentRunOperations = operationGroup(
  (ctx) => ctx.services,
  [
    operation({
      name: 'listAgentRuns',
      kind: 'read',
      method: 'get',
      path,
      tags,
      summary: "The workspace's recent durable AI job runs, newest first",
      params: orgParams,
      query: listQuery,
      output: pageSchema(agentRunSchema),
      outputDescription: 'A page of agent runs',
      errors: [400, 401, 403],
      access: anyMember,
      run: (services, { caller }, { orgId, page, limit, status, jobType }) =>
        listAgentRuns(services.readModels, caller, { orgId, page, limit, status, jobType }),
    }),
    operation({
      name: 'listAgentRunSteps',
      kind: 'read',
      method: 'get',
      path: `${path}/{runId}/steps`,
      tags,
      summary: "A run's steps, oldest first: how a background run reports progress",
      params: runParams,
      output: z.object({ items: z.array(agentRunStepSchema) }),
      outputDescription: 'The steps',
      errors: [400, 401, 403, 404],
      access: anyMember,
      run: (services, { caller }, { orgId, runId }) =>
        listAgentRunSteps(services.readModels, caller, { orgId, runId }),
    }),
  ],
);
