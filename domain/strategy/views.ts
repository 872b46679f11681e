// The Strategy resource (spec part 2, "Strategy") of one version, as every entry point answers it. Priorities'
// `expired` status is read off the clock here (docs/decisions.md, "Content strategy": expiry at read time).
import type { StrategySource } from './event-codec.js';
import {
  priorityStatusAt,
  strategySchemaVersion,
  type StrategyContent,
  type StrategyState,
  type StrategyStatus,
  type StrategyVersion,
} from './strategy.js';

export interface StrategyView extends StrategyContent {
  id: string;
  orgId: string;
  version: number;
  status: StrategyStatus;
  meta: {
    schemaVersion: number;
    generatedAt: string | null;
    confirmedAt: string | null;
    confirmedBy: string | null;
    lastEditedAt: string | null;
    lastSuggestedAt: string | null;
    /** Who wrote the version's content: the model (`ai`), the offline writer (`heuristic`) or a person (`user`). */
    source: StrategySource;
    /** `provider:model`, `offline` for the offline writer, null for a person's. */
    providerModel: string | null;
    /** The agent run that generated it. */
    agentRunId: string | null;
    supersededAt: string | null;
  };
  createdAt: string;
  updatedAt: string;
}

export function strategyView(
  state: Extract<StrategyState, { status: 'exists' }>,
  version: StrategyVersion,
  now: string,
): StrategyView {
  const { content } = version;
  return {
    id: state.strategyId,
    orgId: state.orgId,
    version: version.version,
    status: version.status,
    ...content,
    priorities: content.priorities.map((p) => ({ ...p, status: priorityStatusAt(p, now) })),
    meta: {
      schemaVersion: strategySchemaVersion,
      generatedAt: version.generatedAt,
      confirmedAt: version.confirmedAt,
      confirmedBy: version.confirmedBy,
      lastEditedAt: version.lastEditedAt,
      lastSuggestedAt: version.lastSuggestedAt,
      source: version.source,
      providerModel: version.providerModel,
      agentRunId: version.agentRunId,
      supersededAt: version.supersededAt,
    },
    createdAt: version.createdAt,
    updatedAt: version.updatedAt,
  };
}
