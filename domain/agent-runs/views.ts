// The spec's Agent run and step resources (part 2, "Agent run and step") as the API answers them.
import type { RunStatus } from './agent-run.js';

export interface AgentRunView {
  id: string;
  orgId: string;
  jobType: string;
  status: RunStatus;
  payload: Record<string, unknown>;
  resultSummary: Record<string, unknown> | null;
  attemptCount: number;
  maxAttempts: number;
  idempotencyKey: string | null;
  errorMessage: string | null;
  costCredits: number | null;
  estimatedCostMilliUsd: number | null;
  createdByUserId: string | null;
  startedAt: string | null;
  completedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AgentRunStepView {
  id: string;
  traceId: string;
  parentStepId: string | null;
  role: string;
  kind: 'model_round' | 'tool_call' | 'subagent';
  status: 'running' | 'succeeded' | 'failed';
  label: string | null;
  input: Record<string, unknown> | null;
  output: string | null;
  reasoningSummary: string | null;
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  durationMs: number | null;
  errorMessage: string | null;
  createdAt: string;
}
