// Read model of agent runs and their steps (GET ORG/agent-runs and …/{runId}/steps), and of the leases the
// process manager checks (processes/agent-runs/lease-expiry.ts). A run's row is guarded by its stream revision
// (an event folded again changes nothing); a step's row is written from the event that carries its values.
import { sql } from 'kysely';
import { agentRunEventCodec } from '../../domain/agent-runs/event-codec.js';
import { readsFrom } from '../engine/event-sources.js';
import { defineProjection } from '../engine/projection.js';

/** A type, not an interface, so `withTables` takes it. */
export type AgentRunsTable = {
  id: string;
  org_id: string;
  job_type: string;
  status: string;
  payload: unknown;
  result_summary: unknown;
  attempt_count: number;
  max_attempts: number;
  idempotency_key: string | null;
  error_code: string | null;
  error_message: string | null;
  cost_credits: number | null;
  estimated_cost_milli_usd: number | null;
  created_by_user_id: string | null;
  started_at: string | null;
  completed_at: string | null;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
  revision: number;
};

export type AgentRunStepsTable = {
  id: string;
  run_id: string;
  org_id: string;
  trace_id: string;
  parent_step_id: string | null;
  role: string;
  kind: string;
  status: string;
  label: string | null;
  input: unknown;
  output: string | null;
  reasoning_summary: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  duration_ms: number | null;
  error_message: string | null;
  created_at: string;
  /** The stream revision of the step's start: steps in the order they began. */
  seq: number;
};

export type AgentRunTables = { agent_runs: AgentRunsTable; agent_run_steps: AgentRunStepsTable };

export const agentRunsProjection = defineProjection({
  name: 'agent_runs',
  version: 1,
  tables: ['agent_runs', 'agent_run_steps'],
  reads: [readsFrom(agentRunEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.agent_runs (
        id uuid primary key,
        org_id uuid not null,
        job_type text not null,
        status text not null,
        payload jsonb not null,
        result_summary jsonb,
        attempt_count integer not null,
        max_attempts integer not null,
        idempotency_key text,
        error_code text,
        error_message text,
        cost_credits double precision,
        estimated_cost_milli_usd double precision,
        created_by_user_id uuid,
        started_at timestamptz,
        completed_at timestamptz,
        lease_expires_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        revision integer not null
      )`.execute(trx);
    await sql`create index on ${s}.agent_runs (org_id, created_at desc, id)`.execute(trx);
    await sql`create index on ${s}.agent_runs (lease_expires_at) where status = 'running'`.execute(trx);
    await sql`
      create table ${s}.agent_run_steps (
        id uuid primary key,
        run_id uuid not null,
        org_id uuid not null,
        trace_id uuid not null,
        parent_step_id uuid,
        role text not null,
        kind text not null,
        status text not null,
        label text,
        input jsonb,
        output text,
        reasoning_summary text,
        prompt_tokens integer not null,
        completion_tokens integer not null,
        reasoning_tokens integer not null,
        duration_ms integer,
        error_message text,
        created_at timestamptz not null,
        seq integer not null
      )`.execute(trx);
    await sql`create index on ${s}.agent_run_steps (run_id, seq)`.execute(trx);
  },

  async apply(trx, event, schema) {
    const s = sql.id(schema);
    const runId = event.data.runId;
    const revision = event.revision;
    /** Changes the run's row unless this event (or a later one) was folded already. */
    const updateRun = async (set: ReturnType<typeof sql>) => {
      await sql`
        update ${s}.agent_runs set ${set}, revision = ${revision}
        where id = ${runId} and revision < ${revision}`.execute(trx);
    };
    switch (event.type) {
      case 'AgentRunQueued': {
        const d = event.data;
        await sql`
          insert into ${s}.agent_runs (id, org_id, job_type, status, payload, attempt_count, max_attempts,
            idempotency_key, created_by_user_id, created_at, updated_at, revision)
          values (${d.runId}, ${d.orgId}, ${d.jobType}, 'queued', ${JSON.stringify(d.payload)}::jsonb, 0,
            ${d.maxAttempts}, ${d.idempotencyKey}, ${d.createdByUserId}, ${d.queuedAt}, ${d.queuedAt}, ${revision})
          on conflict (id) do nothing`.execute(trx);
        return;
      }
      case 'AgentRunAttemptStarted': {
        const d = event.data;
        await updateRun(sql`status = 'running', attempt_count = ${d.attempt},
          started_at = coalesce(started_at, ${d.startedAt}::timestamptz), lease_expires_at = ${d.leaseExpiresAt},
          completed_at = null, updated_at = ${d.startedAt}`);
        return;
      }
      case 'AgentRunStepStarted': {
        const d = event.data;
        await sql`
          insert into ${s}.agent_run_steps (id, run_id, org_id, trace_id, parent_step_id, role, kind, status,
            label, input, prompt_tokens, completion_tokens, reasoning_tokens, created_at, seq)
          values (${d.stepId}, ${d.runId}, ${event.metadata.orgId}, ${d.traceId}, ${d.parentStepId}, ${d.role},
            ${d.kind}, 'running', ${d.label}, ${d.input === null ? null : JSON.stringify(d.input)}::jsonb, 0, 0, 0,
            ${d.startedAt}, ${revision})
          on conflict (id) do nothing`.execute(trx);
        await updateRun(sql`lease_expires_at = greatest(lease_expires_at, ${d.leaseExpiresAt}::timestamptz),
          updated_at = ${d.startedAt}`);
        return;
      }
      case 'AgentRunStepFinished': {
        const d = event.data;
        await sql`
          update ${s}.agent_run_steps set status = ${d.status}, output = ${d.output},
            reasoning_summary = ${d.reasoningSummary}, prompt_tokens = ${d.promptTokens},
            completion_tokens = ${d.completionTokens}, reasoning_tokens = ${d.reasoningTokens},
            duration_ms = ${d.durationMs}, error_message = ${d.errorMessage}
          where id = ${d.stepId}`.execute(trx);
        await updateRun(sql`estimated_cost_milli_usd = coalesce(estimated_cost_milli_usd, 0) + ${d.estimatedCostMilliUsd},
          updated_at = ${d.finishedAt}`);
        return;
      }
      case 'AgentRunAttemptFailed': {
        const d = event.data;
        await updateRun(sql`status = 'queued', error_code = ${d.errorCode}, error_message = ${d.errorMessage},
          lease_expires_at = null, updated_at = ${d.failedAt}`);
        return;
      }
      case 'AgentRunSucceeded': {
        const d = event.data;
        await updateRun(sql`status = 'succeeded', result_summary = ${JSON.stringify(d.resultSummary)}::jsonb,
          cost_credits = ${d.costCredits}, estimated_cost_milli_usd = ${d.estimatedCostMilliUsd},
          error_code = null, error_message = null, lease_expires_at = null, completed_at = ${d.completedAt},
          updated_at = ${d.completedAt}`);
        return;
      }
      case 'AgentRunFailed': {
        const d = event.data;
        await updateRun(sql`status = 'failed', error_code = ${d.errorCode}, error_message = ${d.errorMessage},
          cost_credits = 0, estimated_cost_milli_usd = ${d.estimatedCostMilliUsd}, lease_expires_at = null,
          completed_at = ${d.completedAt}, updated_at = ${d.completedAt}`);
        return;
      }
      case 'AgentRunCancelled': {
        const d = event.data;
        await updateRun(sql`status = 'cancelled', cost_credits = 0, lease_expires_at = null,
          completed_at = ${d.cancelledAt}, updated_at = ${d.cancelledAt}`);
        return;
      }
      default:
        return;
    }
  },
});
