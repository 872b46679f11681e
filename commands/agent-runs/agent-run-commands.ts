// Agent run commands: each decision of domain/agent-runs/agent-run.ts appended to the run's stream
// (`agentRun-<runId>`), and the run loaded back. Step events skip the read-your-writes wait (a run reports
// progress as it goes; the final event waits, so a list read after a job answers shows the run ended).
import {
  agentRunCategory,
  agentRunDecider,
  type AgentRunCommand,
  type AgentRunEvent,
  type AgentRunState,
} from '../../domain/agent-runs/agent-run.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
  type CommandOutcome,
} from '../shared/command-handler.js';

export const agentRunStream = (runId: string) => streamName(agentRunCategory, runId);

export async function decideRun(
  deps: CommandDeps,
  runId: string,
  command: AgentRunCommand,
  metadata: CommandMetadata,
  options: { awaitReadModels?: boolean } = {},
): Promise<CommandOutcome<AgentRunState, AgentRunEvent>> {
  return handleCommand(deps, {
    stream: agentRunStream(runId),
    decider: agentRunDecider,
    command,
    metadata,
    awaitReadModels: options.awaitReadModels ?? false,
  });
}

export async function loadRun(deps: Pick<CommandDeps, 'eventStore'>, runId: string): Promise<AgentRunState> {
  return (await loadAggregate(deps.eventStore, agentRunStream(runId), agentRunDecider)).state;
}
