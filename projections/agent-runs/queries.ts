// Queries over the agent runs read model: a workspace's runs newest first (filtered by status and jobType), one
// run's steps oldest first, and the running runs whose lease ran out (for the process manager).
import type { Kysely } from 'kysely';
import type { RunStatus } from '../../domain/agent-runs/agent-run.js';
import type { AgentRunStepView, AgentRunView } from '../../domain/agent-runs/views.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { NotFound } from '../../domain/shared/errors.js';
import { toPage, type Page } from '../../domain/shared/page.js';
import type { ReadModels } from '../read-models.js';
import type { AgentRunStepsTable, AgentRunsTable, AgentRunTables } from './agent-runs-projection.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Who may follow agent runs: every member (docs/decisions.md, "Agent runs"); assistants with mcp:read. */
const readRuns = { permission: 'workspace:read', scope: 'mcp:read' } as const;

const objectOrNull = (value: unknown): Record<string, unknown> | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;

function runView(row: AgentRunsTable): AgentRunView {
  return {
    id: row.id,
    orgId: row.org_id,
    jobType: row.job_type,
    status: row.status as RunStatus,
    payload: objectOrNull(row.payload) ?? {},
    resultSummary: objectOrNull(row.result_summary),
    attemptCount: row.attempt_count,
    maxAttempts: row.max_attempts,
    idempotencyKey: row.idempotency_key,
    errorMessage: row.error_message,
    costCredits: row.cost_credits,
    estimatedCostMilliUsd: row.estimated_cost_milli_usd,
    createdByUserId: row.created_by_user_id,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function stepView(row: AgentRunStepsTable): AgentRunStepView {
  return {
    id: row.id,
    traceId: row.trace_id,
    parentStepId: row.parent_step_id,
    role: row.role,
    kind: row.kind as AgentRunStepView['kind'],
    status: row.status as AgentRunStepView['status'],
    label: row.label,
    input: objectOrNull(row.input),
    output: row.output,
    reasoningSummary: row.reasoning_summary,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    reasoningTokens: row.reasoning_tokens,
    durationMs: row.duration_ms,
    errorMessage: row.error_message,
    createdAt: row.created_at,
  };
}

export interface AgentRunsQuery {
  orgId: string;
  page: number;
  limit: number;
  status?: RunStatus | undefined;
  jobType?: string | undefined;
}

export async function listAgentRuns(
  db: Kysely<ReadModels>,
  caller: Caller,
  query: AgentRunsQuery,
): Promise<Page<AgentRunView>> {
  authorize(caller, { orgId: query.orgId, ...readRuns });
  let base = db.withTables<AgentRunTables>().selectFrom('agent_runs').where('org_id', '=', query.orgId);
  if (query.status) base = base.where('status', '=', query.status);
  if (query.jobType) base = base.where('job_type', '=', query.jobType);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit)
      .offset((query.page - 1) * query.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return toPage(rows.map(runView), Number(count.total), query.page, query.limit);
}

export async function listAgentRunSteps(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: { orgId: string; runId: string },
): Promise<{ items: AgentRunStepView[] }> {
  authorize(caller, { orgId: input.orgId, ...readRuns });
  const tables = db.withTables<AgentRunTables>();
  const run = uuidPattern.test(input.runId)
    ? await tables
        .selectFrom('agent_runs')
        .select('id')
        .where('id', '=', input.runId)
        .where('org_id', '=', input.orgId)
        .executeTakeFirst()
    : undefined;
  if (!run) throw new NotFound('Agent run not found');
  const rows = await tables
    .selectFrom('agent_run_steps')
    .selectAll()
    .where('run_id', '=', input.runId)
    .orderBy('seq')
    .execute();
  return { items: rows.map(stepView) };
}

/**
 * Running runs whose lease ran out by `now`, and queued ones untouched since `staleQueuedBefore` (their worker
 * stopped): the process manager fails them.
 */
export async function runsWithExpiredLeases(
  db: Kysely<ReadModels>,
  now: Date,
  staleQueuedBefore: Date,
  limit = 200,
): Promise<{ id: string; orgId: string }[]> {
  const rows = await db
    .withTables<AgentRunTables>()
    .selectFrom('agent_runs')
    .select(['id', 'org_id'])
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'running'), eb('lease_expires_at', '<=', now.toISOString())]),
        eb.and([eb('status', '=', 'queued'), eb('updated_at', '<=', staleQueuedBefore.toISOString())]),
      ]),
    )
    .orderBy('updated_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, orgId: r.org_id }));
}
